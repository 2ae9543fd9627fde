#!/usr/bin/env python3
"""Where model mode and hybrid chose differently in `compare-benchmarks.json` (this directory),
the shipped model's predicted speedup of both schedules (`autosched predict`) beside their
measured ones: is model mode's gap a near tie in the model's eyes, or a misranking?

    .venv/bin/python onnx/runs/intel-tiles-compare/near-ties.py > onnx/runs/intel-tiles-compare/near-ties.txt
"""
import glob
import json
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[3]
HERE = pathlib.Path(__file__).resolve().parent
files = {pathlib.Path(f).stem: f for f in glob.glob(str(ROOT / "benchmarks/polybench/*.mlir")) + glob.glob(str(ROOT / "benchmarks/dnn/*.mlir"))}


def predicted(kernel: str, schedule: str) -> float:
    out = subprocess.run([str(ROOT / "build/cargo/release/autosched"), "predict", files[kernel], "-s", schedule],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"predicted speedup ([0-9.]+)x", out).group(1))


doc = json.loads((HERE / "compare-benchmarks.json").read_text())
for r in doc["rows"]:
    if "hybrid" not in r:
        continue
    k, a, h = r["kernel"], r["a"]["schedule"], r["hybrid"]["schedule"]
    ma, mh = r["speedup"]["a"], r["speedup"]["hybrid"]
    if a == h:
        print(f"{k:16s} the same schedule (measured {ma:.2f}x and {mh:.2f}x)")
        continue
    pa, ph = predicted(k, a), predicted(k, h)
    print(f"{k:16s} model's pick: predicted {pa:.2f}x, measured {ma:.2f}x | hybrid's: predicted {ph:.2f}x, "
          f"measured {mh:.2f}x | of hybrid {ma / mh:.2f}; the model puts hybrid's at {ph / pa:.2f} of its own")
