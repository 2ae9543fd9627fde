#!/bin/bash
# hybrid on every benchmark kernel with this build, and what it decided about 512-bit vectors:
# the report's `vector_width` where it took them, the debug log's pair of figures where it
# measured them and did not (both in one run of the measuring driver, against the original).
#   bash benchmarks/results-xeon/wider-vectors/run.sh > benchmarks/results-xeon/wider-vectors/hybrid.txt
# Quiet machine: hybrid measures.
set -euo pipefail
cd "$(dirname "$0")/../../.."
: "${AUTOSCHED_ONNXRUNTIME:=$(realpath "$(ls .venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so* | head -1)")}"
export AUTOSCHED_ONNXRUNTIME
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for k in benchmarks/polybench/*.mlir benchmarks/dnn/*.mlir; do
  name=$(basename "$k" .mlir)
  RUST_LOG=affine_autosched::search=debug mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so \
    "--pass-pipeline=builtin.module(func.func(affine-autosched{evaluator=hybrid report=$out/$name.jsonl}))" \
    "$k" -o /dev/null 2>"$out/$name.log" || { echo "$name: the pass failed"; tail -3 "$out/$name.log"; continue; }
  python3 - "$name" "$out/$name.jsonl" "$out/$name.log" <<'PY'
import json, re, sys
name, report, log = sys.argv[1:]
for line in open(report):
    d = json.loads(line)
    w = d.get("vector_width")
    if w:
        print(f"{name:18s} @{d['function']}: 512-bit vectors taken: {w['speedup']:.2f}x against {w['default_width_speedup']:.2f}x at the default width ({w['speedup'] / w['default_width_speedup']:.3f})")
        continue
    text = open(log).read()
    m = re.search(r"512-bit vectors: Some\(([0-9.]+)\) against Some\(([0-9.]+)\) at the default width: not taken", text)
    if m:
        a, b = float(m.group(1)), float(m.group(2))
        print(f"{name:18s} @{d['function']}: 512-bit vectors not taken: {a:.2f}x against {b:.2f}x at the default width ({a / b:.3f})")
    elif d["schedule"]:
        print(f"{name:18s} @{d['function']}: 512-bit vectors not measured ({d['measured']}x; {d.get('kept') or 'no line in the log'})")
    else:
        print(f"{name:18s} @{d['function']}: kept the original ({d.get('kept')})")
PY
done
