"""Training smoke test: featurize a few programs of the committed dataset, train two
epochs, export to ONNX, and check that PyTorch, Python onnxruntime and the Rust side
(`autosched score`) agree within 1e-4 on every held-out point; then that bad models are
refused with a clear error."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import data as data_mod  # noqa: E402
import export  # noqa: E402
import train  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
DATASET = ROOT / "onnx" / "data" / "dataset.jsonl.gz"
GEMM = ROOT / "test-mlir" / "gemm.mlir"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    if not AUTOSCHED.exists():
        pytest.fail("build first (scripts/setup.sh): no build/cargo/release/autosched")
    tmp = tmp_path_factory.mktemp("train")
    feats = tmp / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "40"], check=True)
    assert train.main(["--data", str(feats), "--out", str(tmp / "run"), "--epochs", "2", "--quiet"]) == 0
    model = tmp / "model.onnx"
    assert export.main(["--checkpoint", str(tmp / "run" / "model.pt"), "--data", str(feats),
                        "--dataset", str(DATASET), "--out", str(model), "--reference-programs", "0"]) == 0
    return tmp, model


def test_training_writes_metrics_and_history(trained):
    tmp, _ = trained
    history = json.loads((tmp / "run" / "history.json").read_text())
    assert [h["epoch"] for h in history] == [1, 2]
    m = json.loads((tmp / "run" / "metrics.json").read_text())
    assert m["test"]["all"]["points"] > 0
    assert 0 < m["test"]["all"]["mape"] < 10


def test_export_metadata_and_python_parity(trained):
    _, model = trained
    info = json.loads(model.with_suffix(".json").read_text())
    assert info["parity"]["max_relative_difference"] <= 1e-4
    assert info["parity"]["points"] > 0
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    layout = json.loads(subprocess.run([AUTOSCHED, "layout"], check=True, capture_output=True, text=True).stdout)
    assert meta["layout_hash"] == layout["hash"]
    # The newest search space of the data (model mode keeps to its steps): onnx/data's
    # points were drawn before spaces were recorded.
    assert meta["data_space"] == str(info["data_space"]) == str(export.newest_space(DATASET))


def test_newest_space_reads_the_points_space(tmp_path):
    import gzip
    path = tmp_path / "d.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.write('{"program_id": "a", "schedule": ""}\n{"program_id": "a", "schedule": "x", "space": 3}\n'
                '{"program_id": "b", "schedule": "", "space": 2}\n')
    assert export.newest_space(path) == 3


def test_the_model_states_its_domain_and_the_pass_keeps_what_lies_outside(trained, tmp_path):
    """export.py records the smallest work among the training programs; in model mode the
    pass keeps the original of a smaller function, and says why."""
    tmp, model = trained
    feats = json.loads((tmp / "features" / "meta.json").read_text())
    train_p, _, _ = data_mod.split_programs(feats["programs"], 1)
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert float(meta["min_work"]) == min(feats["work"][i] for i in train_p) > 0
    # The same network, told it was trained on programs larger than gemm.mlir.
    big = tmp_path / "big.onnx"
    big.write_bytes(model.read_bytes())
    export.set_metadata(big, dict(meta, min_work="1e15"))
    r = subprocess.run([AUTOSCHED, "optimize", GEMM, "--model", big, "-o", tmp_path / "out.mlir"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "kept the original: the function runs" in r.stderr + r.stdout
    assert (tmp_path / "out.mlir").read_text().count("affine.for") == GEMM.read_text().count("affine.for")
    r = subprocess.run([AUTOSCHED, "optimize", GEMM, "--model", model, "-o", tmp_path / "out2.mlir"],
                       capture_output=True, text=True)
    assert "the function runs" not in r.stderr + r.stdout


def assert_rust_matches_reference(model, tmp):
    """`autosched score` reproduces, on every point of the reference next to `model`, the
    prediction PyTorch made there (for an ensemble: the members' geometric mean)."""
    ref = json.loads((model.parent / "reference.json").read_text())
    expected = {(p["program_id"], s): v for p in ref["programs"] for s, v in zip(p["schedules"], p["predicted"])}
    ids = tmp / "ids.txt"
    ids.write_text("\n".join(p["program_id"] for p in ref["programs"]))
    out = tmp / "scores.tsv"
    subprocess.run([AUTOSCHED, "score", DATASET, "--model", model, "--program-ids", ids, "--out", out], check=True)
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert len(rows) == len(expected) > 0
    for pid, sched, _, pred in rows:
        want = expected[(pid, sched)]
        assert abs(float(pred) - want) <= 1e-4 * abs(want), (pid, sched, pred, want)


def test_rust_agrees_with_pytorch_on_every_held_out_point(trained):
    tmp, model = trained
    assert_rust_matches_reference(model, tmp)


def test_the_export_is_pre_optimized_and_a_model_that_is_not_is_optimized_at_load(trained, tmp_path):
    """export.py writes the graph ONNX Runtime's extended level leaves (so the pass creates
    its session without optimizing, onnx/preoptimize.py); parity above was checked on it.
    A graph without the mark is optimized when the pass loads it, and predicts the same."""
    _, model = trained
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["graph_optimized"].startswith("extended")
    assert json.loads(model.with_suffix(".json").read_text())["graph_optimized"] == meta["graph_optimized"]
    plain = tmp_path / "plain.onnx"
    plain.write_bytes(model.read_bytes())
    export.set_metadata(plain, {k: v for k, v in meta.items() if k != "graph_optimized"})
    (tmp_path / "reference.json").write_bytes((model.parent / "reference.json").read_bytes())
    assert_rust_matches_reference(plain, tmp_path)
    r = predict(plain, {"RUST_LOG": "debug"})
    assert r.returncode == 0 and "graph not optimized at export" in r.stderr, r.stderr[-2000:]
    r = predict(model, {"RUST_LOG": "debug"})
    assert r.returncode == 0 and "graph optimized at export" in r.stderr, r.stderr[-2000:]


def predict(model, extra_env=None):
    import os
    env = dict(os.environ, **(extra_env or {}))
    return subprocess.run([AUTOSCHED, "predict", GEMM, "-s", "parallelize(L0)", "--model", model],
                          capture_output=True, text=True, env=env)


def test_predict_runs_the_model(trained):
    _, model = trained
    r = predict(model)
    assert r.returncode == 0, r.stderr
    assert "@gemm: predicted speedup" in r.stdout


def test_bad_models_are_refused_clearly(trained, tmp_path):
    _, model = trained
    r = predict(tmp_path / "missing.onnx")
    assert r.returncode == 2 and "no model file" in r.stderr
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"not an onnx model")
    r = predict(corrupt)
    assert r.returncode == 2 and "not a usable ONNX model" in r.stderr
    m = onnx.load(str(model))
    for p in m.metadata_props:
        if p.key == "layout_hash":
            p.value = "0123456789abcdef"
    wrong = tmp_path / "wrong-layout.onnx"
    onnx.save(m, str(wrong))
    r = predict(wrong)
    assert r.returncode == 2 and "trained on feature layout 0123456789abcdef" in r.stderr
    r = predict(model, {"AUTOSCHED_ONNXRUNTIME": str(tmp_path / "no-such-lib.so")})
    assert r.returncode == 2 and "cannot load ONNX Runtime" in r.stderr


def test_censored_points_are_bounds_in_the_loss():
    import torch
    y = torch.tensor([0.25, 0.25, 2.0])
    w = torch.ones(3)
    cens = torch.tensor([True, True, False])
    # Predicting a censored point slower than its bound costs nothing; faster costs.
    below = train.regression_loss(torch.tensor([0.1, 0.2, 2.0]), y, w, cens, "log_l1")
    above = train.regression_loss(torch.tensor([0.5, 0.2, 2.0]), y, w, cens, "log_l1")
    assert below.item() == 0.0
    assert above.item() == pytest.approx(float(torch.log(torch.tensor(2.0))) / 3, rel=1e-5)
    # Not censored: the same prediction below the value is an error.
    plain = train.regression_loss(torch.tensor([0.1, 0.25, 2.0]), y, w, torch.zeros(3, dtype=torch.bool), "log_l1")
    assert plain.item() > 0


def test_ranking_loss_orders_the_schedules_of_one_program():
    import torch
    y = torch.tensor([1.0, 2.0, 4.0, 3.0])
    program = torch.tensor([0, 0, 0, 1])
    none = torch.zeros(4, dtype=torch.bool)
    right = train.ranking_loss(torch.tensor([1.0, 2.0, 4.0, 1.0]), y, program, none)
    wrong = train.ranking_loss(torch.tensor([4.0, 2.0, 1.0, 1.0]), y, program, none)
    assert right.item() < wrong.item()
    # Pairs never cross programs: program 1's point alone gives no pair.
    alone = train.ranking_loss(torch.tensor([1.0, 1.0, 1.0, 9.0]), y, torch.tensor([0, 1, 2, 3]), none)
    assert alone.item() == 0.0
    # A censored point is never the faster of a pair.
    cens = torch.tensor([False, False, True, False])
    only_censored_faster = train.ranking_loss(torch.tensor([1.0, 2.0, 0.5, 1.0]), torch.tensor([1.0, 1.0, 4.0, 1.0]),
                                              torch.tensor([0, 0, 0, 1]), cens)
    assert only_censored_faster.item() == 0.0


def test_gap_weighted_pairs_count_a_swap_by_how_far_apart_its_schedules_run():
    import torch
    # Program 0: 1.0x against 1.1x; program 1: 1.0x against 30x. Both swapped, equally sure.
    y = torch.tensor([1.0, 1.1, 1.0, 30.0])
    program = torch.tensor([0, 0, 1, 1])
    none = torch.zeros(4, dtype=torch.bool)
    small_swapped = torch.tensor([2.0, 1.0, 1.0, 2.0])
    big_swapped = torch.tensor([1.0, 2.0, 2.0, 1.0])
    uniform = [train.ranking_loss(p, y, program, none).item() for p in (small_swapped, big_swapped)]
    assert uniform[0] == pytest.approx(uniform[1])
    gap = [train.ranking_loss(p, y, program, none, pairs_by="gap").item() for p in (small_swapped, big_swapped)]
    assert gap[1] > 2 * gap[0]
    # All pairs of one gap: the weighting changes nothing.
    same = torch.tensor([1.0, 2.0, 1.0, 2.0])
    y2 = torch.tensor([1.0, 2.0, 1.0, 2.0])
    assert train.ranking_loss(same, y2, program, none, pairs_by="gap").item() == pytest.approx(
        train.ranking_loss(same, y2, program, none).item())


def test_top_weighted_pairs_train_a_programs_first_choice_over_its_slow_schedules():
    import numpy as np
    import torch
    # One program of four schedules, 8x, 4x, 1.2x and 1.0x; the ranks are measured, per program.
    y = torch.tensor([8.0, 4.0, 1.2, 1.0, 3.0, 1.0])
    program = torch.tensor([0, 0, 0, 0, 1, 1])
    rank = torch.from_numpy(train.measured_ranks(y.numpy(), program.numpy()))
    assert rank.tolist() == [0, 1, 2, 3, 0, 1]
    scrambled = train.measured_ranks(np.array([1.0, 3.0, 2.0]), np.array([5, 2, 5]))
    assert scrambled.tolist() == [1, 0, 0]
    none = torch.zeros(6, dtype=torch.bool)
    # The same log gap swapped at the top (8x vs 4x) or at the bottom (1.2x vs 1.0x, made as far
    # apart by predicting them so): gap weighting counts the top swap as its gap, top more so.
    top_swapped = torch.tensor([4.0, 8.0, 1.2, 1.0, 3.0, 1.0])
    bottom_swapped = torch.tensor([8.0, 4.0, 1.0, 1.2, 3.0, 1.0])
    gap = [train.ranking_loss(p, y, program, none, pairs_by="gap").item() for p in (top_swapped, bottom_swapped)]
    top = [train.ranking_loss(p, y, program, none, pairs_by="top", rank=rank).item()
           for p in (top_swapped, bottom_swapped)]
    assert top[0] / top[1] > gap[0] / gap[1] > 1.0
    # A right order costs less than a wrong one under either weighting.
    right = train.ranking_loss(y, y, program, none, pairs_by="top", rank=rank).item()
    assert right < top[1]


def test_training_with_the_ranking_term(tmp_path):
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "12"], check=True)
    assert (feats / "censored.npy").exists()
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run"), "--epochs", "1", "--quiet",
                       "--rank-weight", "1.0"]) == 0
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["config"]["args"]["rank_weight"] == 1.0
    # The top-weighted pairs, the best epoch chosen by the first choices' regret.
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "top"), "--epochs", "2", "--quiet",
                       "--rank-weight", "1.0", "--rank-pairs", "top", "--select", "picks"]) == 0
    history = json.loads((tmp_path / "top" / "history.json").read_text())
    figures = [h["val_loss"] for h in history]
    assert all(-1.0 <= f < 0.0 for f in figures)
    best = json.loads((tmp_path / "top" / "metrics.json").read_text())["config"]
    assert best["args"]["select"] == "picks"


def test_fine_tuning_starts_from_a_model_and_keeps_it_when_it_does_not_help(trained, tmp_path):
    import torch
    tmp, _ = trained
    start = tmp / "run" / "model.pt"
    # A learning rate of ~0 changes nothing: the starting model (epoch 0) must stay the best.
    assert train.main(["--data", str(tmp / "features"), "--out", str(tmp_path / "same"), "--epochs", "1",
                       "--quiet", "--init", str(start), "--max-lr", "1e-30", "--rank-weight", "1.0",
                       "--select", "ranking"]) == 0
    a, b = torch.load(start, weights_only=False), torch.load(tmp_path / "same" / "model.pt", weights_only=False)
    assert b["config"]["best_epoch"] == 0 and b["config"]["init"]["path"] == str(start)
    assert all(torch.equal(a["state"][k], b["state"][k]) for k in a["state"])
    history = json.loads((tmp_path / "same" / "history.json").read_text())
    assert [h["epoch"] for h in history] == [0, 1] and history[0]["val_loss"] < 0  # -(Spearman + nDCG) / 2
    # A real fine-tuning changes the weights; a model of another shape is refused.
    assert train.main(["--data", str(tmp / "features"), "--out", str(tmp_path / "tuned"), "--epochs", "1",
                       "--quiet", "--init", str(start), "--max-lr", "1e-3"]) == 0
    c = torch.load(tmp_path / "tuned" / "model.pt", weights_only=False)
    assert c["config"]["best_epoch"] == 0 or any(not torch.equal(a["state"][k], c["state"][k]) for k in a["state"])
    with pytest.raises(SystemExit, match="heads=1"):
        train.main(["--data", str(tmp / "features"), "--out", str(tmp_path / "bad"), "--epochs", "1", "--quiet",
                    "--init", str(start), "--heads", "3"])


def test_an_ensemble_exports_and_the_rust_side_takes_its_geometric_mean(trained, tmp_path):
    tmp, single = trained
    feats = tmp / "features"
    # A second member: the same data, another seed.
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run1"), "--epochs", "1", "--quiet",
                       "--seed", "1"]) == 0
    model = tmp_path / "ensemble.onnx"
    assert export.main(["--checkpoint", str(tmp / "run" / "model.pt"), str(tmp_path / "run1" / "model.pt"),
                        "--data", str(feats), "--dataset", str(DATASET), "--out", str(model),
                        "--reference-programs", "0"]) == 0
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["members"] == "2"
    assert json.loads(model.with_suffix(".json").read_text())["parity"]["max_relative_difference"] <= 1e-4
    # The Rust side's prediction is the members' geometric mean (the reference's).
    assert_rust_matches_reference(model, tmp_path)
    r = predict(model)
    assert r.returncode == 0, r.stderr
    assert "(2 members)" in r.stdout, r.stdout


def test_pretraining_the_encoder_and_training_from_it(tmp_path):
    import pretrain
    vec = tmp_path / "vectors"
    subprocess.run([AUTOSCHED, "vectors", "--programs", "30", "--schedules", "4", "--sizes", "toy",
                    "--out", vec, "--quiet"], check=True)
    meta = json.loads((vec / "meta.json").read_text())
    assert meta["vectors"] > 30
    assert pretrain.main(["--vectors", str(vec), "--out", str(tmp_path / "pre"), "--epochs", "3", "--quiet"]) == 0
    history = json.loads((tmp_path / "pre" / "history.json").read_text())
    assert history[-1]["val_mse"] < history[0]["val_mse"], history
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "12"], check=True)
    # Frozen at first: unfrozen after one epoch without gain, trained on.
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run"), "--epochs", "4", "--quiet",
                       "--pretrained", str(tmp_path / "pre" / "encoder.pt"), "--unfreeze-after", "1"]) == 0
    cfg = json.loads((tmp_path / "run" / "metrics.json").read_text())["config"]
    assert cfg["pretrained"]["vectors"] == meta["vectors"]
    buckets = [k for k in json.loads((tmp_path / "run" / "metrics.json").read_text())["test"] if k.startswith("time:")]
    assert buckets, "metrics by run-time bucket"
    import torch
    state = torch.load(tmp_path / "run" / "model.pt", weights_only=False)["state"]
    pre = torch.load(tmp_path / "pre" / "encoder.pt", weights_only=False)
    assert torch.equal(state["feature_mean"], pre["feature_mean"])


def test_censored_points_enter_metrics_as_bounds():
    import metrics
    pred = [1.0, 2.0, 0.5, 0.1]
    true = [1.0, 2.0, 0.25, 0.25]
    cens = [False, False, True, True]
    m = metrics.summary(pred, true, [0, 0, 0, 0], censored=cens)
    # MAPE only over the exactly measured points (both exact here).
    assert m["mape"] == 0.0
    assert m["censored"] == 2
    # One of the two censored points is predicted faster than its bound.
    assert m["censored_above"] == 0.5
    assert metrics.summary(pred, true, [0, 0, 0, 0])["mape"] > 0


def test_extra_training_data_joins_training_only(tmp_path):
    import data as data_mod
    a, b = tmp_path / "a", tmp_path / "b"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", a, "--programs", "10"], check=True)
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", b, "--programs", "16"], check=True)
    da, db = data_mod.Featurized(a), data_mod.Featurized(b)
    n_a, p_a = len(da), len(da.programs)
    first = da.inputs([0])
    added = da.append(db)
    assert list(added) == list(range(p_a, p_a + len(db.programs)))
    assert len(da) == n_a + len(db) and len(da.meta["schedules"]) == len(da)
    # The appended points read back exactly as in their own set; the first set's are unchanged.
    for j in (0, len(db) - 1):
        mine, theirs = da.inputs([n_a + j]), db.inputs([j])
        for x, y in zip(mine, theirs):
            assert torch_equal(x, y)
    for x, y in zip(da.inputs([0]), first):
        assert torch_equal(x, y)
    assert da.programs[da.program[n_a]] == db.programs[db.program[0]]
    # Training: the split (and so the held-out figures) is that of --data alone.
    assert train.main(["--data", str(a), "--out", str(tmp_path / "run"), "--epochs", "1", "--quiet",
                       "--extra-data", str(b)]) == 0
    m = json.loads((tmp_path / "run" / "metrics.json").read_text())
    own_train, _, own_test = data_mod.split_programs(data_mod.Featurized(a).programs, 1)
    assert m["config"]["test_programs"] == len(own_test)
    assert m["config"]["train_programs"] == len(own_train) + len(db.programs)


def test_oversampled_programs_form_groups_of_their_own_and_bad_specs_are_refused(tmp_path):
    import data as data_mod
    feats = tmp_path / "f"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "12"], check=True)
    d = data_mod.Featurized(feats)
    train_p, _, _ = data_mod.split_programs(d.programs, 1)
    target = d.programs[int(train_p[0])]
    repeats = train.oversampled(d.programs, train_p, ["^" + target + "$=3"])
    assert repeats == {int(train_p[0]): 3}
    plain = data_mod.batches(d, train_p, 4)
    more = data_mod.batches(d, train_p, 4, repeats=repeats)
    mine = [i for i in range(len(d)) if d.program[i] == int(train_p[0])]
    count = lambda bs: sum(len(b) for b in bs if d.program[b[0]] == int(train_p[0]))
    # Each copy is whole groups of that program alone; the others are as they were.
    assert count(more) == 3 * count(plain) == 3 * len(mine)
    assert sum(len(b) for b in more) == sum(len(b) for b in plain) + 2 * len(mine)
    # The last '=' splits: a regex may hold one.
    assert train.oversampled(d.programs, train_p, ["(^" + target + "$)|(a=b)=2"]) == {int(train_p[0]): 2}
    for spec in ("nothing-matches-this=2", target + "=1", target + "=x", target + "=\u00b2", "(=2", "=3"):
        with pytest.raises(SystemExit):
            train.oversampled(d.programs, train_p, [spec])
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run"), "--epochs", "1", "--quiet",
                       "--oversample", "^" + target + "$=3"]) == 0


def torch_equal(x, y):
    import torch
    return x.shape == y.shape and bool(torch.equal(x, y))


def test_decision_rules_on_measured_schedules():
    import types
    import numpy as np
    import report
    # One program: identity, a schedule both members like (measured 0.5x), one only the
    # first member likes (measured 0.4x), and a modest one both agree on (measured 1.5x).
    data = types.SimpleNamespace(meta={"schedules": ["", "a", "b", "c"]}, program=np.zeros(4, dtype=int),
                                 speedup=np.array([1.0, 0.5, 0.4, 1.5]))
    pred = np.array([[1.0, 1.0], [3.0, 0.9], [4.0, 1.0], [1.6, 1.5]])
    r = report.decisions(pred, data, np.arange(4))
    # Point estimate: b has the best geometric mean (2.0) and loses; the pessimistic rule
    # takes c, whose worst member still predicts 1.5x.
    assert r["point estimate"]["geomean"] == 0.4 and r["point estimate"]["below_0.95"] == 1
    assert r["pessimistic (pass)"]["geomean"] == 1.5
    assert r["best measured"]["geomean"] == 1.5
    # Nobody's worst case clears the margin: the original is kept.
    r = report.decisions(np.array([[1.0, 1.0], [3.0, 0.9], [4.0, 1.0], [1.6, 1.0]]), data, np.arange(4))
    assert r["pessimistic (pass)"]["geomean"] == 1.0 and r["pessimistic (pass)"]["changed"] == 0


def test_archived_questions_compare_trainings_of_one_data_and_layout(tmp_path):
    import report
    feats, archive = tmp_path / "features", tmp_path / "runs"
    feats.mkdir()
    (feats / "layout.json").write_text(json.dumps({"hash": "L5", "fields": [{"name": n} for n in ("a", "stride_x")]}))

    def keep(name, flags, data, layout, spearman):
        d = archive / name
        d.mkdir(parents=True)
        (d / "key.json").write_text(json.dumps({"flags": flags, "epochs": 12, "data": data}))
        (d / "metrics.json").write_text(json.dumps({"config": {"layout_hash": layout, "features": 2},
                                                    "validation": {"all": {"spearman": spearman}}}))

    # The side with the fields exists on old data in layout 3 under its own name, and on the
    # data of the side without them in layout 4 under another.
    keep("with", ["--laplace", "0.8"], "old", "L3", 0.9)
    keep("with-layout4", ["--laplace", "0.8"], "d4", "L4", 0.7)
    keep("without", ["--drop-features", "(ws)", "--laplace", "0.8"], "d4", "L4", 0.8)
    t = report.Trainer(tmp_path / "work", feats, "now", 40, archive)
    without, paired = t.pair(("without", ["--drop-features", "(ws)", "--laplace", 0.8]), ("with", ["--laplace", 0.8]),
                             epochs=12, stale=True)
    assert without["stale"] == "d4"
    alone = t.archived("with", "--laplace", 0.8, epochs=12)
    assert alone["key"]["data"] == "old"
    assert paired["dir"] == str(archive / "with-layout4")
    # One side trained on this data does not pair with the other side's archived training.
    run = tmp_path / "work" / "without-now"
    run.mkdir(parents=True)
    (run / "key.json").write_text(json.dumps({"flags": ["--drop-features", "(ws)", "--laplace", "0.8"], "epochs": 12,
                                              "data": "now", "layout": "L5"}))
    (run / "metrics.json").write_text(json.dumps({"config": {"layout_hash": "L5", "features": 2},
                                                  "validation": {"all": {"spearman": 0.6}}}))
    without, paired = t.pair(("without", ["--drop-features", "(ws)", "--laplace", 0.8]), ("with", ["--laplace", 0.8]),
                             epochs=12, stale=True)
    assert without["key"]["data"] == paired["key"]["data"] == "d4"
    # The same data in another layout is stale too, and says so.
    keep("now-l4", ["--heads", "3"], "now", "L4", 0.5)
    assert t.archived("x", "--heads", 3, epochs=12)["stale"] == "now in layout L4"
    # A training's key names the layout of the features it reads.
    assert t.layout == "L5"


def train_and_export(feats, tmp_path, name, *flags):
    """Trains into tmp_path/run with `flags`, exports tmp_path/name; (config, model path)."""
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run"), "--quiet", *flags]) == 0
    cfg = json.loads((tmp_path / "run" / "metrics.json").read_text())["config"]
    model = tmp_path / name
    assert export.main(["--checkpoint", str(tmp_path / "run" / "model.pt"), "--data", str(feats),
                        "--dataset", str(DATASET), "--out", str(model), "--reference-programs", "0"]) == 0
    return cfg, model


def test_several_heads_train_export_and_score_as_an_ensemble(trained, tmp_path):
    tmp, _ = trained
    feats = tmp / "features"
    cfg, model = train_and_export(feats, tmp_path, "heads.onnx", "--epochs", "1", "--heads", "3", "--rank-weight", "0.5")
    assert cfg["heads"] == 3
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["members"] == "3"
    assert_rust_matches_reference(model, tmp_path)
    r = predict(model)
    assert r.returncode == 0, r.stderr
    assert "(3 members)" in r.stdout, r.stdout
    # The heads differ (their own initialization and bootstrap weights): an interval, not a point.
    import torch
    m, _ = export.load_model(tmp_path / "run" / "model.pt")
    import data as data_mod
    d = data_mod.Featurized(feats)
    with torch.no_grad():
        out = m(*d.inputs(list(range(min(8, len(d))))))
    assert out.shape[1] == 3 and bool((out.max(dim=1).values > out.min(dim=1).values).all())
    # A multi-head network cannot join an ensemble.
    with pytest.raises(SystemExit):
        export.main(["--checkpoint", str(tmp_path / "run" / "model.pt"), str(tmp / "run" / "model.pt"),
                     "--data", str(feats), "--dataset", str(DATASET), "--out", str(tmp_path / "bad.onnx")])


def test_laplace_loss_and_its_censored_bound():
    import math
    import torch
    mu, b = torch.tensor([0.0, 0.0]), torch.tensor([0.5, 0.5])
    y = torch.tensor([math.exp(0.25), math.exp(0.25)])
    w = torch.ones(2)
    exact = train.laplace_loss(mu, b, y, w, torch.tensor([False, False]))
    assert exact.item() == pytest.approx(0.25 / 0.5 + math.log(1.0), rel=1e-5)
    # Censored at c = 0.25 above mu: -log(1 - exp(-0.5) / 2); below mu: log 2 + (mu - c) / b.
    above = train.laplace_loss(mu, b, y, w, torch.tensor([True, True]))
    assert above.item() == pytest.approx(-math.log(1 - math.exp(-0.5) / 2), rel=1e-5)
    low = torch.tensor([math.exp(-0.25)] * 2)
    below = train.laplace_loss(mu, b, low, w, torch.tensor([True, True]))
    assert below.item() == pytest.approx(math.log(2) + 0.5, rel=1e-5)
    # A bound far above the estimate costs almost nothing; far below, a lot.
    assert train.laplace_loss(mu, b, torch.tensor([100.0] * 2), w, torch.tensor([True, True])).item() < 1e-3


def test_a_regression_trained_laplace_estimate_weighs_every_point_alike():
    import torch
    y = torch.tensor([2.0, 0.5, 3.0])
    w, cens = torch.ones(3), torch.tensor([False, False, True])

    def mu_grad(mean, scale):
        mu = torch.zeros(3, requires_grad=True)
        b = torch.tensor(scale, requires_grad=True)
        train.laplace_training_loss(mu, b, y, w, cens, mean).backward()
        return mu.grad, b.grad

    # With the likelihood, a point given a larger scale pulls its estimate less ...
    g_small, _ = mu_grad("likelihood", [0.2, 0.2, 0.2])
    g_wide, _ = mu_grad("likelihood", [0.2, 2.0, 0.2])
    assert abs(g_wide[1]) < abs(g_small[1]) / 5
    # ... with the regression loss the estimate's gradient ignores the scales (the plain
    # loss's gradient, the censored point above its bound included), which still learn.
    r_small, b_small = mu_grad("regression", [0.2, 0.2, 0.2])
    r_wide, b_wide = mu_grad("regression", [0.2, 2.0, 0.2])
    assert torch.allclose(r_small, r_wide)
    mu = torch.zeros(3, requires_grad=True)
    train.regression_loss(torch.exp(mu), y, w, cens, "log").backward()
    assert torch.allclose(r_small, mu.grad)
    assert float(b_small.abs().sum()) > 0 and not torch.allclose(b_small, b_wide)


def test_a_laplace_interval_trains_calibrates_and_exports(trained, tmp_path):
    tmp, _ = trained
    feats = tmp / "features"
    cfg, model = train_and_export(feats, tmp_path, "laplace.onnx", "--epochs", "2", "--laplace", "0.8",
                                  "--rank-weight", "0.5", "--laplace-mean", "regression")
    cal = cfg["calibration"]
    assert cfg["args"]["laplace_mean"] == "regression"
    assert cfg["laplace"] == 0.8 and cal["scale_factor"] > 0
    # Calibrated on the validation programs: (nearly) alpha of them inside, ties aside.
    assert cal["validation_coverage_after"] >= 0.75, cal
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["members"] == "2"
    # The Rust side's point is the geometric mean of the interval's ends: exp(mu).
    assert_rust_matches_reference(model, tmp_path)
    import torch
    m, _ = export.load_model(tmp_path / "run" / "model.pt")
    assert float(m.scale_factor) == pytest.approx(cal["scale_factor"], rel=1e-6)
    import data as data_mod
    d = data_mod.Featurized(feats)
    with torch.no_grad():
        out = m(*d.inputs(list(range(min(8, len(d))))))
    assert out.shape[1] == 2 and bool((out[:, 1] > out[:, 0]).all())


def test_laplace_networks_of_two_seeds_export_as_one_calibrated_interval(trained, tmp_path):
    tmp, _ = trained
    feats = tmp / "features"
    runs = []
    for seed in (0, 1):
        run = tmp_path / f"run{seed}"
        assert train.main(["--data", str(feats), "--out", str(run), "--quiet", "--epochs", "1", "--laplace", "0.8",
                           "--seed", str(seed)]) == 0
        runs.append(run / "model.pt")
    model = tmp_path / "pair.onnx"
    assert export.main(["--checkpoint", *map(str, runs), "--data", str(feats), "--dataset", str(DATASET),
                        "--out", str(model), "--reference-programs", "0"]) == 0
    # One interval, read by the pass as one Laplace network's.
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["members"] == "2" and meta["output"] == "interval" and meta["coverage"] == "0.8"
    info = json.loads(model.with_suffix(".json").read_text())
    assert info["networks"] == 2 and info["ensemble_calibration"]["coverage_after"] >= 0.75
    assert_rust_matches_reference(model, tmp_path)
    # Its point is the mean of the networks' log estimates; its ends straddle it.
    import torch
    from model import Ensemble
    members = [export.load_model(r)[0] for r in runs]
    ens = Ensemble(members).eval()
    ens.scale_factor.fill_(info["ensemble_calibration"]["factor"])
    d = data_mod.Featurized(feats)
    x = d.inputs(list(range(min(8, len(d)))))
    with torch.no_grad():
        out = ens(*x)
        mus = [m.laplace_parts(m(*x))[0] for m in members]
    mu, _ = ens.laplace_parts(out)
    assert torch.allclose(mu, (mus[0] + mus[1]) / 2, atol=1e-5)
    assert bool((out[:, 0] < out[:, 1]).all())
    # Members of another coverage, or of an interval and none, make no ensemble.
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "plain"), "--quiet", "--epochs", "1"]) == 0
    with pytest.raises(SystemExit, match="Laplace interval of one coverage"):
        export.main(["--checkpoint", str(runs[0]), str(tmp_path / "plain" / "model.pt"), "--data", str(feats),
                     "--dataset", str(DATASET), "--out", str(tmp_path / "bad.onnx")])


def test_derived_inner_loop_features_train_export_and_score_in_rust(trained, tmp_path):
    tmp, _ = trained
    feats = tmp / "features"
    # The strides dropped as inputs, yet read by the derived features (in training as in the graph).
    cfg, model = train_and_export(feats, tmp_path, "derived.onnx", "--epochs", "1", "--derive-inner",
                                  "--drop-features", "stride_", "--laplace", "0.8")
    assert cfg["derive"]["sources"][0] == "present" and cfg["dropped_features"]
    assert json.loads(model.with_suffix(".json").read_text())["parity"]["max_relative_difference"] <= 1e-4
    assert_rust_matches_reference(model, tmp_path)
    # A fine-tuning must say the same.
    with pytest.raises(SystemExit, match="derive-inner"):
        train.main(["--data", str(feats), "--out", str(tmp_path / "again"), "--quiet", "--epochs", "1",
                    "--laplace", "0.8", "--init", str(tmp_path / "run" / "model.pt")])


def test_graphs_of_the_earlier_input_forms_still_load_and_agree(trained, tmp_path):
    """Graphs exported before the cached form (the shared form without known nests; every
    candidate's tree: computation vectors per candidate, or given once each with an index) are
    still read by the Rust side, and give what the cached form gives."""
    import numpy as np
    import torch
    from model import INPUT_NAMES, SHARED_INPUT_NAMES, Shared, to_shared

    tmp, model = trained
    net, _ = export.load_model(tmp / "run" / "model.pt")

    class Indexed(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, unique_comps, comp_index, comp_children, comp_counts, loop_children, loop_counts,
                    root_children, root_counts):
            return self.m(unique_comps[comp_index], comp_children, comp_counts, loop_children, loop_counts,
                          root_children, root_counts)

    data = data_mod.Featurized(tmp / "features")
    idx = np.unique(data.program, return_index=True)[1][:4]
    x = data.padded_inputs(idx, data.layout["max_depth"], at_least=2)
    b, k, s, c, u = (torch.export.Dim(n) for n in ("B", "K", "S", "C", "U"))
    tree = {"comp_children": {0: b, 2: s, 3: c}, "comp_counts": {0: b, 2: s}, "loop_children": {0: b, 2: s, 3: c},
            "loop_counts": {0: b, 2: s}, "root_children": {0: b, 1: s}, "root_counts": {0: b}}
    flat = x[0].reshape(-1, x[0].shape[-1])
    index = torch.arange(flat.shape[0]).reshape(x[0].shape[:2])
    n = torch.export.Dim("N")
    shared = {"unique_comps": {0: u}, "node_comps": {1: n, 2: c}, "node_comp_counts": {1: n},
              "node_loops": {1: n, 2: c}, "node_loop_counts": {1: n}, "root_children": {0: b, 1: s},
              "root_counts": {0: b}}
    forms = {
        "shared": (Shared(net), tuple(to_shared(*x, at_least=2)), SHARED_INPUT_NAMES, shared),
        # (Dynamic shapes in the inputs' order: the exporter pairs them with the names so.)
        "plain": (net, tuple(x), INPUT_NAMES, {"comps": {0: b, 1: k}, **tree}),
        "indexed": (Indexed(net), (flat, index, *x[1:]), ["unique_comps", "comp_index"] + INPUT_NAMES[1:],
                    {"unique_comps": {0: u}, "comp_index": {0: b, 1: k}, **tree}),
    }
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    for name, (module, args, names, dyn) in forms.items():
        d = tmp_path / name
        d.mkdir()
        path = d / "model.onnx"
        torch.onnx.export(module.eval(), args, str(path), input_names=names, output_names=["speedup"],
                          dynamic_shapes=dyn, dynamo=True, external_data=False, verbose=False, report=False)
        export.set_metadata(path, meta)
        (d / "reference.json").write_text((model.parent / "reference.json").read_text())
        assert_rust_matches_reference(path, d)


def test_the_split_keeps_each_program_where_it_was_as_the_data_grows():
    ids = ["r1-p%d" % i for i in range(2000)]
    grown = ["r2-p%d" % i for i in range(700)] + ids[::-1]
    name = lambda ids, parts: [set(ids[i] for i in part) for part in parts]
    before = name(ids, data_mod.split_programs(ids, 1))
    after = name(grown, data_mod.split_programs(grown, 1))
    for b, a in zip(before, after):
        assert b == a & set(ids)
    assert not (before[0] & before[2]) and not (before[1] & before[2]) and not (before[0] & before[1])
    sizes = [len(p) for p in before]
    assert abs(sizes[0] / 2000 - 0.8) < 0.04 and abs(sizes[2] / 2000 - 0.1) < 0.03
    # another seed draws another split
    assert name(ids, data_mod.split_programs(ids, 2))[2] != before[2]


def test_dropped_features_are_zero_in_training_and_unread_by_the_exported_graph(tmp_path):
    import data as data_mod
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "12"], check=True)
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "run"), "--epochs", "1", "--quiet",
                       "--drop-features", "working_set"]) == 0
    cfg = json.loads((tmp_path / "run" / "metrics.json").read_text())["config"]
    assert cfg["dropped_features"] and all("working_set" in n for n in cfg["dropped_features"])
    model = tmp_path / "m.onnx"
    assert export.main(["--checkpoint", str(tmp_path / "run" / "model.pt"), "--data", str(feats),
                        "--dataset", str(DATASET), "--out", str(model), "--reference-programs", "0"]) == 0
    d = data_mod.Featurized(feats)
    names = [f["name"] for f in d.layout["fields"]]
    cols = [names.index(n) for n in cfg["dropped_features"]]
    # The exported graph equals the checkpoint (export's parity check); the checkpoint's
    # standardization scales the dropped columns to zero, so their values change nothing.
    import torch
    net, _ = export.load_model(tmp_path / "run" / "model.pt")
    assert (net.feature_scale[cols] == 0).all()
    x = d.inputs(list(range(4)))
    with torch.no_grad():
        before = net(*x)
        changed = x[0].clone()
        changed[:, :, cols] = 7.5
        assert torch.equal(net(changed, *x[1:]), before)
    with pytest.raises(SystemExit):
        train.main(["--data", str(feats), "--out", str(tmp_path / "r2"), "--epochs", "1", "--quiet",
                    "--drop-features", "no_such_feature"])


def test_points_are_featurized_for_the_host_they_record_and_scored_by_host(tmp_path):
    """Two copies of the same programs, recorded on hosts with an L2 of 256 KiB and of 64 MiB:
    the cache-relative fields and the host's L2 differ, the rest do not, and the figures come
    per host."""
    import gzip
    import data as data_mod
    lines = []
    with gzip.open(DATASET, "rt") as f:
        for line in f:
            r = json.loads(line)
            if len(lines) >= 60:
                break
            lines.append(r)
    out = tmp_path / "two-hosts.jsonl.gz"
    with gzip.open(out, "wt") as f:
        for l2, tag in ((256 << 10, "small"), (64 << 20, "big")):
            for r in lines:
                r = dict(r, program_id=f"{r['program_id']}-{tag}")
                r["machine"] = dict(r["machine"], caches=[{"level": 1, "bytes": 32768, "shared_by": 1},
                                                          {"level": 2, "bytes": l2, "shared_by": 1},
                                                          {"level": 3, "bytes": 1 << 30, "shared_by": 2}])
                f.write(json.dumps(r) + "\n")
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", out, "--out", feats], check=True)
    d = data_mod.Featurized(feats)
    assert d.hosts == ["L1 32 KiB, L2 256 KiB, L3 1048576 KiB", "L1 32 KiB, L2 65536 KiB, L3 1048576 KiB"]
    n = len(d) // 2
    assert list(d.host) == [0] * n + [1] * n
    names = [f["name"] for f in d.layout["fields"]]
    differ = {names[j] for j in np.nonzero((d.comps[: d.offsets[n]] != d.comps[d.offsets[n]:]).any(axis=0))[0]}
    # The cache-relative fields and, since layout 6, the host's L2 itself (L1 and L3 are equal).
    assert "host_l2_bytes" in differ and not {"host_l1_bytes", "host_l3_bytes"} & differ, differ
    assert all(x.endswith("caches_exceeded") for x in differ - {"host_l2_bytes"}), differ
    pred = np.ones(len(d))
    rows = train.breakdown(pred, d, np.arange(len(d)))
    assert rows["host:" + d.hosts[0]]["points"] == n and rows["host:" + d.hosts[1]]["points"] == n


def test_evaluate_gives_a_checkpoints_held_out_figures_alone_and_as_an_ensemble(trained, tmp_path):
    """onnx/evaluate.py on the test split reproduces what train.py measured there for the same
    checkpoint; on two checkpoints it scores the ensemble and lists each member's figures."""
    import evaluate
    tmp, _ = trained
    feats, ckpt = tmp / "features", tmp / "run" / "model.pt"
    out, npz = tmp_path / "one.json", tmp_path / "one.npz"
    assert evaluate.main(["--checkpoints", str(ckpt), "--data", str(feats), "--split", "test", "--json", str(out),
                          "--predictions", str(npz)]) == 0
    got = json.loads(out.read_text())
    want = json.loads((tmp / "run" / "metrics.json").read_text())["test"]["all"]
    assert got["programs"] == want["programs"] and got["members"] == []
    for key in ("spearman", "ndcg@5", "mape"):
        assert got["ensemble"]["all"][key] == pytest.approx(want[key], abs=1e-6), key
    # --predictions: every point of the test programs, with the measured speedup the data holds.
    data = data_mod.Featurized(feats)
    _, _, test_p = data_mod.split_programs(data.programs, 1)
    z = np.load(npz)
    assert sorted(z["point"]) == list(np.flatnonzero(np.isin(data.program, test_p)))
    assert np.array_equal(z["measured"], data.speedup[z["point"]]) and np.all(z["predicted"] > 0)
    other = tmp_path / "other"
    assert train.main(["--data", str(feats), "--out", str(other), "--quiet", "--epochs", "1", "--seed", "1"]) == 0
    out = tmp_path / "two.json"
    assert evaluate.main(["--checkpoints", str(ckpt), str(other / "model.pt"), "--data", str(feats),
                          "--split", "all", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["programs"] == len(data_mod.Featurized(feats).programs) and len(got["members"]) == 2
    assert all(-1 <= m["spearman"] <= 1 for m in got["members"])


def test_evaluate_leaves_out_the_programs_a_model_saw(trained, tmp_path):
    """--unseen-by MODEL_JSON drops the programs of its training.seen_programs from the split,
    and a model.json without them is refused rather than read as having seen nothing."""
    import evaluate
    tmp, _ = trained
    feats, ckpt = tmp / "features", tmp / "run" / "model.pt"
    programs = data_mod.Featurized(feats).programs
    seen = tmp_path / "model.json"
    seen.write_text(json.dumps({"training": {"seen_programs": programs[:3]}}))
    out = tmp_path / "unseen.json"
    assert evaluate.main(["--checkpoints", str(ckpt), "--data", str(feats), "--unseen-by", str(seen),
                          "--json", str(out)]) == 0
    assert json.loads(out.read_text())["programs"] == len(programs) - 3
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"training": {}}))
    with pytest.raises(SystemExit):
        evaluate.main(["--checkpoints", str(ckpt), "--data", str(feats), "--unseen-by", str(bare)])


def test_an_exported_model_records_the_programs_it_saw(trained, tmp_path):
    """export.seen_programs: every member's training and validation programs and its extra
    data, never a test program (what evaluate.py --unseen-by and report.py leave out)."""
    tmp, _ = trained
    data = data_mod.Featurized(tmp / "features")
    cfg = export.load_model(tmp / "run" / "model.pt")[1]
    train_p, val_p, test_p = data_mod.split_programs(data.programs, cfg["args"]["split_seed"])
    alone = export.seen_programs(data, [("a.pt", cfg)])
    assert set(alone) == {data.programs[i] for i in np.concatenate([train_p, val_p])}
    assert not set(alone) & {data.programs[i] for i in test_p}
    small = tmp_path / "small"
    small.mkdir()
    (small / "meta.json").write_text(json.dumps({"programs": ["elsewhere-p0"]}))
    extra = {**cfg, "args": {**cfg["args"], "extra_data": str(small)}}
    assert set(export.seen_programs(data, [("a.pt", cfg), ("b.pt", extra)])) == set(alone) | {"elsewhere-p0"}


def test_zeroed_features_read_as_zero_without_writing_the_mapped_tensors(trained):
    """Featurized maps its large tensors read-only (two trainings share one copy); dropped
    columns are zeroed in the copies `inputs` and `comp_rows` hand out, never in the files."""
    tmp, _ = trained
    d = data_mod.Featurized(tmp / "features")
    assert not d.comps.flags.writeable
    cols = [int(j) for j in np.nonzero(np.abs(d.comps).sum(axis=0))[0][:3]]
    before = np.array(d.comps[:, cols])
    d.zero_features(cols)
    assert np.array_equal(d.comps[:, cols], before) and before.any()
    assert not d.comp_rows(np.arange(d.offsets[-1]))[:, cols].any()
    x = d.inputs(np.arange(min(8, len(d))))
    assert not x[0][:, :, cols].any()


def test_the_domain_spans_every_members_training_data_and_a_missing_one_stops_the_export_first(trained, tmp_path):
    """export.min_work: the smallest work any member trained on, its --extra-data included;
    a member whose extra data is gone fails before anything is exported."""
    tmp, _ = trained
    feats = tmp / "features"
    data = data_mod.Featurized(feats)
    cfg = export.load_model(tmp / "run" / "model.pt")[1]
    alone = export.min_work(data, [("a.pt", cfg)])
    assert alone is not None and alone > 0
    small = tmp_path / "small"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", small, "--programs", "3"], check=True)
    extra = {**cfg, "args": {**cfg["args"], "extra_data": str(small)}}
    smallest = min(json.loads((small / "meta.json").read_text())["work"])
    assert export.min_work(data, [("a.pt", cfg), ("b.pt", extra)]) == min(alone, smallest)
    gone = {**cfg, "args": {**cfg["args"], "extra_data": str(tmp_path / "gone")}}
    with pytest.raises(SystemExit, match="b.pt was trained with --extra-data .*gone"):
        export.min_work(data, [("a.pt", cfg), ("b.pt", gone)])
    import torch
    ckpt = torch.load(tmp / "run" / "model.pt", map_location="cpu", weights_only=False)
    ckpt["config"]["args"]["extra_data"] = str(tmp_path / "gone")
    torch.save(ckpt, tmp_path / "gone.pt")
    out = tmp_path / "never.onnx"
    with pytest.raises(SystemExit, match="gone.pt was trained with --extra-data"):
        export.main(["--checkpoint", str(tmp_path / "gone.pt"), "--data", str(feats), "--dataset", str(DATASET),
                     "--out", str(out)])
    assert not out.exists()


def test_first_choices_are_scored_against_each_programs_best_by_how_far_it_goes():
    import metrics
    # Program 0 (best 1.5x): the model picks its best. Program 1 (best 20x): it picks the 5x.
    # Program 2 (best 10x): it picks the 10x. Program 3: one point, no choice to make.
    true = [1.0, 1.5, 1.0, 5.0, 20.0, 10.0, 2.0, 3.0]
    pred = [1.0, 2.0, 1.0, 9.0, 4.0, 3.0, 2.0, 1.0]
    groups = [0, 0, 1, 1, 1, 2, 2, 3]
    got = metrics.picks(pred, true, groups)
    assert got["best <2x"] == {"programs": 1, "pick_over_best": pytest.approx(1.0), "at_0.8": 1.0}
    assert got["best 2-8x"]["programs"] == 0
    big = got["best >=8x"]
    assert big["programs"] == 2
    assert big["pick_over_best"] == pytest.approx((0.25 * 1.0) ** 0.5)
    assert big["at_0.8"] == 0.5


def test_a_model_of_an_earlier_layout_starts_a_later_one_predicting_as_before():
    import torch
    from model import CostModel
    # A later layout inserts two fields (one inside, one at the end); the earlier model's
    # weights go to its fields by name, the new ones start at zero weight.
    later = {"hash": "b", "fields": [{"name": f"f{i}"} for i in range(12)]}
    earlier = {"hash": "a", "fields": [f for f in later["fields"] if f["name"] not in ("f3", "f11")]}
    torch.manual_seed(0)
    old, new = CostModel(10, dropout=0.0).eval(), CostModel(12, dropout=0.0).eval()
    old.set_normalization(np.random.rand(10), np.random.rand(10) + 0.5)
    new.set_normalization(np.random.rand(12), np.random.rand(12) + 0.5)
    fitted = (new.feature_mean.clone(), new.feature_scale.clone())
    new.load_state_dict(train.widened_state(old.state_dict(), new.state_dict(), earlier, later))
    x = torch.randn(5, 12)
    keep = [i for i in range(12) if i not in (3, 11)]
    with torch.no_grad():
        assert torch.allclose(new.embed_rows(x), old.embed_rows(x[:, keep]), atol=1e-6)
    # The added columns keep the data's standardization, and a layout that drops a field is refused.
    for i in (3, 11):
        assert new.feature_mean[i] == fitted[0][i] and new.feature_scale[i] == fitted[1][i]
    assert torch.equal(new.feature_scale[keep], old.feature_scale)
    with pytest.raises(SystemExit, match="lacks 1 fields"):
        train.widened_state(new.state_dict(), old.state_dict(), later, {"hash": "c", "fields": later["fields"][1:]})


def test_the_reference_keeps_each_points_host(tmp_path):
    import gzip
    import export
    # One program measured on two hosts: the Rust parity test featurizes each schedule for
    # the caches its own point records, so they must not be folded into the first point's.
    a = [{"level": 2, "bytes": 524288, "shared_by": 1}]
    b = [{"level": 2, "bytes": 1048576, "shared_by": 1}]
    rows = [{"program_id": "p", "mlir": "m", "schedule": "", "machine": {"caches": a}},
            {"program_id": "p", "mlir": "m", "schedule": "unroll(L0:2)", "machine": {"caches": b}},
            {"program_id": "p", "mlir": "m", "schedule": "tile(L0:16)", "machine": {"caches": a}},
            {"program_id": "q", "mlir": "n", "schedule": "", "machine": {"caches": b}}]
    with gzip.open(tmp_path / "d.jsonl.gz", "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))
    n = export.write_reference(tmp_path / "d.jsonl.gz", {("p", ""): 1.0, ("p", "unroll(L0:2)"): 2.0,
                                                          ("p", "tile(L0:16)"): 3.0}, tmp_path / "r.json")
    progs = json.loads((tmp_path / "r.json").read_text())["programs"]
    assert n == 3 and [(p["program_id"], p["caches"], p["schedules"], p["predicted"]) for p in progs] == [
        ("p", a, ["", "tile(L0:16)"], [1.0, 3.0]), ("p", b, ["unroll(L0:2)"], [2.0])]


def test_report_keeps_its_dated_sections(tmp_path):
    """onnx/report.py rewrites REPORT.md: the dated sections written by hand between its
    opening paragraph and the generated "## Data and model" come back in the same place."""
    import report
    path = tmp_path / "REPORT.md"
    assert report.dated_sections(path) == []
    path.write_text("# Title\n\nProduced by x.\n\n## Data and model\n\nold\n")
    assert report.dated_sections(path) == []
    path.write_text("# Title\n\nProduced by x.\n\n## Not shipped (today)\n\nwhy\n\n## Shipped (before)\n\nhow\n\n"
                    "## Data and model\n\nold\n")
    assert report.dated_sections(path) == ["## Not shipped (today)", "", "why", "", "## Shipped (before)", "", "how",
                                           ""]
