# Sourced by the search benchmarks: the benchmark queries, picked out of a FASTA file.

# split_queries SCRIPT SOURCE DIR ACCESSION...: writes each query, found in SOURCE by its
# accession (the first word of the header, without a `sp|`/`tr|` prefix or `|NAME`
# suffix), to DIR/ACCESSION.fa; stops with an error naming SCRIPT when one is missing.
split_queries() {
  local script=$1 source=$2 dir=$3
  shift 3
  awk -v ids="$*" -v dir="$dir" '
    BEGIN { n = split(ids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    /^>/ { id = substr($1, 2); sub(/^(sp|tr)\|/, "", id); sub(/\|.*/, "", id); out = (id in want) ? dir "/" id ".fa" : "" }
    out != "" { print > out }' "$source"
  local q
  for q in "$@"; do
    [ -s "$dir/$q.fa" ] || { echo "$script: query $q not in $source" >&2; exit 1; }
  done
}
