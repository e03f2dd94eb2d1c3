/* Benchmark helper for bench/search.sh (never part of seqfarm): times parasail's
 * database search loop, one query profile against every database sequence, with
 * OpenMP threads, and prints per query: length, seconds, GCUPS, the sum of all scores
 * (to check that seqfarm computed the same scores) and the CPU seconds of the loop.
 * Reading the files is not timed. Build: cc -O3 -fopenmp parasail_search.c -lparasail */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <parasail.h>
#include <parasail/io.h>

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s QUERIES.fa DB.fa FUNCTION THREADS [OPEN EXTEND]\n", argv[0]);
        return 2;
    }
    parasail_sequences_t *queries = parasail_sequences_from_file(argv[1]);
    parasail_sequences_t *db = parasail_sequences_from_file(argv[2]);
    const char *name = argv[3];
    int threads = atoi(argv[4]);
    int open = argc > 5 ? atoi(argv[5]) : 12; /* parasail's open = BLAST open + extend */
    int extend = argc > 6 ? atoi(argv[6]) : 1;
    parasail_pfunction_t *function = parasail_lookup_pfunction(name);
    parasail_pcreator_t *creator = parasail_lookup_pcreator(name);
    const parasail_matrix_t *matrix = parasail_matrix_lookup("blosum62");
    if (!queries || !db || !function || !creator || !matrix || threads < 1) {
        fprintf(stderr, "parasail_search: bad input or function name %s\n", name);
        return 1;
    }
    printf("query\tlength\tseconds\tgcups\tscore_sum\tcpu_seconds\n");
    for (size_t q = 0; q < queries->l; q++) {
        const parasail_sequence_t *query = &queries->seqs[q];
        parasail_profile_t *profile = creator(query->seq.s, (int)query->seq.l, matrix);
        double start = clock_seconds(CLOCK_MONOTONIC);
        double cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        long long sum = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) reduction(+ : sum)
        for (long j = 0; j < (long)db->l; j++) {
            parasail_result_t *result =
                function(profile, db->seqs[j].seq.s, (int)db->seqs[j].seq.l, open, extend);
            sum += parasail_result_get_score(result);
            parasail_result_free(result);
        }
        double seconds = clock_seconds(CLOCK_MONOTONIC) - start;
        double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
        printf("%s\t%zu\t%.3f\t%.2f\t%lld\t%.3f\n", query->name.s, query->seq.l, seconds,
               (double)query->seq.l * (double)db->characters / seconds / 1e9, sum, cpu);
        fflush(stdout);
        parasail_profile_free(profile);
    }
    parasail_sequences_free(queries);
    parasail_sequences_free(db);
    return 0;
}
