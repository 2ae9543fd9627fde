#!/usr/bin/env bash
# The showcase: a hand-written schedule for a 1024x1024x1024 f32 gemm (interchange,
# tiling, unroll-and-jam, parallelization on 2 threads, 16-lane vectorization) against the
# naive loop nest, side by side in one run, outputs checked bit for bit; GFLOP/s against
# this machine's measured FMA peak. Writes benchmarks/showcase/RESULT.md.
#   bash benchmarks/showcase-gemm.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
threads=2
schedule="interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0.0:128, L0.0:256); unroll(L0.0.0:4); parallelize(L0.t); vectorize(L0.0:16)"
autosched=build/cargo/release/autosched
[[ -x $autosched ]] || { echo "build first: bash scripts/setup.sh" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
clang-22 -O2 -march=native -fopenmp benchmarks/showcase/peak.c -o "$tmp/peak"
peak=$(OMP_NUM_THREADS=$threads "$tmp/peak" 2>/dev/null)
echo "measured fp32 FMA peak on $threads threads: $peak GFLOP/s"

out=$("$autosched" run benchmarks/kernels/gemm-1024.mlir --schedule "$schedule" \
        --threads "$threads" --reps "$reps" --warmup 1 --flops 2147483648)
echo "$out"
gflops=$(echo "$out" | awk '$1 == "scheduled" && NF >= 7 {print $7}')
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
{
  echo "# Showcase: 1024x1024x1024 f32 gemm"
  echo
  echo "Reproduce: \`bash benchmarks/showcase-gemm.sh\` (after \`bash scripts/setup.sh\`)."
  echo
  echo "Machine: $cpu, $(nproc) cores; $(date -u +%Y-%m-%d). Compiled with the LLVM 22 tools"
  echo "(mlir-opt-22 lowering, clang-22 -O3 -march=native -fopenmp); OMP_NUM_THREADS=$threads."
  echo "Original and scheduled versions run in one process, interleaved, on the same seeded inputs;"
  echo "median of $reps timed runs after 1 warm-up run each."
  echo
  echo '```'
  echo "$out"
  echo '```'
  echo
  echo "Measured fp32 FMA peak of the machine on $threads threads (benchmarks/showcase/peak.c): $peak GFLOP/s."
  echo "The scheduled gemm reaches $gflops GFLOP/s, $(awk -v g="$gflops" -v p="$peak" 'BEGIN {printf "%.0f", 100*g/p}')% of that peak."
} > benchmarks/showcase/RESULT.md
echo "wrote benchmarks/showcase/RESULT.md"
