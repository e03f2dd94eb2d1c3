#!/usr/bin/awk -f
# Scores an aligner's SAM against the true positions of simulated reads.
#
#   awk -f bench/align_eval.awk TRUTH.sam ALIGNED.sam
#
# TRUTH.sam is mason_simulator's --out-alignment file, single-end or paired-end. A read
# (each mate of a pair counts as one) is correct when its primary alignment is on the
# true contig and strand, with a leftmost position within 50 bp of the true one. Reads
# mason could not place (flag 4 in the truth: they cross a structural variant of the
# simulated sample) have no true position and are left out. Mates are told apart by
# their flags (0x40, 0x80); a trailing /1 or /2 on a name is dropped. Prints one line
# of tab-separated fields:
#   reads  correct%  then for MAPQ >= 1, 10, 20, 30: mapped% and wrong count,
#   then proper% (primary records flagged 0x2 / all reads; 0 for single-end)
# (mapped% = reads at that MAPQ or more / all reads).
function bit(flag, b) { return int(flag / b) % 2 }
function key(name, flag) {
    sub(/\/[12]$/, "", name)
    return name (bit(flag, 64) ? "/1" : (bit(flag, 128) ? "/2" : ""))
}
FNR == NR {
    if ($0 ~ /^@/ || bit($2, 256) || bit($2, 2048)) next
    k = key($1, $2)
    if (bit($2, 4)) { unplaced[k] = 1; next }
    contig[k] = $3; pos[k] = $4; rev[k] = bit($2, 16); total++
    next
}
/^@/ { next }
bit($2, 256) || bit($2, 2048) { next }
{
    k = key($1, $2)
    if (k in unplaced) next
    seen++
    if (!(k in contig)) { unknown++; next }
    if (bit($2, 1) && bit($2, 2)) proper++
    if (bit($2, 4)) next
    ok = ($3 == contig[k] && bit($2, 16) == rev[k] && $4 - pos[k] <= 50 && pos[k] - $4 <= 50)
    correct += ok
    for (i = 1; i <= 4; i++) {
        t = (i == 1 ? 1 : (i == 2 ? 10 : (i == 3 ? 20 : 30)))
        if ($5 >= t) { mapped[i]++; if (!ok) wrong[i]++ }
    }
}
END {
    if (unknown > 0) printf "warning: %d reads not in the truth\n", unknown > "/dev/stderr"
    if (seen != total) printf "warning: %d primary records for %d reads\n", seen, total > "/dev/stderr"
    printf "%d\t%.3f", total, 100 * correct / total
    for (i = 1; i <= 4; i++) printf "\t%.2f\t%d", 100 * mapped[i] / total, wrong[i] + 0
    printf "\t%.2f\n", 100 * proper / total
}
