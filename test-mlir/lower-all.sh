#!/usr/bin/env bash
# Runs the pass with its default options on every lit input (and the PolyBench kernels)
# and lowers the output to LLVM IR with the documented pipeline (README.md, "Lowering the
# pass's output"; LOWERING in src/measure/compile.rs). Inputs that this pipeline cannot
# lower without the pass either (unregistered operations, views that need
# --expand-strided-metadata) are skipped: the claim is that the pass never makes a
# lowerable input unlowerable. Prints one line per failure and a summary.
#   lower-all.sh PLUGIN DIR...
set -u
plugin=$1
shift
lower=(--lower-affine --convert-scf-to-openmp --convert-vector-to-scf --lower-affine
  --finalize-memref-to-llvm --convert-scf-to-cf --convert-openmp-to-llvm --convert-vector-to-llvm
  --convert-to-llvm --reconcile-unrealized-casts)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 skipped=0 failures=0
for dir in "$@"; do
  for f in "$dir"/*.mlir; do
    if ! mlir-opt-22 "${lower[@]}" "$f" -o "$tmp/ref.mlir" 2>/dev/null ||
      ! mlir-translate-22 --mlir-to-llvmir "$tmp/ref.mlir" -o /dev/null 2>/dev/null; then
      skipped=$((skipped + 1))
      continue
    fi
    n=$((n + 1))
    if ! mlir-opt-22 --load-pass-plugin="$plugin" --mlir-print-op-on-diagnostic=false \
      --pass-pipeline='builtin.module(func.func(affine-autosched))' "$f" -o "$tmp/out.mlir" 2>"$tmp/err"; then
      echo "FAILED (pass): $f: $(grep -m1 error "$tmp/err")"
      failures=$((failures + 1))
      continue
    fi
    if ! mlir-opt-22 "${lower[@]}" "$tmp/out.mlir" -o "$tmp/low.mlir" 2>"$tmp/err" ||
      ! mlir-translate-22 --mlir-to-llvmir "$tmp/low.mlir" -o /dev/null 2>>"$tmp/err"; then
      echo "FAILED (lowering): $f: $(grep -m1 error "$tmp/err")"
      failures=$((failures + 1))
    fi
  done
done
echo "lowered: $n inputs, $skipped skipped, failures: $failures"
