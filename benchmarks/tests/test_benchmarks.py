"""The benchmarks: every kernel optimized by the pass computes what the original computes
(PolyBench and the model-selection kernels at small sizes, the DNN layers at theirs; bit for bit), and the harness's smoke
run works end to end.

Run by scripts/test.sh (`.venv/bin/python -m pytest benchmarks/tests`)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted(p for d in ("polybench", "dnn", "selection") for p in (ROOT / "benchmarks" / d).glob("*.mlir"))
AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
PLUGIN = ROOT / "build" / "lib" / "libAffineAutosched.so"


def shrink_constant(n: int) -> int:
    """A PolyBench size N (or N-1, N-2, ...) scaled by 1/10, keeping the offset: 2000 -> 200,
    1999 -> 199, 1998 -> 198, 120 -> 12, 119 -> 11, 500 -> 50. Small constants stay."""
    if n < 100:
        return n
    base = int(round(n / 10.0)) * 10
    return base // 10 + (n - base)


def shrink(text: str) -> str:
    """The kernel at about a tenth of each size: memref shapes and integer literals >= 100 in
    loop bounds, maps and subscripts (floats are left alone)."""
    text = re.sub(r"memref<([0-9x]+)x(f32|f64)>",
                  lambda m: "memref<" + "x".join(str(shrink_constant(int(d))) for d in m.group(1).split("x"))
                  + "x" + m.group(2) + ">", text)
    return re.sub(r"(?<![\w.#%])(\d{3,})(?![\w.])", lambda m: str(shrink_constant(int(m.group(1)))), text)


def test_shrink_keeps_offsets():
    assert [shrink_constant(n) for n in [2000, 1999, 1998, 1300, 1299, 120, 119, 118, 500, 58, 3]] == \
        [200, 199, 198, 130, 129, 12, 11, 10, 50, 58, 3]
    assert shrink("affine.for %i = 1 to 1999 { memref<2000x1200xf32> 0.33333 : f32") == \
        "affine.for %i = 1 to 199 { memref<200x120xf32> 0.33333 : f32"


def test_a_kept_original_counts_as_the_original_and_its_copy_as_noise():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run as harness
    variant = lambda label, median: {"label": label, "median": median, "equivalent": True, "detail": "",
                                     "relative_mad": 0.01}
    res = {"ours": {"model": {"ok": True, "schedule": ""}, "hybrid": {"ok": True, "schedule": "tile(L0:16)"}},
           "timing": {"variants": [variant("original", 1.0), variant("model", 1.25), variant("hybrid", 2.0)]}}
    s = harness.summarize(res)
    assert s["model"] == 1.0 and s["kept_noise"] == {"model": 0.8}
    # A schedule that was applied counts as measured, however slow.
    assert s["hybrid"] == 2.0


def replay(payload: Path, script: Path, out: Path):
    """Replays a Transform-dialect script of the pass on `payload` into `out`."""
    r = subprocess.run(["mlir-opt-22", f"--load-dialect-plugin={PLUGIN}", f"--load-pass-plugin={PLUGIN}",
                        f"--transform-preload-library=transform-library-paths={script}", "--transform-interpreter",
                        payload, "-o", out], capture_output=True, text=True)
    assert r.returncode == 0, f"{script.read_text()}\n{r.stderr}"


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_optimized_kernel_computes_the_same(kernel, tmp_path):
    """The pass's output, and the search's three best schedules (whether or not the pass
    applies them), run against the original on the same inputs: bit for bit."""
    small = tmp_path / f"{kernel.stem}.mlir"
    # PolyBench and the selection kernels shrink by scaling; the DNN layers (strided and
    # grouped indices) run at their own sizes, which take milliseconds.
    text = kernel.read_text()
    small.write_text(shrink(text) if kernel.parent.name in ("polybench", "selection") else text)
    subprocess.run(["mlir-opt-22", small, "-o", "/dev/null"], check=True)
    optimized = tmp_path / "optimized.mlir"
    script = tmp_path / "chosen.transform.mlir"
    p = subprocess.run(["mlir-opt-22", f"--load-pass-plugin={PLUGIN}", "--mlir-print-op-on-diagnostic=false",
                        f"--pass-pipeline=builtin.module(func.func(affine-autosched{{emit-transform={script}}}))",
                        small, "-o", optimized],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    remark = [l for l in p.stderr.splitlines() if "remark: affine-autosched: @" in l]
    assert len(remark) == 1, p.stderr
    assert "warning" not in p.stderr, p.stderr
    variants = ["--variant", f"pass={optimized}"]
    r = subprocess.run([AUTOSCHED, "optimize", small, "-o", "/dev/null", "--show-ranking", "4"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ranked = [m.group(1) for m in re.finditer(r"#\d+[ \t]+[0-9.]+[ \t]*(.*)$", r.stderr, re.M)]
    top = [s for s in ranked if s.strip()][:3]
    assert top, r.stderr
    # The Transform-dialect script of the pass's choice replays to the pass's output.
    replayed = tmp_path / "replayed.mlir"
    replay(small, script, replayed)
    assert replayed.read_text() == optimized.read_text()
    variants += ["--variant", f"replayed={replayed}"]
    for i, schedule in enumerate(top):
        path = tmp_path / f"top{i}.mlir"
        a = subprocess.run([AUTOSCHED, "apply", small, "--schedule", schedule, "-o", path],
                           capture_output=True, text=True)
        assert a.returncode == 0, f"{schedule}: {a.stderr}"
        variants += ["--variant", f"top{i}={path}"]
        # And so does the script of each of the top schedules.
        top_script = tmp_path / f"top{i}.transform.mlir"
        e = subprocess.run(["mlir-opt-22", f"--load-pass-plugin={PLUGIN}",
                            f"--pass-pipeline=builtin.module(func.func(affine-autosched{{schedule=\"{schedule}\" emit-transform={top_script}}}))",
                            small, "-o", tmp_path / f"top{i}.pass.mlir"], capture_output=True, text=True)
        assert e.returncode == 0, f"{schedule}: {e.stderr}"
        replay(small, top_script, tmp_path / f"top{i}.replayed.mlir")
        assert (tmp_path / f"top{i}.replayed.mlir").read_text() == (tmp_path / f"top{i}.pass.mlir").read_text(), schedule
    # Bit for bit: none of the transformations reorders a floating-point reduction.
    r = subprocess.run([AUTOSCHED, "run", small, *variants, "--reps", "1", "--warmup", "0", "--threads", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"{remark[0]}\n{top}\n{r.stdout}\n{r.stderr}"
    for label in ["pass", "replayed"] + [f"top{i}" for i in range(len(top))]:
        assert f"{label}: equivalent: all buffers bitwise identical" in r.stdout, r.stdout


def test_harness_smoke(tmp_path):
    """benchmarks/run.py --quick on one kernel: every variant measured and checked, a report."""
    p = subprocess.run([sys.executable, ROOT / "benchmarks" / "run.py", "--quick", "--kernels", "atax"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "| atax |" in p.stdout
    assert "## Geometric means" in p.stdout
    row = next(l for l in p.stdout.splitlines() if l.startswith("| atax |"))
    assert "WRONG" not in row, row
    cells = [c.strip() for c in row.split("|")[1:-1]]
    # kernel, naive ms, mlir-affine, clang, polly, model, hybrid, execution (not in --quick), ...
    # (a trailing '=': our pass kept the original, counted as 1.00x)
    assert all(re.fullmatch(r"[0-9.]+x=?", c) for c in cells[3:7]), row
    assert all(c == "1.00x=" for c in cells[5:7] if c.endswith("=")), row
    assert cells[7] == "n/a", row


def test_a_run_of_some_kernels_reports_the_whole_suite(tmp_path):
    """benchmarks/run.py --kernels K: the report holds K's row and the cache's other kernels'
    (a run of a few kernels used to write a RESULTS.md of those alone), in the suite's order."""
    results = tmp_path / "results"
    results.mkdir()
    for name in ["atax", "gemm"]:
        (results / f"{name}.json").write_text((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())
    report = tmp_path / "R.md"
    p = subprocess.run([sys.executable, ROOT / "benchmarks" / "run.py", "--report-only", "--kernels", "gemm",
                        "--results", results, "--report", report], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [l.split("|")[1].strip() for l in report.read_text().splitlines() if l.startswith("| atax |") or l.startswith("| gemm |")]
    assert rows[:2] == ["atax", "gemm"], rows


def test_compare_models_smoke(tmp_path):
    """benchmarks/compare-models.py with the shipped model on both sides: the same decision
    (the search is deterministic), and hybrid timed beside it in one checked run."""
    out = tmp_path / "compare.json"
    p = subprocess.run([sys.executable, ROOT / "benchmarks" / "compare-models.py", "--b", ROOT / "onnx" / "model.onnx",
                        "--kernels", "atax", "--hybrid", "atax", "--reps", "1", "--warmup", "0", "--json", out],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "B: all 1 kernels decided as A" in p.stdout, p.stdout
    row = json.loads(out.read_text())["rows"][0]
    assert row["a"]["schedule"] == row["b"]["schedule"]
    assert set(row["speedup"]) == {"a", "b", "hybrid"}, row
    assert row["speedup"]["a"] == row["speedup"]["b"] > 0
    assert row["reps"] >= 1, row


def test_a_kernel_of_a_few_milliseconds_is_timed_again_with_more_repetitions(monkeypatch, tmp_path):
    """run.time_filled (the harness's and compare-models' timing): a run whose fastest variant
    is under SHORT_KERNEL_SECONDS is repeated with enough repetitions to fill ~0.3 s per variant
    (at most 500), and that run's figures are returned; a longer kernel is timed once."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run as harness
    calls = []

    def fake(kernel, function, variants, reps, warmup, threads, work, fastest=None):
        calls.append(reps)
        return {"reps": reps, "variants": [{"label": "original", "median": fastest}]}, f"run {len(calls)}"

    for fastest, expected in [(0.002, [5, 150]), (0.0001, [5, 500]), (0.004, [5, 75]), (0.05, [5])]:
        calls.clear()
        monkeypatch.setattr(harness, "time_variants", lambda *a, f=fastest: fake(*a, fastest=f))
        timing, out = harness.time_filled(Path("k.mlir"), "f", [], 5, 1, 2, tmp_path)
        assert calls == expected, (fastest, calls)
        assert timing["reps"] == expected[-1] and out == f"run {len(expected)}"


def test_a_reused_decision_keeps_its_measured_vector_width(monkeypatch, tmp_path):
    """run.reused (--reuse): a decision that took 512-bit vectors by measurement (the report's
    `vector_width`) is applied again with that width; options that name a width win; a decision
    without one gets no width flag."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run as harness
    calls = []
    monkeypatch.setattr(harness, "run", lambda cmd, **kw: (calls.append([str(c) for c in cmd]), (0, "", ""))[1])
    width = {"bits": 512, "speedup": 4.2, "default_width_speedup": 4.0}
    decision = {"ok": True, "schedule": "parallelize(L0)", "vector_width": width}
    info = harness.reused(Path("k.mlir"), decision, tmp_path / "out.mlir")
    assert info["reused"] and calls[-1][-4:] == ["--prefer-vector-width", "512", "-o", str(tmp_path / "out.mlir")]
    harness.reused(Path("k.mlir"), decision, tmp_path / "out.mlir", "prefer-vector-width=256")
    assert calls[-1].count("--prefer-vector-width") == 1 and "256" in calls[-1]
    harness.reused(Path("k.mlir"), {"ok": True, "schedule": "parallelize(L0)"}, tmp_path / "out.mlir")
    assert "--prefer-vector-width" not in calls[-1]


def test_compare_models_takes_the_selection_suite(tmp_path):
    """--suite selection decides on benchmarks/selection/'s kernels (and names a kernel it lacks)."""
    out = tmp_path / "compare.json"
    cmd = [sys.executable, ROOT / "benchmarks" / "compare-models.py", "--b", ROOT / "onnx" / "model.onnx",
           "--suite", "selection", "--json", out]
    p = subprocess.run(cmd + ["--kernels", "gram"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["suite"] == "selection" and [r["kernel"] for r in got["rows"]] == ["gram"]
    p = subprocess.run(cmd + ["--kernels", "dense"], capture_output=True, text=True, timeout=600)
    assert p.returncode != 0 and "no selection kernel named dense" in p.stderr, p.stderr


def test_compare_models_runs_a_candidate_with_pass_options(tmp_path):
    """--b MODEL@key=value,...: the same model under other pass options reaches the pass (a
    beam of one decides with fewer schedules scored; an option out of range fails naming it)."""
    out = tmp_path / "compare.json"
    model = ROOT / "onnx" / "model.onnx"
    cmd = [sys.executable, ROOT / "benchmarks" / "compare-models.py", "--suite", "selection", "--kernels", "gram",
           "--reps", "1", "--warmup", "0", "--json", out]
    p = subprocess.run(cmd + ["--b", f"{model}@beam-width=1"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["b"] == [f"{model}@beam-width=1"]
    row = got["rows"][0]
    assert 0 < row["b"]["scored"] < row["a"]["scored"], row
    p = subprocess.run(cmd + ["--b", f"{model}@beam-width=0"], capture_output=True, text=True, timeout=600)
    assert p.returncode != 0 and "beam-width" in p.stderr, p.stderr[-3000:]


BLAS_KERNELS = sorted(p for d in ("polybench", "dnn") for p in (ROOT / "benchmarks" / d).glob("*.blas.c"))


@pytest.mark.parametrize("blas", BLAS_KERNELS, ids=[k.name.split(".")[0] for k in BLAS_KERNELS])
def test_blas_version_computes_the_same(blas, tmp_path):
    """The BLAS column's kernels (cblas calls) compute what the affine kernel computes, on
    the same seeded inputs at the benchmark's sizes, within the harness's tolerance."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run as harness

    kernel = blas.with_name(blas.name.split(".")[0] + ".mlir")
    assert harness.BLAS_FLOPS.get(kernel.stem), f"{kernel.stem}: no operation count in BLAS_FLOPS"
    function = harness.function_of(kernel)
    lib = tmp_path / "blas.so"
    assert harness.c_library(kernel, function, harness.CLANG_FLAGS, lib, tmp_path, blas, harness.BLAS_LIBS)
    out = tmp_path / "timing.json"
    p = subprocess.run([AUTOSCHED, "run", kernel, "--function", function, "--reps", "1", "--warmup", "0",
                        "--threads", "2", "--normalized-tolerance", "1e-3", "--json", out, "--variant", f"blas={lib}"],
                       capture_output=True, text=True, env=harness.measuring_env(2))
    assert out.exists(), p.stderr
    variants = {v["label"]: v for v in json.loads(out.read_text())["variants"]}
    assert variants["blas"]["equivalent"], variants["blas"]["detail"]
