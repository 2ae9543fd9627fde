#!/usr/bin/env python3
"""The analytic tile-size model against an exhaustive tile-size search.

For each benchmark contraction, one schedule template (the steps before the tiling, the band
to tile, the steps after it) is measured at every point of a grid of tile sizes (per loop,
the search's size classes 16..256 fitted to the trip count) and at the sizes the model
(`autosched tile-sizes`, src/schedule/tile_sizes.rs) chooses for this machine, all as
variants of ONE run of the measuring driver (interleaved, outputs checked against the
original). The grid's fastest variant is the exhaustive optimum; the figure is the model's
time over it. Writes benchmarks/results/tile-sizes.json and benchmarks/TILE-SIZES.md.

Needs a quiet machine (stop the data generator first):
    .venv/bin/python benchmarks/tile-sizes.py [--reps 5] [--only gemm,...]
"""
import argparse
import itertools
import json
import pathlib
import platform
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
AUTOSCHED = ROOT / "build/cargo/release/autosched"
CLASSES = [16, 32, 64, 128, 256]
MAX_VARIANTS = 80  # a 3-loop band drops the class 16 when the grid would exceed this

# name, file, steps before the tiling, the band (outermost first), steps after it (with
# {t0} standing for the first band loop's tile loop).
KERNELS = [
    ("gemm", "polybench/gemm.mlir", "distribute(L0)", ["L0.d1", "L0.1", "L0.1.0"], "parallelize({t0})"),
    ("2mm", "polybench/2mm.mlir", "distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1)",
     ["L0.d1", "L0.0.0", "L0.0.d1"], "parallelize({t0})"),
    ("batched-matmul", "polybench/batched-matmul.mlir", "interchange(L1.0.0.0, L1.0.0)", ["L1.0", "L1.0.0.0", "L1.0.0"],
     "parallelize(L1)"),
    ("conv2d", "polybench/conv2d.mlir", "", ["L1.0", "L1.0.0", "L1.0.0.0"], "parallelize(L1)"),
    ("pointwise-conv", "dnn/pointwise-conv.mlir", "", ["L1", "L1.0", "L1.0.0"], "parallelize({t0})"),
    ("dense", "dnn/dense.mlir", "distribute(L0.0); distribute(L0)", ["L0.d1", "L0.0.d1", "L0.0.0"], "parallelize({t0})"),
    # The same with the accumulator of its innermost reduction in a register (see NOTES).
    ("dense+accumulate", "dnn/dense.mlir", "distribute(L0.0); distribute(L0)", ["L0.d1", "L0.0.d1", "L0.0.0"],
     "accumulate(L0.0.0); parallelize({t0})"),
]

# What the table alone does not say (written under it).
NOTES = [
    "Notes:",
    "",
    "- This table is the 2026-11-29 sweep on the 2-core AMD EPYC host of the Zen 5 family (L2 "
    "1 MiB per core, L3 32 MiB; 10 minutes, nothing else running). The sweep before it, on an "
    "earlier AMD EPYC host, had 5 of 7 within 5% (gemm 1.000, batched-matmul 1.026); here gemm "
    "(0.946, rank 10 of 65) and batched-matmul (0.926, rank 7; a 5 ms kernel with 4.8% spread at "
    "its optimum) fall just below, with the same sizes chosen: the optimum moved, the model's "
    "choice did not (it reads the caches, and these hosts' differ little). Dense is the model's "
    "real miss on both hosts (below).",
    "- The balance term came after the first sweep, where the model left two tiles of unequal "
    "size on the parallel loop (256 as 192 + 64, 64 as 48 + 16): pointwise-conv ran at 0.657 of "
    "its optimum and dense at 0.389; gemm, 2mm, batched-matmul and conv2d were within 5% then too.",
    "- The model counts the lines one tile brings into L2 and, on the band's outermost loop "
    "(the one run in parallel), how evenly the tiles share among the cores. It does not count "
    "what the loops inside a tile reload from L2 into L1. In `dense` that decides: the grid's "
    "time grows with the reduction tile (the third size: 16-32, 64, 128, 256 run about 28, "
    "35, 43, 49 ms), with the accumulator in memory or in a register alike (`dense+accumulate`), "
    "because only a small weights box (outputs x reduction) stays in L1 across the batch rows. "
    "A second level in the model (lines reloaded from L2 at a quarter of a line's cost beyond "
    "it) picked [32, 50, 64] for `dense` but [500, 48, 55] for `gemm`, whose grid runs 2x "
    "slower when its innermost, vectorized loop is that short (j = 55: 105-109 ms against "
    "52 ms at 275; LLVM's interleaved vector body leaves a long scalar remainder): a model "
    "that wins both needs the vector loop's remainder as well, and was not kept. Adding that "
    "(inner sizes below LLVM's main vector body, 4 x 16 f32 on this AVX-512 machine, left out) "
    "made gemm pick [500, 48, 64], which ran 81.6 ms against the optimum's 48.6 (0.596, one "
    "sweep of 5 runs): the L1 term as formulated is wrong for gemm, and neither was kept.",
]


def fitted(trips: int, size: int) -> int:
    """The search's fitting (src/schedule/kinds/tile.rs, fitted_size)."""
    if trips <= 0 or trips % size == 0:
        return size
    lo, hi = (3 * size + 3) // 4, 3 * size // 2
    divisors = [d for d in range(max(lo, 2), min(hi, trips - 1) + 1) if trips % d == 0]
    if not divisors:
        return size
    import math
    return min(divisors, key=lambda d: (d % 8 != 0, abs(math.log(d / size))))


def trip_counts(path: pathlib.Path, names: list[str], prefix: str) -> list[int]:
    """Trip counts of the band's loops (by their original names: the steps before the
    tiling rename only distributed loops, whose base names are the originals')."""
    out = subprocess.run([AUTOSCHED, "describe", path], check=True, capture_output=True, text=True).stdout
    desc = json.loads(out)
    fn = desc[0] if isinstance(desc, list) else desc
    loops = {l["name"]: l.get("trip_count") for l in fn.get("program", fn)["loops"]}
    counts = []
    for n in names:
        base = n
        while base not in loops:
            parts = base.split(".")
            # L0.d1 -> L0, L0.0.d1 -> L0.0 (a distributed loop keeps its original's trips).
            base = ".".join(p for p in parts if not p.startswith("d"))
            if base == n:
                raise SystemExit(f"{path}: no loop {n}")
        counts.append(loops[base])
    return counts


def schedule(prefix: str, band: list[str], sizes: list[int], suffix: str) -> str:
    tile = "tile(" + ", ".join(f"{l}:{s}" for l, s in zip(band, sizes)) + ")"
    steps = [s for s in [prefix, tile, suffix.format(t0=band[0] + ".t")] if s]
    return "; ".join(steps)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--report-only", action="store_true", help="rewrite TILE-SIZES.md from the results, measuring nothing")
    args = ap.parse_args()
    if args.report_only:
        doc = json.loads((ROOT / "benchmarks/results/tile-sizes.json").read_text())
        write_report(doc["machine"], doc["results"])
        return 0
    only = set(filter(None, args.only.split(",")))
    results = []
    for name, rel, prefix, band, suffix in KERNELS:
        if only and name not in only:
            continue
        path = ROOT / "benchmarks" / rel
        trips = trip_counts(path, band, prefix)
        def grid_of(classes):
            return [sorted({fitted(t, c) for c in classes if fitted(t, c) < t}) for t in trips]
        grid = grid_of(CLASSES)
        if len(band) == 3 and len(list(itertools.product(*grid))) > MAX_VARIANTS:
            grid = [g or f for g, f in zip(grid_of(CLASSES[1:]), grid)]
        model = json.loads(subprocess.run([AUTOSCHED, "tile-sizes", path, "--band", ",".join(band), "-s", prefix],
                                          check=True, capture_output=True, text=True).stdout.splitlines()[0])
        points = [list(p) for p in itertools.product(*grid)]
        model_sizes = model["choice"]["sizes"]
        with tempfile.TemporaryDirectory() as tmp:
            variants, labels = [], {}
            for i, sizes in enumerate(points + [model_sizes]):
                label = "model" if i == len(points) else "g" + "x".join(map(str, sizes))
                if label in labels:
                    continue
                s = schedule(prefix, band, sizes, suffix)
                out = pathlib.Path(tmp) / f"{label}.mlir"
                r = subprocess.run([AUTOSCHED, "apply", path, "--schedule", s, "-o", out], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"{name}: {s}: refused: {r.stderr.strip()}", file=sys.stderr)
                    continue
                labels[label] = (sizes, s)
                variants += ["--variant", f"{label}={out}"]
            report = pathlib.Path(tmp) / "run.json"
            print(f"{name}: {len(labels)} variants, trips {trips}, model {model_sizes}", file=sys.stderr)
            subprocess.run([AUTOSCHED, "run", path, "--reps", str(args.reps), "--warmup", "1", "--timeout", "3000",
                            "--json", report] + variants,
                           check=True, stdout=subprocess.DEVNULL)
            run = json.loads(report.read_text())
        timed = {v["label"]: v for v in run["variants"]}
        bad = [l for l, v in timed.items() if not v["equivalent"]]
        if bad:
            raise SystemExit(f"{name}: outputs differ: {bad}")
        grid_labels = [l for l in labels if l != "model"]
        best = min(grid_labels, key=lambda l: timed[l]["median"])
        m = timed["model"]
        results.append({
            "kernel": name, "file": rel, "band": band, "trips": trips, "template": schedule(prefix, band, ["S"] * len(band), suffix),
            "grid_points": len(grid_labels), "reps": args.reps,
            "original_ms": timed["original"]["median"] * 1e3,
            "best": {"sizes": labels[best][0], "ms": timed[best]["median"] * 1e3, "mad": timed[best]["relative_mad"]},
            "model": {"sizes": model_sizes, "ms": m["median"] * 1e3, "mad": m["relative_mad"],
                      "footprint_bytes": model["choice"]["footprint_bytes"], "budget_bytes": model["choice"]["budget_bytes"]},
            "model_over_best": timed[best]["median"] / m["median"],
            "model_rank": 1 + sum(timed[l]["median"] < m["median"] for l in grid_labels),
            "all_ms": {l: timed[l]["median"] * 1e3 for l in grid_labels},
        })
        print(f"{name}: best {labels[best][0]} {timed[best]['median']*1e3:.2f} ms, model {model_sizes} "
              f"{m['median']*1e3:.2f} ms: {results[-1]['model_over_best']:.3f} of the optimum", file=sys.stderr)
    out_dir = ROOT / "benchmarks/results"
    out_dir.mkdir(exist_ok=True)
    # A run of some kernels (--only) keeps the others' earlier results.
    previous = out_dir / "tile-sizes.json"
    if only and previous.exists():
        kept = [r for r in json.loads(previous.read_text())["results"] if r["kernel"] not in only]
        order = [k[0] for k in KERNELS]
        results = sorted(kept + results, key=lambda r: order.index(r["kernel"]) if r["kernel"] in order else len(order))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    doc = {"machine": cpu, "results": results}
    (out_dir / "tile-sizes.json").write_text(json.dumps(doc, indent=1) + "\n")
    write_report(cpu, results)
    return 0


def write_report(cpu: str, results: list) -> None:
    reps = sorted({r["reps"] for r in results})
    common = max(reps, key=lambda n: sum(r["reps"] == n for r in results))
    others = [f"{r['reps']} for {r['kernel']}" for r in results if r["reps"] != common]
    runs = f"{common} timed runs" + (f" ({', '.join(others)})" if others else "")
    lines = [
        "# Tile sizes: the analytic model against an exhaustive search",
        "",
        "Reproduce: `.venv/bin/python benchmarks/tile-sizes.py` (quiet machine; about 10 minutes). "
        f"Machine: {cpu}. Each kernel is one run of the measuring driver: every grid point and the "
        f"model's choice interleaved, {runs} each after a warm-up, medians; outputs "
        "checked against the original (bitwise). The grid: per loop, the search's size classes "
        "16..256 fitted to the trip count (16 dropped for 3-loop bands of more than "
        f"{MAX_VARIANTS} points). The model: `autosched tile-sizes` (src/schedule/tile_sizes.rs), "
        "no measurement. Target (issue 17): the model within 5% of the optimum (ratio >= 0.95).",
        "",
        "| kernel | template (S: the sizes) | grid | optimum (sizes, ms, MAD) | model (sizes, ms, MAD) | optimum / model | model's rank |",
        "| --- | --- | ---: | --- | --- | ---: | ---: |",
    ]
    for r in results:
        b, m = r["best"], r["model"]
        lines.append(
            f"| {r['kernel']} | `{r['template']}` | {r['grid_points']} | {b['sizes']}, {b['ms']:.2f}, {100*b['mad']:.1f}% | "
            f"{m['sizes']}, {m['ms']:.2f}, {100*m['mad']:.1f}% | {r['model_over_best']:.3f} | {r['model_rank']} |")
    within = sum(r["model_over_best"] >= 0.95 for r in results)
    lines += ["", f"The model is within 5% of the optimum on {within} of {len(results)} kernels.", ""] + NOTES
    (ROOT / "benchmarks/TILE-SIZES.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
