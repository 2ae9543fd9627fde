#!/usr/bin/env python3
"""Two cost models end to end: model mode's decision with each on every benchmark kernel, and,
where they decide differently, both decisions timed in one run (interleaved with the original,
outputs checked). A model is shipped on what it does to the benchmarks, not only on held-out
ranking figures (onnx/REPORT.md): this is the cheap form of that run, since a kernel on which
the two models agree runs the same code and needs no timing.

    .venv/bin/python benchmarks/compare-models.py --b build/cand/model.onnx
    .venv/bin/python benchmarks/compare-models.py --b build/cand/model.onnx --suite selection
    .venv/bin/python benchmarks/compare-models.py --b onnx/model.onnx@beam-width=32 --suite selection
    .venv/bin/python benchmarks/compare-models.py --a onnx/model.onnx --b M.onnx --kernels doitgen,dense \
        --json build/compare.json

Prints one line per kernel and a summary: on the kernels that differ, the geometric mean of
B's time over A's (below 1: B is faster), and the kernels where either is slower than the
original. Several candidates (`--b M1 M2`) are labelled b1, b2, ... and timed in the same run
as A (and hybrid), so their ratios are taken in one run too. Repetitions as the harness does
them: --reps, and for a kernel whose fastest variant runs under 5 ms a second run with enough
to fill about 0.3 s per variant (its figures count). --hybrid KERNELS also runs
`evaluator=hybrid` (with model A) on those kernels and adds it to the same timing run: model
mode's fraction of hybrid per kernel and in geometric mean.
"""

import argparse
import importlib.util
import json
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELECTION = ROOT / "benchmarks" / "selection"
spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def candidate(spec) -> tuple[Path, str]:
    """A model and the pass options it runs with: `MODEL` or `MODEL@key=value,key=value`
    (`onnx/model.onnx@beam-width=32`: the same model with a wider search)."""
    model, _, options = str(spec).partition("@")
    return Path(model), " ".join(o for o in options.split(",") if o)


def decide(kernel: Path, spec, evaluator: str, out: Path) -> dict:
    model, options = candidate(spec)
    info = bench.ours(kernel, evaluator, out, f"model={model}" + (f" {options}" if options else ""))
    if not info["ok"]:
        raise SystemExit(f"{kernel.stem}: the pass failed with {spec}: {info['error'][-800:]}")
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", default=str(ROOT / "onnx" / "model.onnx"),
                    help="the reference model (the shipped one); MODEL@key=value,... adds pass options")
    ap.add_argument("--b", required=True, nargs="+",
                    help="the candidate model(s); several are labelled b1, b2, ... and timed in the same run; "
                         "MODEL@key=value,... runs one with pass options (MODEL@beam-width=32)")
    ap.add_argument("--suite", choices=["benchmarks", "selection"], default="benchmarks",
                    help="benchmarks: the 31 kernels of benchmarks/RESULTS.md; selection: the model-selection "
                         "kernels of benchmarks/selection/ (never reported, never tuned on: a model chosen on the "
                         "31 is chosen on the figures it is then reported by)")
    ap.add_argument("--kernels", help="comma-separated kernel names (default: all of the suite)")
    ap.add_argument("--hybrid", default="", help="comma-separated kernels on which hybrid (model A) is also timed")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every decision and timing here")
    args = ap.parse_args(argv)
    for tool in [bench.AUTOSCHED, bench.PLUGIN, *(candidate(m)[0] for m in [args.a, *args.b])]:
        if not Path(tool).exists():
            raise SystemExit(f"{tool} is missing")
    dirs = [SELECTION] if args.suite == "selection" else bench.KERNEL_DIRS
    names = args.kernels.split(",") if args.kernels else bench.all_kernels(dirs)
    if args.suite == "selection":
        missing = sorted(set(names) - set(bench.all_kernels(dirs)))
        if missing:
            raise SystemExit(f"no selection kernel named {', '.join(missing)} in {SELECTION}")
    hybrid = {k for k in args.hybrid.split(",") if k}
    labels = ["b"] if len(args.b) == 1 else [f"b{i + 1}" for i in range(len(args.b))]
    rows = []
    for name in names:
        kernel = bench.kernel_path(name, dirs)
        work = Path(tempfile.mkdtemp(prefix=f"autosched-compare-{name}-"))
        a = decide(kernel, args.a, "model", work / "a.mlir")
        row = {"kernel": name, "a": {k: a[k] for k in ("schedule", "predicted", "scored", "search_seconds")}}
        # Each decision that differs from A's (and from an earlier candidate's) is timed once.
        timed = {a["schedule"]: "a"}
        variants, same_as = [], {}
        for label, model in zip(labels, args.b):
            b = decide(kernel, model, "model", work / f"{label}.mlir")
            row[label] = {k: b[k] for k in ("schedule", "predicted", "scored", "search_seconds")}
            if b["schedule"] in timed:
                same_as[label] = timed[b["schedule"]]
            else:
                timed[b["schedule"]] = label
                variants.append((label, work / f"{label}.mlir"))
        if variants:
            variants.insert(0, ("a", work / "a.mlir"))
        if name in hybrid:
            h = decide(kernel, args.a, "hybrid", work / "hybrid.mlir")
            row["hybrid"] = {k: h[k] for k in ("schedule", "predicted", "measured", "search_seconds")}
            if not variants:
                variants.append(("a", work / "a.mlir"))
            variants.append(("hybrid", work / "hybrid.mlir"))
        if variants:
            try:
                # The harness's rule: a kernel of a few milliseconds is timed again with enough
                # repetitions to fill ~0.3 s per variant (maxpool's model decision ran 1.84x, then
                # 0.67x twenty minutes later, at 5 repetitions each).
                timing, _ = bench.time_filled(kernel, bench.function_of(kernel), variants, args.reps, args.warmup,
                                              args.threads, work)
            except RuntimeError as e:
                raise SystemExit(str(e))
            rows_t = {v["label"]: v for v in timing["variants"]}
            original = rows_t["original"]["median"]
            row["original_s"] = original
            row["reps"] = timing["reps"]
            for label, _ in variants:
                v = rows_t[label]
                if not v["equivalent"]:
                    raise SystemExit(f"{name}: variant {label} computes something else: {v['detail']}")
                row.setdefault("speedup", {})[label] = original / v["median"]
                row.setdefault("mad", {})[label] = v["relative_mad"]
            for label, other in same_as.items():
                row["speedup"][label] = row["speedup"][other]
        rows.append(row)
        sp = row.get("speedup", {})
        differs = [lb for lb in labels if row[lb]["schedule"] != a["schedule"]]
        line = f"{name:18} {'DIFFERENT: ' + ','.join(differs) if differs else 'same'}"
        if sp:
            line += "  " + "  ".join(f"{k} {v:.2f}x (MAD {100 * row['mad'].get(k, 0):.1f}%)" for k, v in sp.items())
        print(line, flush=True)
        if differs:
            for lb in ["a"] + differs:
                print(f"{'':18}   {lb}: {row[lb]['schedule'] or '(kept)'}", flush=True)
    summary = {}
    for label in labels:
        differ = [r for r in rows if r["a"]["schedule"] != r[label]["schedule"]]
        name = label.upper() if label == "b" else label
        if differ:
            ratio = math.exp(sum(math.log(r["speedup"]["a"] / r["speedup"][label]) for r in differ) / len(differ))
            print(f"\n{name}: {len(differ)} of {len(rows)} kernels decided differently; geometric mean of its time over "
                  f"A's there: {ratio:.3f} (below 1: faster than A)")
        else:
            ratio = None
            print(f"\n{name}: all {len(rows)} kernels decided as A")
        summary[label] = {"differ": len(differ), "time_over_a": ratio}
    with_hybrid = [r for r in rows if "hybrid" in r.get("speedup", {})]
    for r in with_hybrid:
        print(f"{r['kernel']}: of hybrid, model A {r['speedup']['a'] / r['speedup']['hybrid']:.3f}"
              + "".join(f", {lb} {r['speedup'][lb] / r['speedup']['hybrid']:.3f}" for lb in labels))
    if with_hybrid:
        for lb in ["a"] + labels:
            g = math.exp(sum(math.log(r["speedup"][lb] / r["speedup"]["hybrid"]) for r in with_hybrid) / len(with_hybrid))
            print(f"model {lb}: {g:.3f} of hybrid in geometric mean over {len(with_hybrid)} kernels")
            summary.setdefault(lb, {})["of_hybrid"] = g
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"a": str(args.a), "b": [str(m) for m in args.b], "labels": labels,
                                         "suite": args.suite, "machine": bench.machine(),
                                         "code": bench.code_version(), "reps": args.reps, "summary": summary,
                                         "rows": rows}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
