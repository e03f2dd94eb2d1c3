# Sourced by the bench scripts: `machine` prints the CPU (name, family and
# model) and the widest SIMD level seqfarm dispatches to on it.
machine() {
    local simd=scalar
    grep -qw avx2 /proc/cpuinfo && simd=AVX2
    grep -qw avx512bw /proc/cpuinfo && simd=AVX-512
    local name family model
    name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
    family=$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
    model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
    echo "$name, family $family model $model, $simd"
}
