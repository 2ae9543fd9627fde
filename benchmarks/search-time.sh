#!/bin/bash
# The model-mode pass wall time of two builds of the plugin, side by side on the benchmark
# kernels: each kernel's runs interleave the two (A, B, A, B, ...) so that a slow moment of a
# shared machine hits both, and the summary gives medians, their ratio, and whether the two
# builds decided the same (a hash of the remark's decision). Beside the wall time (model
# loading and parsing included), the search's own time as the remark states it.
#
#   benchmarks/search-time.sh OLD.so OLD_MODEL.onnx NEW.so NEW_MODEL.onnx [REPS] [KERNEL.mlir...]
#
# A build to compare against: `git stash; cmake --build build; cp build/lib/libAffineAutosched.so
# /tmp/old.so; git stash pop; cmake --build build` (copy the model too if it changed). Nothing
# else may run meanwhile (timings).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { sed -n '2,11p' "$0"; exit 2; }
A_SO=$(realpath "$1"); A_MODEL=$(realpath "$2"); B_SO=$(realpath "$3"); B_MODEL=$(realpath "$4")
REPS=${5:-3}
shift $(( $# >= 5 ? 5 : 4 ))
KERNELS=("$@")
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(benchmarks/polybench/*.mlir benchmarks/dnn/*.mlir)
: "${AUTOSCHED_ONNXRUNTIME:=$(realpath "$(ls .venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so* | head -1)")}"
export AUTOSCHED_ONNXRUNTIME
MLIR_OPT=${MLIR_OPT:-mlir-opt-22}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # plugin model kernel -> "seconds decision-hash search-seconds"
  local start end
  start=$(date +%s.%N)
  if ! "$MLIR_OPT" --load-pass-plugin="$1" --mlir-print-op-on-diagnostic=false \
      "--pass-pipeline=builtin.module(func.func(affine-autosched{evaluator=model model=$2}))" \
      "$3" -o "$tmp/out.mlir" 2>"$tmp/err"; then
    echo "$3: the pass failed with $1:" >&2; tail -5 "$tmp/err" >&2; exit 1
  fi
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $(grep -o 'applied .*\|kept the original' "$tmp/err" | sed 's/ (predicted.*//' | md5sum | cut -c1-8)" \
    "$(grep -o 'search [0-9.]* s' "$tmp/err" | awk '{ t += $2 } END { print t + 0 }')"
}

for k in "${KERNELS[@]}"; do
  for _ in $(seq "$REPS"); do
    echo "$(basename "$k" .mlir) A $(one "$A_SO" "$A_MODEL" "$k")"
    echo "$(basename "$k" .mlir) B $(one "$B_SO" "$B_MODEL" "$k")"
  done
done > "$tmp/runs"

python3 - "$tmp/runs" <<'EOF'
import collections, math, statistics as st, sys
runs = collections.defaultdict(lambda: collections.defaultdict(list))
searched = collections.defaultdict(lambda: collections.defaultdict(list))
decided = collections.defaultdict(lambda: collections.defaultdict(set))
for line in open(sys.argv[1]):
    kernel, build, secs, decision, search = line.split()
    runs[kernel][build].append(float(secs))
    searched[kernel][build].append(float(search))
    decided[kernel][build].add(decision)
rows = []
print(f"{'kernel':<18} {'A s':>6} {'B s':>6} {'B/A':>6}  B range      same decision  search A -> B (remark)")
for k, r in runs.items():
    a, b = st.median(r["A"]), st.median(r["B"])
    same = decided[k]["A"] == decided[k]["B"] and len(decided[k]["A"]) == 1
    sa, sb = st.median(searched[k]["A"]), st.median(searched[k]["B"])
    rows.append((a, b, same, sa, sb))
    print(f"{k:<18} {a:6.2f} {b:6.2f} {b / a:6.2f}  {min(r['B']):.2f}-{max(r['B']):.2f}  {'yes' if same else 'NO ':<13}  {sa:.2f} -> {sb:.2f}")
a, b = [x[0] for x in rows], [x[1] for x in rows]
print(f"{len(rows)} kernels, medians of {len(next(iter(runs.values()))['A'])} runs each: "
      f"B/A geomean {math.exp(st.mean(math.log(y / x) for x, y in zip(a, b))):.2f}; "
      f"median {st.median(a):.2f} -> {st.median(b):.2f} s; max {max(a):.2f} -> {max(b):.2f} s; "
      f"under 1 s {sum(x <= 1 for x in a)} -> {sum(x <= 1 for x in b)}; "
      f"same decision on {sum(x[2] for x in rows)}; searches (remark) under 1 s "
      f"{sum(x[3] <= 1 for x in rows)} -> {sum(x[4] <= 1 for x in rows)}, median "
      f"{st.median(x[3] for x in rows):.2f} -> {st.median(x[4] for x in rows):.2f} s, max {max(x[3] for x in rows):.2f} -> {max(x[4] for x in rows):.2f} s")
EOF
