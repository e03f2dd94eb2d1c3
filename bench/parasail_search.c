/* Benchmark helper for bench/search.sh and bench/search-dna.sh (never part of seqfarm):
 * times parasail's database search loop with OpenMP threads. Reading the files and
 * building the query profiles are not timed.
 *
 * Protein (bench/search.sh): one query profile against every database sequence, query
 * by query; prints per query: length, seconds, GCUPS, the sum of all scores (to check
 * that seqfarm computed the same scores) and the CPU seconds of the loop.
 *
 * DNA (--dna, bench/search-dna.sh): both strands, i.e. the query and its reverse
 * complement are each aligned to every database sequence (all queries in one timed
 * loop, the (query, strand, subject) alignments spread over the threads); prints, as
 * `seqfarm search --scores-only` does, `query subject score` for every pair (database
 * order, then query order), the score being the better of the two strands, and on
 * standard error the seconds, GCUPS (2 x query residues x database residues / seconds),
 * CPU seconds and the sum of the scores.
 *
 * Build: cc -O3 -fopenmp parasail_search.c -lparasail */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parasail.h>
#include <parasail/io.h>

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The reverse complement of `seq` (A<->T, C<->G, case kept; any other letter as is). */
static char *reverse_complement(const char *seq, size_t len)
{
    char *rc = malloc(len + 1);
    if (!rc)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        char c = seq[len - 1 - i];
        const char *from = "ACGTacgt", *to = "TGCAtgca";
        const char *at = strchr(from, c);
        rc[i] = (c && at) ? to[at - from] : c;
    }
    rc[len] = '\0';
    return rc;
}

/* A stretch of a database sequence that one alignment covers. */
struct window {
    size_t sequence, start, length;
};

static int longer_first(const void *a, const void *b)
{
    const struct window *x = a, *y = b;
    return (x->length < y->length) - (x->length > y->length);
}

/* --dna: argv = QUERIES.fa DB.fa FUNCTION THREADS [OPEN EXTEND [MATCH MISMATCH [WINDOW]]].
 * WINDOW > 0 aligns database sequences longer than WINDOW in windows of WINDOW residues
 * overlapping by 2 x the longest query + 1,000 (more than any local alignment of a query
 * can span with these scores), a sequence's score being its best window's: the same
 * score, but a saturated 8-bit score is rescored on one window, not a whole chromosome. */
static int search_dna(int argc, char **argv)
{
    parasail_sequences_t *queries = parasail_sequences_from_file(argv[0]);
    parasail_sequences_t *db = parasail_sequences_from_file(argv[1]);
    const char *name = argv[2];
    int threads = atoi(argv[3]);
    int open = argc > 4 ? atoi(argv[4]) : 7; /* BLASTN's 5/2: parasail's open = 5 + 2 */
    int extend = argc > 5 ? atoi(argv[5]) : 2;
    int match = argc > 6 ? atoi(argv[6]) : 2;
    int mismatch = argc > 7 ? atoi(argv[7]) : -3;
    size_t window = argc > 8 ? (size_t)atol(argv[8]) : 0;
    parasail_pfunction_t *function = parasail_lookup_pfunction(name);
    parasail_pcreator_t *creator = parasail_lookup_pcreator(name);
    parasail_matrix_t *matrix = parasail_matrix_create("ACGT", match, mismatch);
    if (!queries || !db || !function || !creator || !matrix || threads < 1) {
        fprintf(stderr, "parasail_search: bad input or function name %s\n", name);
        return 1;
    }
    size_t nq = queries->l, ns = db->l, query_residues = 0, longest = 0;
    for (size_t q = 0; q < nq; q++) {
        query_residues += queries->seqs[q].seq.l;
        longest = queries->seqs[q].seq.l > longest ? queries->seqs[q].seq.l : longest;
    }
    size_t overlap = 2 * longest + 1000;
    if (window > 0 && window <= 2 * overlap) {
        fprintf(stderr, "parasail_search: window %zu is too short (overlap %zu)\n", window, overlap);
        return 1;
    }
    size_t nw = 0;
    for (size_t j = 0; j < ns; j++) {
        size_t len = db->seqs[j].seq.l;
        nw += (window == 0 || len <= window) ? 1 : (len - overlap + window - overlap - 1) / (window - overlap);
    }
    /* profiles[2q] the query, profiles[2q + 1] its reverse complement */
    parasail_profile_t **profiles = calloc(2 * nq, sizeof *profiles);
    struct window *windows = calloc(nw + 1, sizeof *windows);
    int *scores = calloc(2 * nq * ns + 1, sizeof *scores);
    if (!profiles || !windows || !scores) {
        fprintf(stderr, "parasail_search: out of memory\n");
        return 1;
    }
    for (size_t q = 0; q < nq; q++) {
        const parasail_sequence_t *query = &queries->seqs[q];
        /* the profile keeps a pointer to its sequence: rc lives until the end */
        char *rc = reverse_complement(query->seq.s, query->seq.l);
        if (!rc) {
            fprintf(stderr, "parasail_search: out of memory\n");
            return 1;
        }
        profiles[2 * q] = creator(query->seq.s, (int)query->seq.l, matrix);
        profiles[2 * q + 1] = creator(rc, (int)query->seq.l, matrix);
    }
    size_t w = 0;
    for (size_t j = 0; j < ns; j++) {
        size_t len = db->seqs[j].seq.l;
        if (window == 0 || len <= window) {
            windows[w++] = (struct window){j, 0, len};
            continue;
        }
        for (size_t start = 0;; start += window - overlap) {
            size_t end = start + window < len ? start + window : len;
            windows[w++] = (struct window){j, start, end - start};
            if (end == len)
                break;
        }
    }
    if (w != nw) {
        fprintf(stderr, "parasail_search: %zu windows, expected %zu\n", w, nw);
        return 1;
    }
    /* The longest windows first, so that the last alignments to finish are short. */
    qsort(windows, nw, sizeof *windows, longer_first);
    long tasks = (long)(2 * nq * nw);
    double start = clock_seconds(CLOCK_MONOTONIC);
    double cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (long task = 0; task < tasks; task++) {
        const struct window *at = &windows[task / (long)(2 * nq)];
        size_t p = (size_t)(task % (long)(2 * nq));
        parasail_result_t *result = function(profiles[p], db->seqs[at->sequence].seq.s + at->start,
                                             (int)at->length, open, extend);
        int score = parasail_result_get_score(result);
        int *best = &scores[at->sequence * 2 * nq + p];
#pragma omp critical
        if (score > *best)
            *best = score;
        parasail_result_free(result);
    }
    double seconds = clock_seconds(CLOCK_MONOTONIC) - start;
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    long long sum = 0;
    for (size_t j = 0; j < ns; j++)
        for (size_t q = 0; q < nq; q++) {
            int plus = scores[j * 2 * nq + 2 * q], minus = scores[j * 2 * nq + 2 * q + 1];
            int best = plus > minus ? plus : minus;
            sum += best;
            printf("%s\t%s\t%d\n", queries->seqs[q].name.s, db->seqs[j].name.s, best);
        }
    fprintf(stderr,
            "parasail %s: %zu queries (%zu residues) x %zu sequences (%zu residues, %zu "
            "windows), both strands, threads %d, in %.3f s: %.2f GCUPS, %.3f CPU s, score "
            "sum %lld\n",
            name, nq, query_residues, ns, (size_t)db->characters, nw, threads, seconds,
            2.0 * (double)query_residues * (double)db->characters / seconds / 1e9, cpu, sum);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "--dna") == 0)
        return search_dna(argc - 2, argv + 2);
    if (argc < 5) {
        fprintf(stderr,
                "usage: %s QUERIES.fa DB.fa FUNCTION THREADS [OPEN EXTEND]\n"
                "       %s --dna QUERIES.fa DB.fa FUNCTION THREADS [OPEN EXTEND [MATCH MISMATCH [WINDOW]]]\n",
                argv[0], argv[0]);
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
