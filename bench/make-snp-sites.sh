#!/usr/bin/env bash
# Writes a dbSNP-density site list for snp-pileup benchmarks: one biallelic SNV every
# 31-80 bp (55.5 bp on average, like dbSNP common sites on a human chromosome) over the
# sequences of a FASTA file, REF from the FASTA (N positions skipped), ALT a different
# base, as a bgzipped VCF. Deterministic: the same FASTA gives the same sites.
# Needs awk and bgzip (tabix package). usage: make-snp-sites.sh REF.fa OUT.vcf.gz
set -euo pipefail
fasta=${1:?usage: make-snp-sites.sh REF.fa OUT.vcf.gz}
out=${2:?usage: make-snp-sites.sh REF.fa OUT.vcf.gz}
awk '
BEGIN {
  OFS = "\t"
  print "##fileformat=VCFv4.2"
  print "##source=seqfarm bench/make-snp-sites.sh"
  print "#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO"
  alt["A"] = "G"; alt["C"] = "T"; alt["G"] = "A"; alt["T"] = "C"
  alt2["A"] = "C"; alt2["C"] = "G"; alt2["G"] = "T"; alt2["T"] = "A"
  state = 12345
}
# A small linear congruential generator, so every awk gives the same sites.
function next_gap() {
  state = (state * 1103515245 + 12345) % 2147483648
  return 31 + int(state / 65536) % 50
}
/^>/ {
  name = substr($1, 2); pos = 0; site = next_gap(); next
}
{
  line = toupper($0); n = length(line)
  while (site <= pos + n) {
    b = substr(line, site - pos, 1)
    if (b in alt) {
      a = (int(state / 7) % 2 == 0) ? alt[b] : alt2[b]
      print name, site, ".", b, a, ".", "PASS", "."
    }
    site += next_gap()
  }
  pos += n
}' "$fasta" | bgzip -c > "$out"
echo "$(zcat "$out" | grep -vc '^#') sites in $out" >&2
