#!/usr/bin/env python3
"""The benchmark harness: every kernel of benchmarks/polybench/ (PolyBench and two classics)
and benchmarks/dnn/ (DNN layers at common shapes), side by side.

For each kernel, in ONE run of the measuring driver (variants interleaved, medians over
--reps repetitions after --warmup, every output checked against the naive version):

  naive        the affine MLIR lowered as is (the reference)
  mlir-affine  MLIR's own affine passes (fusion, LICM, tiling, super-vectorization,
               parallelization with OpenMP, scalar replacement): the best correct of three
               pipelines, see MLIR_PIPELINES
  clang        the C version, clang-22 -O3 -march=native
  polly        the C version, clang-22 -O3 -march=native -mllvm -polly -mllvm -polly-parallel
  model        our pass, affine-autosched{evaluator=model}
  hybrid       our pass, affine-autosched{evaluator=hybrid}
  execution    our pass, affine-autosched{evaluator=execution}
  blas         for the contractions: the same kernel through OpenBLAS (<kernel>.blas.c, cblas
               calls, Debian's libopenblas), the ceiling a library reaches; not a baseline

Parallel code runs with OMP_NUM_THREADS=--threads. Results are cached per kernel in
benchmarks/results/<kernel>.json (delete one, or pass --force, to measure it again), and
benchmarks/RESULTS.md and benchmarks/results.png are written from the cache (of every kernel,
also after a run of some: --kernels measures those and reports them beside the others).

    .venv/bin/python benchmarks/run.py               # everything (about an hour on 2 cores)
    .venv/bin/python benchmarks/run.py --quick       # the CI smoke subset, into a temp dir
    .venv/bin/python benchmarks/run.py --kernels gemm,atax --evaluators model,hybrid
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# PolyBench (and two classics), then DNN layers at common shapes: kernels are looked up by
# name in these directories, in this order.
KERNEL_DIRS = [ROOT / "benchmarks" / "polybench", ROOT / "benchmarks" / "dnn"]


def kernel_path(name: str, dirs=KERNEL_DIRS) -> Path:
    for d in dirs:
        if (d / f"{name}.mlir").exists():
            return d / f"{name}.mlir"
    raise SystemExit(f"no kernel named {name} in {', '.join(str(d) for d in dirs)}")


def all_kernels(dirs=KERNEL_DIRS) -> list:
    return sorted(p.stem for d in dirs for p in d.glob("*.mlir"))
AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
PLUGIN = ROOT / "build" / "lib" / "libAffineAutosched.so"
MLIR_OPT = "mlir-opt-22"
CLANG = "clang-22"

# MLIR's own passes; the baseline is the fastest correct one per kernel. Vectorization runs
# before parallelization (the super-vectorizer only handles affine.for) and one level of
# parallel loops is kept (nested OpenMP regions only cost).
_COMMON_HEAD = "affine-loop-fusion,affine-loop-invariant-code-motion"
_COMMON_TAIL = "affine-parallelize{max-nested=1},affine-scalrep,canonicalize"
MLIR_PIPELINES = {
    "tile32": f"{_COMMON_HEAD},affine-loop-tile{{tile-size=32}},{_COMMON_TAIL}",
    "tile32-vec16": f"{_COMMON_HEAD},affine-loop-tile{{tile-size=32}},"
    f"affine-super-vectorize{{virtual-vector-size=16}},{_COMMON_TAIL}",
    "parallel": f"{_COMMON_HEAD},{_COMMON_TAIL}",
}
CLANG_FLAGS = ["-O3", "-march=native", "-fopenmp", "-fPIC", "-shared"]
POLLY_FLAGS = CLANG_FLAGS + ["-mllvm", "-polly", "-mllvm", "-polly-parallel"]
LIBS = ["-lm"]
BLAS_LIBS = ["-lopenblas"]
# Nominal floating-point operations of the kernels that have a BLAS version (2 per
# multiply-add of each matrix product; scalings and bias additions not counted), for GFLOP/s.
BLAS_FLOPS = {
    "gemm": 2 * 1000 * 1100 * 1200,
    "2mm": 2 * 800 * 900 * 1100 + 2 * 800 * 1200 * 900,
    "3mm": 2 * 800 * 900 * 1000 + 2 * 900 * 1100 * 1200 + 2 * 800 * 1100 * 900,
    "syrk": 2 * (1200 * 1201 // 2) * 1000,
    "syr2k": 4 * (1200 * 1201 // 2) * 1000,
    "trmm": 2 * 1200 * (999 * 1000 // 2),
    "batched-matmul": 16 * 2 * 256 ** 3,
    "doitgen": 2 * 150 * 140 * 160 * 160,
    "dense": 2 * 64 * 1000 * 2048,
    "attention-scores": 8 * 2 * 256 * 256 * 64,
    "pointwise-conv": 2 * 256 * 56 * 56 * 64,
}


def measuring_env(threads) -> dict:
    """OpenBLAS's threads: as many as OpenMP's; their idle spinning cut to the shortest
    (OPENBLAS_THREAD_TIMEOUT=4), so that they leave the cores to the variant timed next in
    the same driver."""
    return {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OPENBLAS_THREAD_TIMEOUT": "4"}
# OpenBLAS's kernels for a CPU it does not know (DYNAMIC_ARCH's fallbacks): no ceiling on a
# current x86 core; OPENBLAS_CORETYPE names the right ones (Debian's 0.3.21 fell back to Prescott
# on an Intel Xeon of cpu model 207, where SkylakeX's ran 4.6x faster).
BLAS_FALLBACK_CORES = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Katmai", "Coppermine",
                       "Northwood", "Banias"}


def blas_core() -> str | None:
    """The OpenBLAS kernels the BLAS variant runs (`openblas_get_corename` under the measuring
    environment: OPENBLAS_CORETYPE is read when the library loads), or None without the library."""
    probe = "import ctypes; l = ctypes.CDLL('libopenblas.so.0'); l.openblas_get_corename.restype = ctypes.c_char_p; " \
            "print(l.openblas_get_corename().decode())"
    try:
        p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=30,
                           env=measuring_env(1))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None


EVALUATORS = ["model", "hybrid", "execution"]
# On the contractions (the kernels with a BLAS column) hybrid also runs with the pass's code
# generation options: fp-contract=true, the multiply-add fusion clang's C (the clang, Polly and
# BLAS-wrapper columns) gets by default, and on AVX-512 hosts prefer-vector-width=512, the
# vector width OpenBLAS uses there. Reported in the BLAS section only, beside plain hybrid.
CODEGEN_VARIANT = "hybrid-fma"


def codegen_options() -> str:
    try:
        avx512 = " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        avx512 = False
    return "fp-contract=true" + (" prefer-vector-width=512" if avx512 else "")
SHORT_KERNEL_SECONDS = 0.005
# The CI smoke subset: small kernels, one repetition.
QUICK = ["atax", "gesummv", "mvt"]
BASELINES = ["mlir-affine", "clang", "polly"]
# Roughly by naive run time (benchmarks/polybench headers).
ORDER = ["jacobi-1d", "atax", "gesummv", "mvt", "gemver", "bicg", "gemm", "jacobi-2d", "fdtd-2d", "batched-matmul",
         "conv2d", "doitgen", "heat-3d", "syrk", "trmm", "seidel-2d", "correlation", "covariance", "2mm", "syr2k", "3mm"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    """Runs a command; returns (returncode, stdout, stderr)."""
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    return p.returncode, p.stdout, p.stderr


def function_of(mlir: Path) -> str:
    m = re.search(r"func\.func @([A-Za-z_][\w$.]*)", mlir.read_text())
    if not m:
        raise SystemExit(f"{mlir}: no func.func")
    return m.group(1)


def ours(kernel: Path, evaluator: str, out: Path, options: str) -> dict:
    """Runs our pass with `evaluator`; returns its decision as the pass reports it
    (report=PATH, schema src/report.schema.json) and the wall time."""
    report = out.with_suffix(".report.jsonl")
    opts = f"evaluator={evaluator} report={report}" + (f" {options}" if options else "")
    started = time.time()
    rc, _, err = run([MLIR_OPT, f"--load-pass-plugin={PLUGIN}", "--mlir-print-op-on-diagnostic=false",
                      f"--pass-pipeline=builtin.module(func.func(affine-autosched{{{opts}}}))", kernel, "-o", out])
    wall = time.time() - started
    if rc != 0:
        return {"ok": False, "error": err.strip()[-2000:], "wall_seconds": wall}
    decisions = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    if len(decisions) != 1:
        return {"ok": False, "error": f"expected one decision in {report}, found {len(decisions)}", "wall_seconds": wall}
    d = decisions[0]
    remark = next((l for l in err.splitlines() if "remark: affine-autosched: @" in l), "")
    predicted = d.get("predicted") or {}
    return {"ok": True, "remark": remark.split("remark: ", 1)[-1], "wall_seconds": wall,
            "warnings": d["warnings"], "notes": d.get("notes") or [],
            "schedule": d["schedule"] if d["applied"] else "",
            "predicted": predicted.get("speedup"), "measured": d.get("measured"),
            "scored": d["scored"], "measurements": d["measurements"] or None,
            "search_seconds": d["search_seconds"], "measure_seconds": d["measure_seconds"] or None,
            "vector_width": d.get("vector_width")}


def mlir_affine(kernel: Path, work: Path, failures: dict) -> dict:
    out = {}
    for name, pipeline in MLIR_PIPELINES.items():
        path = work / f"mlir-{name}.mlir"
        rc, _, err = run([MLIR_OPT, f"--pass-pipeline=builtin.module(func.func({pipeline}))", kernel, "-o", path])
        out[name] = path if rc == 0 else None
        if rc != 0:
            first = next((l for l in err.splitlines() if "error" in l or "Assertion" in l), "")
            failures[name] = f"mlir-opt-22 failed (exit {rc}{', crashed' if rc < 0 or 'Stack dump' in err else ''}) {first}".strip()
            log(f"  mlir-affine {name}: {failures[name]}")
    return out


def c_library(kernel: Path, function: str, flags, out: Path, work: Path, source: Path = None, libs=()) -> bool:
    wrapper = work / "wrapper.c"
    if not wrapper.exists():
        rc, _, err = run([AUTOSCHED, "c-wrapper", kernel, "--function", function, "-o", wrapper])
        if rc != 0:
            raise SystemExit(f"c-wrapper: {err}")
    source = source or kernel.with_suffix(".c")
    rc, _, err = run([CLANG, *flags, wrapper, source, *LIBS, *libs, "-o", out], timeout=600)
    if rc != 0:
        log(f"  {out.name}: {err.strip()[:300]}")
    return rc == 0


def reused(kernel: Path, cached: dict, path: Path, options: str = ""):
    """The variant of an earlier run's decision: its schedule applied again with the same
    code generation options (the search is not repeated; its recorded remark and times are
    kept)."""
    info = dict(cached)
    if not info.get("ok"):
        return None
    flags = []
    for opt in options.split():
        key, value = opt.split("=", 1)
        flags += {"fp-contract": ["--fp-contract"] if value == "true" else [],
                  "prefer-vector-width": ["--prefer-vector-width", value]}[key]
    # A vector width the search measured and took (hybrid, execution: the report's
    # `vector_width`) is part of its decision: re-applied with the schedule.
    width = info.get("vector_width")
    if width and "prefer-vector-width" not in options:
        flags += ["--prefer-vector-width", str(width["bits"])]
    if info.get("schedule") or flags:
        rc, _, err = run([AUTOSCHED, "apply", kernel, "--schedule", info.get("schedule") or "", *flags, "-o", path])
        if rc != 0:
            raise RuntimeError(f"{kernel.stem}: cannot re-apply '{info.get('schedule')}' {options}: {err}")
    else:
        shutil.copy(kernel, path)
    info["reused"] = True
    return info


# Runs of model mode whose median wall time is the kernel's model search time.
MODEL_TIMINGS = 3


def time_variants(kernel: Path, function: str, variants, reps, warmup, threads, work: Path):
    """One run of the measuring driver: the original and every (label, path) variant
    interleaved, outputs checked against the original. Returns its JSON and stdout."""
    cmd = [AUTOSCHED, "run", kernel, "--function", function, "--reps", reps, "--warmup", warmup,
           "--threads", threads, "--timeout", "1800", "--normalized-tolerance", "1e-3", "--json", work / "timing.json"]
    for label, path in variants:
        cmd += ["--variant", f"{label}={path}"]
    (work / "timing.json").unlink(missing_ok=True)
    rc, out, err = run(cmd, env=measuring_env(threads))
    if not (work / "timing.json").exists():
        raise RuntimeError(f"{kernel.stem}: measuring failed (rc {rc}): {err.strip()[-1500:]}")
    return json.loads((work / "timing.json").read_text()), out


def time_filled(kernel: Path, function: str, variants, reps, warmup, threads, work: Path, log=lambda _: None,
                fill=True):
    """time_variants, and (with `fill`) for a kernel of a few milliseconds (its fastest variant
    under SHORT_KERNEL_SECONDS) a second run with enough repetitions to fill ~0.3 s per variant,
    so that timer and scheduling noise average out; that run's figures are the ones returned."""
    log(f"  measuring {len(variants) + 1} variants, {reps} repetitions")
    timing, out = time_variants(kernel, function, variants, reps, warmup, threads, work)
    fastest = min(v["median"] for v in timing["variants"])
    if fill and 0 < fastest < SHORT_KERNEL_SECONDS:
        more = min(500, max(reps, int(0.3 / fastest)))
        log(f"  measuring {len(variants) + 1} variants again, {more} repetitions (fastest {fastest * 1e3:.2f} ms)")
        timing, out = time_variants(kernel, function, variants, more, warmup, threads, work)
    return timing, out


def measure_kernel(name: str, args, work: Path, previous: dict) -> dict:
    kernel = kernel_path(name)
    function = function_of(kernel)
    result = {"kernel": name, "function": function, "ours": {}, "pipelines": {}}
    variants = []
    runs = [(ev, ev, args.execution_options if ev == "execution" else "") for ev in args.evaluators]
    if "hybrid" in args.evaluators and name in BLAS_FLOPS and not args.quick:
        runs.append((CODEGEN_VARIANT, "hybrid", codegen_options()))
    for ev, evaluator, options in runs:
        path = work / f"ours-{ev}.mlir"
        cached = (previous or {}).get("ours", {}).get(ev)
        if ev in args.reuse:
            info = reused(kernel, cached, path, options) if cached else None
            if info:
                log(f"  our pass, evaluator={ev}: reusing the earlier decision")
                result["ours"][ev] = info
                variants.append((ev, path))
            else:
                log(f"  our pass, evaluator={ev}: no earlier decision to reuse: not run")
                result["ours"][ev] = {"ok": False, "skipped": True,
                                      "error": "not searched in this run (--reuse, and no earlier decision)"}
            continue
        log(f"  our pass, evaluator={evaluator} {options}".rstrip())
        info = ours(kernel, evaluator, path, options)
        info["options"] = options
        if ev == "model" and info["ok"]:
            # One wall time on a shared machine can be a spike (correlation took 1.69 s once
            # and 0.94 s in three runs right after): the model's search, seconds at most, is
            # timed as the median of MODEL_TIMINGS runs, all of which must decide the same.
            walls = [info["wall_seconds"]]
            for _ in range(MODEL_TIMINGS - 1):
                again = ours(kernel, ev, work / "ours-model-again.mlir", "")
                if not again["ok"] or again["schedule"] != info["schedule"]:
                    raise SystemExit(f"{name}: model mode decided differently when run again: {again}")
                walls.append(again["wall_seconds"])
            info["wall_seconds_runs"] = walls
            info["wall_seconds"] = statistics.median(walls)
        info["code"] = args.code
        result["ours"][ev] = info
        if info["ok"]:
            variants.append((ev, path))
        else:
            log(f"  evaluator={ev} failed: {info['error'][:500]}")
    for pname, path in mlir_affine(kernel, work, result["pipelines"]).items():
        if path:
            variants.append((f"mlir-{pname}", path))
    for label, flags in [("clang", CLANG_FLAGS), ("polly", POLLY_FLAGS)]:
        lib = work / f"{label}.so"
        if c_library(kernel, function, flags, lib, work):
            variants.append((label, lib))
    blas = kernel.with_suffix(".blas.c")
    if blas.exists() and c_library(kernel, function, CLANG_FLAGS, work / "blas.so", work, blas, BLAS_LIBS):
        variants.append(("blas", work / "blas.so"))
    timing, out = time_filled(kernel, function, variants, args.reps, args.warmup, args.threads, work, log,
                              fill=not args.quick)
    result["timing"] = timing
    result["measure_output"] = out
    result["reps"] = timing["reps"]
    return result


# ----------------------------------------------------------------------------- report

def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summarize(res: dict) -> dict:
    """Per kernel: the median time of each variant (None if wrong or missing), best MLIR pipeline."""
    rows = {v["label"]: v for v in res["timing"]["variants"]}
    t = {}
    for label, v in rows.items():
        t[label] = v["median"] if v["equivalent"] else None
    naive = rows["original"]["median"]
    mlir = {k[5:]: t[k] for k in t if k.startswith("mlir-")}
    good = {k: x for k, x in mlir.items() if x}
    best_pipe = min(good, key=good.get) if good else None
    out = {"naive": naive, "mlir-affine": good.get(best_pipe) if best_pipe else None, "mlir_pipeline": best_pipe,
           "clang": t.get("clang"), "polly": t.get("polly"), "blas": t.get("blas")}
    # A decision that kept the original leaves the IR untouched: its variant is the original,
    # 1.00x by construction. What its copy measured is this run's noise, reported apart.
    out["kept_noise"] = {}
    for ev in EVALUATORS + [CODEGEN_VARIANT]:
        out[ev] = t.get(ev)
        decision = res.get("ours", {}).get(ev) or {}
        if out[ev] and decision.get("ok") and decision.get("schedule") == "":
            out["kept_noise"][ev] = naive / out[ev]
            out[ev] = naive
    out["wrong"] = [v["label"] + ": " + v["detail"] for v in rows.values() if not v["equivalent"]]
    out["spread"] = {label: v["relative_mad"] for label, v in rows.items()}
    return out


def write_report(results: list, args, out_md: Path, out_png: Path):
    lines = []
    lines.append("# Benchmarks: affine-autosched against MLIR's affine passes, clang and Polly\n")
    settings = {json.dumps({k: r.get("settings", {}).get(k) for k in ["machine", "threads", "warmup"]})
                for r in results}
    if len(settings) > 1:
        lines.append(f"**Note: the cached results were measured under different settings: {sorted(settings)}.**\n")
    first = (results[0].get("settings") if results else None) or {}
    lines.append(f"Produced by `.venv/bin/python benchmarks/run.py` on {first.get('machine', args.machine)}, "
                 f"{first.get('threads', args.threads)} OpenMP threads, {args.reps} timed repetitions (more for kernels under "
                 f"{SHORT_KERNEL_SECONDS * 1e3:.0f} ms: enough to fill 0.3 s) after {args.warmup} warm-up per "
                 "variant, all variants of a kernel interleaved in one run of the measuring driver "
                 "(`autosched run --variant ...`); times are medians, speedups are ratios of medians taken in "
                 "that one run. Every variant's outputs are compared with the naive version's on the same seeded "
                 "inputs (within 1e-3 of each buffer's largest value: clang contracts to FMA); a variant that "
                 "disagrees is marked `WRONG` and never counts. Where our pass kept the original (`1.00x=`), its "
                 "output is the original IR: it counts as 1.00x, and what its copy measured in the same run "
                 "(the run's noise) is listed under Spread.\n")
    for ev in EVALUATORS:
        reused = [r["kernel"] for r in results if (r["ours"].get(ev) or {}).get("reused")]
        if reused:
            lines.append(f"The {ev} decisions (schedule, search time) of {len(reused)} kernels ({', '.join(reused)}) "
                         "come from an earlier run of the harness and were re-applied (`--reuse`), not searched "
                         "again; every variant, theirs included, was measured again in the kernel's run.\n")
    searched_by = {}
    for r in results:
        for ev in EVALUATORS:
            info = r["ours"].get(ev) or {}
            if info.get("ok"):
                searched_by.setdefault(info.get("code", "not recorded"), []).append(f"{r['kernel']} ({ev})")
    if len(searched_by) > 1 or any(v.endswith(("-dirty", "-stale")) or v == "not recorded" for v in searched_by):
        lines.append("The decisions were searched by different versions of the pass (commit the plugin was built "
                     "from; results of runs before the harness recorded it: `not recorded`): "
                     + "; ".join(f"`{v}`: {', '.join(ks)}" for v, ks in sorted(searched_by.items())) + ".\n")
    elif searched_by:
        lines.append(f"Every decision was searched by the pass built from commit `{next(iter(searched_by))}`.\n")
    if len(results) > 1:
        lines.append("Each kernel is measured in its own run; kernels may come from different invocations of the "
                     "harness (the cache), so compare ratios within a row rather than times across rows.\n")
    lines.append("Columns: median time of the naive lowering, then each variant's speedup over it; "
                 "`best base` = the fastest correct baseline (mlir-affine, clang, polly); `vs best` = our "
                 "hybrid result against it (>1: we win). Search = our pass's wall time with each evaluator "
                 "(model: search only; hybrid: search + measuring finalists; execution: everything).\n")
    hdr = ("| kernel | naive ms | mlir-affine | clang | polly | model | hybrid | execution | best base | vs best "
           "| search model s | search hybrid s | search exec s |")
    lines.append(hdr)
    lines.append("|" + "|".join(["---"] * (hdr.count("|") - 1)) + "|")
    ratios = {k: [] for k in ["model_polly", "model_mlir", "hybrid_polly", "hybrid_mlir", "exec_polly", "exec_mlir",
                              "model_exec", "hybrid_exec", "model_best", "hybrid_best", "exec_best"]}
    search = {ev: [] for ev in EVALUATORS}
    losses = []
    slow = []  # kernels that model mode makes slower than 0.95x of the original
    for res in results:
        s = summarize(res)
        naive = s["naive"]

        def sp(label):
            x = s.get(label)
            return naive / x if x else None

        def cell(label):
            x = sp(label)
            if x is None:
                wrong = any(w.startswith(label if label != "mlir-affine" else "mlir-") for w in s["wrong"])
                return "WRONG" if wrong else "n/a"
            return f"{x:.2f}x" + ("=" if label in s["kept_noise"] else "")

        base = {b: s[b] for b in BASELINES if s.get(b)}
        best_label = min(base, key=base.get) if base else None
        best_t = base.get(best_label) if best_label else None
        for ev, key in [("model", "model"), ("hybrid", "hybrid"), ("execution", "exec")]:
            if s.get(ev):
                if s.get("polly"):
                    ratios[f"{key}_polly"].append(s["polly"] / s[ev])
                if s.get("mlir-affine"):
                    ratios[f"{key}_mlir"].append(s["mlir-affine"] / s[ev])
                if best_t:
                    ratios[f"{key}_best"].append(best_t / s[ev])
        if s.get("model") and naive / s["model"] < 0.95:
            slow.append(f"{res['kernel']} {naive / s['model']:.2f}x")
        if s.get("execution"):
            if s.get("model"):
                ratios["model_exec"].append(s["execution"] / s["model"])
            if s.get("hybrid"):
                ratios["hybrid_exec"].append(s["execution"] / s["hybrid"])
        ours_t = s.get("hybrid")
        vs = f"{best_t / ours_t:.2f}" if best_t and ours_t else "n/a"
        if best_t and ours_t and best_t < ours_t:
            losses.append((res["kernel"], best_label, best_t / ours_t))
        st = {}
        for ev in EVALUATORS:
            info = res["ours"].get(ev) or {}
            st[ev] = info.get("wall_seconds")
            if st[ev] is not None:
                search[ev].append(st[ev])
        fmt = lambda x: f"{x:.2f}" if x is not None else "n/a"
        lines.append(f"| {res['kernel']} | {naive * 1e3:.1f} | {cell('mlir-affine')} | {cell('clang')} | "
                     f"{cell('polly')} | {cell('model')} | {cell('hybrid')} | {cell('execution')} | "
                     f"{best_label or 'n/a'} | {vs} | {fmt(st['model'])} | {fmt(st['hybrid'])} | "
                     f"{fmt(st['execution'])} |")
    lines.append("")
    lines.extend(blas_section(results))
    lines.append("## Geometric means (ratios of median times; >1 means ours is faster)\n")
    lines.append("Each cell: the geometric mean over the kernels where both sides ran and were correct "
                 "(how many in parentheses).\n")
    lines.append("| ours | vs polly | vs mlir-affine | vs best baseline | vs execution-guided |")
    lines.append("|---|---|---|---|---|")

    def g(name):
        xs = ratios[name]
        return f"{geomean(xs):.3f} ({len(xs)})" if xs else "—"

    for ev, key in [("model", "model"), ("hybrid", "hybrid"), ("execution", "exec")]:
        vs_exec = g(f"{key}_exec") if key != "exec" else "—"
        lines.append(f"| {ev} | {g(f'{key}_polly')} | {g(f'{key}_mlir')} | {g(f'{key}_best')} | {vs_exec} |")
    lines.append("")
    lines.append("## The issue's targets\n")
    lines.append("| target | measured | met |")
    lines.append("|---|---|---|")
    for ev, key in [("model", "model"), ("hybrid", "hybrid"), ("execution", "exec")]:
        if not ratios[f"{key}_polly"]:
            continue
        vp, vm = geomean(ratios[f"{key}_polly"]), geomean(ratios[f"{key}_mlir"])
        np_, nm = len(ratios[f"{key}_polly"]), len(ratios[f"{key}_mlir"])
        lines.append(f"| geomean over Polly >= 1.3x ({ev}) | {vp:.3f}x ({np_} kernels) | {'yes' if vp >= 1.3 else 'no'} |")
        lines.append(f"| geomean over MLIR's passes >= 1.5x ({ev}) | {vm:.3f}x ({nm} kernels) | {'yes' if vm >= 1.5 else 'no'} |")
    me = geomean(ratios["model_exec"])
    lines.append(f"| model-guided within 15% of execution-guided | {me:.3f} of it | {'yes' if me >= 0.85 else 'no'} |")
    # Issue 16's targets for model mode (the default a user gets).
    lines.append(f"| model-guided >= 0.75 of execution-guided | {me:.3f} of it | {'yes' if me >= 0.75 else 'no'} |")
    if ratios["model_best"]:
        mb = geomean(ratios["model_best"])
        lines.append(f"| model-guided >= 1.0x of the best baseline | {mb:.3f}x ({len(ratios['model_best'])} kernels) | "
                     f"{'yes' if mb >= 1.0 else 'no'} |")
    lines.append(f"| model mode below 0.95x of the original on no kernel | {len(slow)} below"
                 f"{': ' + ', '.join(slow) if slow else ''} | {'no' if slow else 'yes'} |")
    ms, es = sorted(search["model"]), sorted(search["execution"])
    if ms and es:
        f = es[len(es) // 2] / ms[len(ms) // 2]
        lines.append(f"| model search >= 50x faster than execution (medians) | {f:.0f}x | {'yes' if f >= 50 else 'no'} |")
        under = sum(1 for x in ms if x < 1.0)
        lines.append(f"| model search under 1 s per kernel (pass wall time) | {under} of {len(ms)} kernels, "
                     f"max {ms[-1]:.2f} s | {'yes' if under == len(ms) else 'no'} |")
    lines.append("")
    lines.append("## Search time (wall time of the pass on one kernel)\n")
    lines.append("| evaluator | median s | max s | total s |")
    lines.append("|---|---|---|---|")
    for ev in EVALUATORS:
        xs = sorted(search[ev])
        if xs:
            lines.append(f"| {ev} | {xs[len(xs) // 2]:.2f} | {xs[-1]:.2f} | {sum(xs):.1f} |")
    lines.append("")
    lines.append("## Chosen schedules\n")
    lines.append("| kernel | evaluator | schedule | predicted | measured by the pass | remark |")
    lines.append("|---|---|---|---|---|---|")
    for res in results:
        for ev in EVALUATORS + [CODEGEN_VARIANT]:
            info = res["ours"].get(ev)
            if not info:
                continue
            sched = info.get("schedule") or "(original kept)"
            pred = f"{info['predicted']:.2f}x" if info.get("predicted") else ""
            meas = f"{info['measured']:.2f}x" if info.get("measured") else ""
            remark = (info.get("remark") or info.get("error", "")).replace("|", "/")
            warnings = info.get("warnings") or []
            if warnings:
                remark += " WARNINGS: " + " / ".join(w.split("warning: ", 1)[-1] for w in warnings).replace("|", "/")
            if info.get("notes"):
                remark += " NOTES: " + " / ".join(info["notes"]).replace("|", "/")
            lines.append(f"| {res['kernel']} | {ev} | `{sched}` | {pred} | {meas} | {remark[:400]} |")
    lines.append("")
    lines.append("## Where we lose to the best baseline (hybrid)\n")
    for k, b, r in sorted(losses, key=lambda x: x[2]):
        lines.append(f"- {k}: {b} is {1 / r:.2f}x faster than our hybrid result")
    if not losses:
        lines.append("- none")
    lines.append("")
    lines.append("## Spread and correctness\n")
    lines.append("Relative median absolute deviation of each variant's repetitions (%), and any output mismatch.\n")
    for res in results:
        s = summarize(res)
        spread = ", ".join(f"{k} {v * 100:.1f}" for k, v in s["spread"].items())
        lines.append(f"- {res['kernel']}: {spread}" + (f"; MISMATCH: {'; '.join(s['wrong'])}" if s["wrong"] else ""))
        if s["mlir_pipeline"]:
            lines[-1] += f"; mlir-affine = pipeline `{s['mlir_pipeline']}`"
        if s["kept_noise"]:
            lines[-1] += "; original kept, its copy measured " + ", ".join(
                f"{ev} {x:.2f}x" for ev, x in s["kept_noise"].items())
    lines.append("")
    fails = [(r["kernel"], k, v) for r in results for k, v in r.get("pipelines", {}).items()]
    if fails:
        lines.append("MLIR pipelines that failed (left out of the `mlir-affine` column):\n")
        for k, p, why in fails:
            lines.append(f"- {k}, `{p}`: {why}")
        lines.append("")
    lines.append("MLIR pipelines tried (the fastest correct one per kernel is the `mlir-affine` column):\n")
    for k, v in MLIR_PIPELINES.items():
        lines.append(f"- `{k}`: `{v}`")
    lines.append(f"\nclang: `{CLANG} {' '.join(CLANG_FLAGS + LIBS)}`; polly: `{CLANG} {' '.join(POLLY_FLAGS + LIBS)}`.")
    # The main report's discussion is of its host; another report (--report, --results) carries
    # its results folder's README.md instead.
    discussion = ROOT / "benchmarks" / "discussion.md" if out_md.name == "RESULTS.md" else args.results / "README.md"
    if discussion.exists():
        lines.append(discussion.read_text())
    out_md.write_text("\n".join(lines) + "\n")
    plot(results, out_png)
    return ratios


def core_mark(r) -> str:
    """A BLAS figure from OpenBLAS's fallback kernels is marked (no ceiling)."""
    core = r.get("settings", {}).get("blas_core")
    return f" ({core} kernels: no ceiling)" if core in BLAS_FALLBACK_CORES else ""


def blas_section(results) -> list:
    """The contractions against OpenBLAS: its GFLOP/s, and every variant's share of it."""
    rows = [(r, summarize(r)) for r in results if r["kernel"] in BLAS_FLOPS]
    rows = [(r, s) for r, s in rows if s.get("blas") or any(w.startswith("blas") for w in s["wrong"])]
    if not rows:
        return []
    # The options the results were measured with (another host's, when rendering its cache).
    used = " / ".join(sorted({r["ours"][CODEGEN_VARIANT]["options"] for r, _ in rows
                              if r["ours"].get(CODEGEN_VARIANT, {}).get("options")})) or codegen_options()
    out = ["## Against BLAS: the contractions' ceiling\n",
           "The same kernel through OpenBLAS (`<kernel>.blas.c`: cblas calls on the same buffers, "
           f"`{CLANG} {' '.join(CLANG_FLAGS)} ... {' '.join(BLAS_LIBS)}`, Debian's libopenblas with as many "
           "threads as OpenMP), timed in the same driver run as the other variants and checked against the "
           "naive version like them (runs since 2026-12-05 evening with `KMP_BLOCKTIME=1`, so that OpenMP's idle "
           "workers do not hold a core OpenBLAS's threads need: earlier rows understate BLAS, see the discussion). GFLOP/s from the nominal operation count (2 per multiply-add); the "
           "other columns are each variant's time as a share of BLAS's (BLAS time / variant time: 100% "
           "matches the library). `hybrid-fma` is hybrid with the pass's code generation options "
           f"(`{used}`, as recorded with the results): the multiply-add fusion that clang's C, and so the clang, "
           "Polly and BLAS-wrapper columns, gets by default (one rounding instead of two), and the vector "
           "width OpenBLAS uses on AVX-512; its schedule is searched and measured with them.\n",
           "| kernel | BLAS GFLOP/s | naive | mlir-affine | polly | model | hybrid | hybrid-fma | execution |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r, s in rows:
        if not s.get("blas"):
            out.append(f"| {r['kernel']} | WRONG | | | | | | | |")
            continue
        gflops = BLAS_FLOPS[r["kernel"]] / s["blas"] / 1e9

        def share(label):
            x = s["naive"] if label == "naive" else s.get(label)
            return f"{100 * s['blas'] / x:.1f}%" if x else "n/a"

        out.append(f"| {r['kernel']} | {gflops:.1f}{core_mark(r)} | {share('naive')} | {share('mlir-affine')} | {share('polly')} | "
                   f"{share('model')} | {share('hybrid')} | {share(CODEGEN_VARIANT)} | {share('execution')} |")
    out.append("")
    return out


def plot(results, out_png: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no plot")
        return
    labels = ["mlir-affine", "clang", "polly", "model", "hybrid", "execution"]
    names = [r["kernel"] for r in results]
    fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.7), 4.5))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        ys = []
        for r in results:
            s = summarize(r)
            ys.append(s["naive"] / s[label] if s.get(label) else 0)
        ax.bar([j + i * width for j in range(len(names))], ys, width, label=label)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))])
    ax.set_xticklabels(names, rotation=60, ha="right")
    ax.set_ylabel("speedup over naive MLIR (log)")
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)


def machine() -> str:
    """The host as its timings depend on it: the CPU's name (a hypervisor may show several CPU
    generations under one, e.g. "AMD EPYC"), cores, widest vector extension and L2 of one core."""
    cpu, flags = "unknown CPU", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and cpu == "unknown CPU":
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    parts = [cpu, f"{os.cpu_count()} cores"]
    if flags:
        parts.append("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2")
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "level").read_text().strip() == "2":
                parts.append(f"L2 {(index / 'size').read_text().strip()}")
        except OSError:
            pass
    return ", ".join(parts)


def code_version() -> str:
    """The commit the pass was built from, as far as the harness can tell: `-dirty` when
    src/ or passes/ differ from it, `-stale` when they are newer than the plugin."""
    rc, out, _ = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    version = out.strip() if rc == 0 else "unknown"
    rc, out, _ = run(["git", "-C", ROOT, "status", "--porcelain", "--", "src", "passes"])
    if rc == 0 and out.strip():
        version += "-dirty"
    sources = [p for d in ("src", "passes") for p in (ROOT / d).rglob("*") if p.is_file()]
    if PLUGIN.exists() and any(p.stat().st_mtime > PLUGIN.stat().st_mtime for p in sources):
        version += "-stale"
    return version


def in_suite_order(names: list) -> list:
    """Kernel names in ORDER, cheap kernels first so that a run cut short still leaves a useful
    cache; those ORDER does not name last, as given."""
    return sorted(names, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", help="comma-separated kernel names (default: all in benchmarks/polybench and benchmarks/dnn)")
    ap.add_argument("--evaluators", default=",".join(EVALUATORS))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--execution-options", default="",
                    help="extra pass options for evaluator=execution (e.g. 'beam-width=4')")
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "RESULTS.md")
    ap.add_argument("--force", action="store_true", help="measure kernels again even if cached")
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke test: a few small kernels, model and hybrid, 1 repetition, into a temp dir")
    ap.add_argument("--report-only", action="store_true", help="only rewrite the report from the cache")
    ap.add_argument("--reuse", default="",
                    help="with --force: evaluators whose earlier decision (schedule, search time) is re-applied "
                         "from the cache instead of searching again, e.g. 'execution'")
    args = ap.parse_args()
    if args.quick:
        args.kernels = args.kernels or ",".join(QUICK)
        args.evaluators = "model,hybrid"
        args.reps, args.warmup = 1, 0
        tmp = Path(tempfile.mkdtemp(prefix="autosched-bench-"))
        args.results, args.report = tmp / "results", tmp / "RESULTS.md"
    args.evaluators = [e for e in args.evaluators.split(",") if e]
    args.reuse = [e for e in args.reuse.split(",") if e]
    args.machine = machine()
    args.blas_core = None if args.report_only else blas_core()
    if args.blas_core in BLAS_FALLBACK_CORES:
        log(f"warning: OpenBLAS runs its {args.blas_core} kernels on this CPU (a fallback for a model it does not "
            "know): the BLAS column is no ceiling; set OPENBLAS_CORETYPE (e.g. SkylakeX, Haswell, Zen)")
    args.code = code_version()
    for tool in [AUTOSCHED, PLUGIN]:
        if not tool.exists():
            raise SystemExit(f"{tool} is missing: build first (scripts/setup.sh)")
    names = in_suite_order(args.kernels.split(",") if args.kernels else all_kernels())
    args.results.mkdir(parents=True, exist_ok=True)
    results = []
    broken = []
    try:
        from tqdm import tqdm
        progress = tqdm(names, desc="kernels", file=sys.stderr)
    except ImportError:
        progress = names
    for name in progress:
        cache = args.results / f"{name}.json"
        if cache.exists() and not args.force:
            results.append(json.loads(cache.read_text()))
            continue
        if args.report_only:
            continue
        log(f"== {name}")
        work = Path(tempfile.mkdtemp(prefix=f"autosched-bench-{name}-"))
        try:
            started = time.time()
            previous = json.loads(cache.read_text()) if cache.exists() else None
            try:
                res = measure_kernel(name, args, work, previous)
            except (RuntimeError, subprocess.SubprocessError) as e:
                # One kernel that cannot be measured must not lose the others.
                log(f"  {name}: {e}")
                broken.append((name, str(e)))
                continue
            res["harness_seconds"] = time.time() - started
            res["settings"] = {"reps": args.reps, "warmup": args.warmup, "threads": args.threads,
                               "machine": args.machine, "execution_options": args.execution_options}
            if name in BLAS_FLOPS:
                res["settings"]["blas_core"] = args.blas_core
            cache.write_text(json.dumps(res, indent=1))
            results.append(res)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    # A run of some kernels (--kernels) reports them beside the cache's other kernels: the
    # report is of the whole suite, as a --report-only run would write it (the checks below
    # are of this run's kernels only).
    reported = results
    if args.kernels and not args.quick:
        ran = {r["kernel"]: r for r in results}
        cache = lambda n: args.results / f"{n}.json"
        suite = [n for n in in_suite_order(all_kernels()) if n in ran or cache(n).exists()]
        reported = [ran.pop(n) if n in ran else json.loads(cache(n).read_text()) for n in suite] + list(ran.values())
    # Another report (another host's, --report) gets its own figure beside it.
    png = args.report.with_name("results.png") if args.report.name == "RESULTS.md" else args.report.with_suffix(".png")
    ratios = write_report(reported, args, args.report, png)
    print(args.report.read_text())
    # The smoke test fails on a wrong output or a failed pass run, never on speed.
    bad = [(r["kernel"], summarize(r)["wrong"]) for r in results if summarize(r)["wrong"]]
    failed = [(r["kernel"], ev) for r in results for ev, i in r["ours"].items()
              if not i.get("ok") and not i.get("skipped")]
    ours_wrong = [(k, w) for k, ws in bad for w in ws if w.split(":")[0] in EVALUATORS + [CODEGEN_VARIANT]]
    # A candidate whose outputs differed inside the pass is a legality bug, even if rejected.
    ours_wrong += [(r["kernel"], w) for r in results for i in r["ours"].values()
                   for w in i.get("warnings") or [] if "was rejected" in w]
    if failed or ours_wrong or broken:
        log(f"FAILED: pass runs {failed}, wrong outputs of ours {ours_wrong}, kernels not measured {broken}")
        sys.exit(1)


if __name__ == "__main__":
    main()
