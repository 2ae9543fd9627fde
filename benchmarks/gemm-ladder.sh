#!/usr/bin/env bash
# The gemm ladder: what each step of a schedule contributes on a 1024x1024x1024 f32 gemm
# (benchmarks/kernels/gemm-1024.mlir), every rung a variant of ONE run of the measuring
# driver (interleaved, same seeded inputs, outputs checked against the naive nest), with
# OpenBLAS's sgemm on the same buffers as the ceiling. Writes benchmarks/showcase/LADDER.md.
# Needs a quiet machine (stop the data generator first).
#   bash benchmarks/gemm-ladder.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
threads=2
autosched=build/cargo/release/autosched
kernel=benchmarks/kernels/gemm-1024.mlir
[[ -x $autosched ]] || { echo "build first: bash scripts/setup.sh" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Rungs: label|schedule. Two paths from the naive i-j-k nest: the vectorized i-k-j order
# (the showcase schedule), and register accumulation with a register tile; then packing the
# tiles of B (and A) into contiguous buffers under the tile loops (the +pack rungs build on
# tile+acc+8x16+par); then the BLIS order of the register tile, the columns' point loop
# outside the rows' with B's sliver and A's panel packed there (jik6x16: 6x16, 12
# accumulators, the one that leaves AVX2 registers for the columns' vectors and a
# broadcast). (rows-first): the same tile jammed in the search's order, rows then columns,
# whose accumulators the jam puts back in memory order (passes/kinds/Unroll.cpp). Rungs whose label has "+fma" are applied with --fp-contract (the
# pass's fp-contract=true: multiplies may fuse into the adds that use them, as clang's C
# and Polly's do by default; outputs differ from the naive nest in the last bits), "+zmm"
# with --prefer-vector-width 512 (the pass's prefer-vector-width=512: LLVM otherwise uses
# 256-bit vectors on AVX-512 machines).
rungs=(
  "ikj|interchange(L0, L0.0.0, L0.0)"
  "ikj+tile|interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0.0:128, L0.0:256)"
  "ikj+tile+par|interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0.0:128, L0.0:256); parallelize(L0.t)"
  "showcase|interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0.0:128, L0.0:256); unroll(L0.0.0:4); parallelize(L0.t); vectorize(L0.0:16)"
  "tile+acc|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0)"
  "tile+acc+jam16|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0); unroll(L0.0:16)"
  "tile+acc+8x16|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8)"
  "tile+acc+8x16+par|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8); parallelize(L0.t)"
  "tile+acc+8x16+par(rows-first)|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0); unroll(L0:8); unroll(L0.0:16); parallelize(L0.t)"
  "tile+acc+4x16+par|tile(L0:64, L0.0:128, L0.0.0:256); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:4); parallelize(L0.t)"
  "+packB|tile(L0:64, L0.0:128, L0.0.0:256); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8); parallelize(L0.t)"
  "+packAB|tile(L0:64, L0.0:128, L0.0.0:256); pack(L0, %arg0); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8); parallelize(L0.t)"
  "tile+acc+4x32+par|tile(L0:128, L0.0:256, L0.0.0:192); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:32); parallelize(L0.t)"
  "+packB(4x32)|tile(L0:128, L0.0:256, L0.0.0:192); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:32); parallelize(L0.t)"
  "jik6x16+packB+par|tile(L0:96, L0.0:256, L0.0.0:192); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:6); parallelize(L0.t)"
  "jik6x16+packAB+par|tile(L0:96, L0.0:256, L0.0.0:192); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); pack(L0.0, %arg0); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:6); parallelize(L0.t)"
  "jik6x16+packAB+par+fma|tile(L0:96, L0.0:256, L0.0.0:192); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); pack(L0.0, %arg0); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:6); parallelize(L0.t)"
  "showcase+fma|interchange(L0, L0.0.0, L0.0); tile(L0:32, L0.0.0:128, L0.0:256); unroll(L0.0.0:4); parallelize(L0.t); vectorize(L0.0:16)"
  "tile+acc+4x32+par+fma|tile(L0:128, L0.0:256, L0.0.0:192); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:32); parallelize(L0.t)"
  "+packB(4x32)+fma|tile(L0:128, L0.0:256, L0.0.0:192); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:32); parallelize(L0.t)"
  "+packB(4x32)+fma+zmm|tile(L0:128, L0.0:256, L0.0.0:192); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:32); parallelize(L0.t)"
  "+packB(8x32)+fma+zmm|tile(L0:128, L0.0:256, L0.0.0:192); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0:8); unroll(L0.0:32); parallelize(L0.t)"
)
variants=()
table=""
for r in "${rungs[@]}"; do
  label=${r%%|*}; schedule=${r#*|}
  codegen=()
  [[ $label == *+fma* ]] && codegen+=(--fp-contract)
  [[ $label == *+zmm* ]] && codegen+=(--prefer-vector-width 512)
  "$autosched" apply "$kernel" --schedule "$schedule" "${codegen[@]}" -o "$tmp/$label.mlir" 2>/dev/null
  variants+=(--variant "$label=$tmp/$label.mlir")
  table+="| $label | \`$schedule\` |"$'\n'
done
# The pass's own choices: its search with the shipped model, alone and with measuring
# (hybrid measures its finalists here, so this too needs the quiet machine).
plugin=build/lib/libAffineAutosched.so
AUTOSCHED_ONNXRUNTIME=${AUTOSCHED_ONNXRUNTIME:-$(realpath "$(ls .venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so* | head -1)")}
export AUTOSCHED_ONNXRUNTIME
for choice in model hybrid hybrid+fma hybrid+fma+zmm; do
  options="evaluator=${choice%%+*}"
  [[ $choice == *+fma* ]] && options+=" fp-contract=true"
  [[ $choice == *+zmm* ]] && options+=" prefer-vector-width=512"
  mlir-opt-22 --load-pass-plugin="$plugin" \
    "--pass-pipeline=builtin.module(func.func(affine-autosched{$options report=$tmp/$choice.json}))" \
    "$kernel" -o "$tmp/pass-$choice.mlir" 2>/dev/null
  schedule=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["schedule"] or "(the original)")' "$tmp/$choice.json")
  variants+=(--variant "pass-$choice=$tmp/pass-$choice.mlir")
  table+="| pass-$choice | \`$schedule\` (\`affine-autosched{$options}\`) |"$'\n'
done
"$autosched" c-wrapper "$kernel" --function gemm_1024 -o "$tmp/wrapper.c"
cat > "$tmp/blas.c" <<'C'
#include <cblas.h>
void gemm_1024(float A[1024][1024], float B[1024][1024], float C[1024][1024]) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.0f, &A[0][0], 1024,
              &B[0][0], 1024, 1.0f, &C[0][0], 1024);
}
C
clang-22 -O3 -march=native -fopenmp -fPIC -shared "$tmp/wrapper.c" "$tmp/blas.c" -lopenblas -o "$tmp/blas.so"
variants+=(--variant "openblas=$tmp/blas.so")

out=$(OPENBLAS_NUM_THREADS=$threads OPENBLAS_THREAD_TIMEOUT=4 "$autosched" run "$kernel" --threads "$threads" \
        --reps "$reps" --warmup 1 --flops 2147483648 --normalized-tolerance 1e-3 "${variants[@]}")
echo "$out"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
{
  echo "# The gemm ladder: 1024x1024x1024 f32"
  echo
  echo "Reproduce: \`bash benchmarks/gemm-ladder.sh\` (quiet machine). Machine: $cpu, $(nproc) cores;"
  echo "$(date -u +%Y-%m-%d); OMP_NUM_THREADS=$threads (OpenBLAS: as many threads). Every rung is a"
  echo "variant of one run of the measuring driver, interleaved, median of $reps timed runs after one"
  echo "warm-up; outputs checked against the naive nest (bitwise for ours without fp-contract; within"
  echo "1e-3 of the largest value for the +fma rungs, whose multiply-adds round once, and for"
  echo "OpenBLAS, which also sums in another order). +fma: \`fp-contract=true\`; +zmm:"
  echo "\`prefer-vector-width=512\`."
  echo
  echo '```'
  echo "$out"
  echo '```'
  echo
  echo "| rung | schedule |"
  echo "|---|---|"
  printf '%s' "$table"
  echo "| openblas | \`cblas_sgemm\` (Debian's libopenblas, pthreads) |"
} > benchmarks/showcase/LADDER.md
echo "wrote benchmarks/showcase/LADDER.md"
