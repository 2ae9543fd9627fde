#!/usr/bin/env python3
"""Does a packed copy pay for a register tile? Per program, the best measured register tile
(`accumulate` and two unrolls) with a `pack` step over the best without, on the Intel
adaptation data and the AMD chunks of the same classes; by class, then by identity time.

    python3 onnx/runs/intel-tiles-compare/packed.py [INTEL_DATASET]
"""
import glob, gzip, json, math, sys

INTEL = sys.argv[1] if len(sys.argv) > 1 else "onnx/data/real/adapt-intel-tiles/dataset.jsonl.gz"
INCOMING = "onnx/data/real/incoming"
CLASSES = {"contraction": "contraction", "matmul_chain": "matmul_chain", "linear": "linear_tiles",
           "dnn_convolution": "dnn_convolution"}


def rows(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as fh:
        for line in fh:
            yield json.loads(line)


def programs(paths, only_class=None):
    out = {}
    for path in paths:
        for r in rows(path):
            s = r.get("schedule")
            if s is None or "speedup" not in r or r.get("censored"):
                continue
            if only_class and r.get("class") != only_class:
                continue
            p = out.setdefault(r["program_id"], {True: [], False: [], "t": r["identity_time_s"]})
            if "accumulate(" in s and s.count("unroll(") >= 2:
                p["pack(" in s].append(r["speedup"])
    return {k: v for k, v in out.items() if v[True] and v[False]}


def line(label, progs):
    v = sorted(math.log(max(p[True]) / max(p[False])) for p in progs.values())
    if not v:
        return f"{label}: no program with both"
    q = lambda x: math.exp(v[int(x * (len(v) - 1))])
    return (f"{label}: {len(v)} programs; best packed / best unpacked: median {q(.5):.2f}, "
            f"10th-90th percentile {q(.1):.2f}-{q(.9):.2f}; packed wins on {sum(x > 0 for x in v) / len(v):.0%}")


amd_all, intel_all = {}, {}
for cls, chunk in CLASSES.items():
    intel = programs([INTEL], cls)
    amd = programs(glob.glob(f"{INCOMING}/{chunk}-*.jsonl.gz"))
    intel_all.update(intel)
    amd_all.update(amd)
    print(line(f"Intel {cls}", intel))
    print(line(f"AMD   {chunk}", amd))
for name, progs in (("Intel", intel_all), ("AMD", amd_all)):
    for lo, hi, label in ((0, 0.01, "<10 ms"), (0.01, 0.1, "10-100 ms"), (0.1, 1, "0.1-1 s"), (1, 1e9, ">1 s")):
        print(line(f"{name} identity {label}", {k: p for k, p in progs.items() if lo <= p["t"] < hi}))
