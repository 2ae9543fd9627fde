"""Adaptation smoke test: a tiny base network (trained two epochs on a few committed
programs), `autosched adapt` with a tiny budget of toy-size programs measured here, the
before/after figures written, and the adapted model usable by the pass."""

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import adapt  # noqa: E402
import train  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
PLUGIN = ROOT / "build" / "lib" / "libAffineAutosched.so"
DATASET = ROOT / "onnx" / "data" / "dataset.jsonl.gz"


@pytest.mark.skipif(not AUTOSCHED.exists(), reason="build first (scripts/setup.sh)")
def test_adapt_smoke(tmp_path):
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "30"], check=True)
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "base"), "--epochs", "2", "--quiet"]) == 0
    # A second member beside it, as onnx/report.py ships an ensemble: adapted too.
    assert train.main(["--data", str(feats), "--out", str(tmp_path / "seed1"), "--epochs", "1", "--seed", "1",
                       "--quiet"]) == 0
    (tmp_path / "base" / "model.seed1.pt").write_bytes((tmp_path / "seed1" / "model.pt").read_bytes())
    out = tmp_path / "adapted.onnx"
    r = subprocess.run([AUTOSCHED, "adapt", "--budget", "68", "--sizes", "toy", "--base", tmp_path / "base" / "model.pt",
                        "--work", tmp_path / "work", "--out", out, "--no-scratch", "--no-quiet-wait", "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "held-out programs measured here" in r.stdout and "Spearman" in r.stdout, r.stdout
    result = json.loads((tmp_path / "work" / "model" / "adapt.json").read_text())
    assert result["mode"] == "tree"
    assert result["members"] == 2 and len(result["fine_tuning_members"]) == 2
    assert (tmp_path / "work" / "model" / "model.seed1.pt").exists()
    assert json.loads(out.with_suffix(".json").read_text())["networks"] == 2
    assert result["programs"]["held_out"] >= 1 and result["programs"]["fine_tune"] >= 1
    for key in ("held_out_before", "held_out_after"):
        assert result[key]["points"] > 0
    # The encoder stayed as it was: only the tree and the head were trained.
    assert result["fine_tuning"]["trained_parameters"] < result["fine_tuning"]["total_parameters"]
    # A budget curve: fewer fine-tuning programs, the same held-out ones.
    members = [str(tmp_path / "base" / "model.pt"), str(tmp_path / "base" / "model.seed1.pt")]
    assert adapt.main(["--base", *members, "--data", str(tmp_path / "work" / "features"),
                       "--out", str(tmp_path / "curve"), "--fine-tune-programs", "1", "--no-scratch", "--quiet",
                       "--epochs", "1"]) == 0
    curve = json.loads((tmp_path / "curve" / "adapt.json").read_text())
    assert curve["programs"]["fine_tune"] == 1
    assert curve["programs"]["held_out"] == result["programs"]["held_out"]
    assert curve["held_out_before"] == result["held_out_before"]
    assert 0 < curve["fine_tune_points"] <= result["fine_tune_points"]
    # train.py's split by program id, a budget in points, and a reference network's figures on
    # the same held-out programs (here the base itself: its figures are the "before" ones).
    import data as data_mod
    feats_here = data_mod.Featurized(tmp_path / "work" / "features")
    assert adapt.main(["--base", members[0], "--data", str(tmp_path / "work" / "features"),
                       "--out", str(tmp_path / "ref"), "--split", "train", "--fine-tune-points", "30",
                       "--reference", members[0], "--no-scratch", "--quiet", "--epochs", "1"]) == 0
    ref = json.loads((tmp_path / "ref" / "adapt.json").read_text())
    assert ref["split"] == "train"
    assert ref["programs"]["held_out"] == len(data_mod.split_programs(feats_here.programs, 1)[2])
    # The budget holds every point the adaptation used: its validation programs too.
    assert 0 < ref["fine_tune_points"] and ref["fine_tune_points"] + ref["validation_points"] <= 30
    assert ref["held_out_reference"] == ref["held_out_before"]
    # Rehearsal: points of the base's own data mixed in, and its test programs scored before
    # and after (what fine-tuning forgot).
    assert adapt.main(["--base", *members, "--data", str(tmp_path / "work" / "features"),
                       "--out", str(tmp_path / "replay"), "--replay", str(feats), "--replay-points", "40",
                       "--no-scratch", "--quiet", "--epochs", "1"]) == 0
    rep = json.loads((tmp_path / "replay" / "adapt.json").read_text())["replay"]
    base_data = data_mod.Featurized(feats)
    train_b, _, test_b = data_mod.split_programs(base_data.programs, 1)
    assert 0 < rep["points"] <= 40 and 0 < rep["programs"] <= len(train_b)
    assert rep["held_out_before"]["programs"] == rep["held_out_after"]["programs"] == len(test_b)
    with pytest.raises(SystemExit, match="fine-tuning programs"):
        adapt.main(["--base", str(tmp_path / "base" / "model.pt"), "--data", str(tmp_path / "work" / "features"),
                    "--out", str(tmp_path / "curve"), "--fine-tune-programs", "1000", "--no-scratch", "--quiet"])
    # The pass takes the adapted model.
    p = subprocess.run(["mlir-opt-22", f"--load-pass-plugin={PLUGIN}", "--mlir-print-op-on-diagnostic=false",
                        f"--pass-pipeline=builtin.module(func.func(affine-autosched{{model={out}}}))",
                        ROOT / "test-mlir" / "gemm.mlir", "-o", "/dev/null"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "remark: affine-autosched: @gemm:" in p.stderr
    # A budget too small, or no base, is refused with the reason.
    r = subprocess.run([AUTOSCHED, "adapt", "--budget", "5", "--base", tmp_path / "base" / "model.pt", "--out", out],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--budget must be at least" in r.stderr
    r = subprocess.run([AUTOSCHED, "adapt", "--budget", "100", "--base", tmp_path / "none.pt", "--out", out],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--base: no checkpoint" in r.stderr


@pytest.mark.skipif(not AUTOSCHED.exists(), reason="build first (scripts/setup.sh)")
def test_a_base_of_an_earlier_layout_is_widened_to_the_data_and_predicts_as_before(tmp_path):
    import numpy as np
    import torch
    import data as data_mod
    from model import CostModel
    feats = tmp_path / "features"
    subprocess.run([AUTOSCHED, "featurize", DATASET, "--out", feats, "--programs", "6"], check=True)
    data = data_mod.Featurized(feats)
    # The shipped model may be of the layout before the host fields: such a base, with its
    # layout.json beside it, is widened (the host columns at zero weight).
    fields = [f for f in data.layout["fields"] if not f["name"].startswith("host_")]
    assert len(fields) == len(data.layout["fields"]) - 3
    earlier = {**data.layout, "hash": "earlier", "features": len(fields), "fields": fields}
    torch.manual_seed(0)
    old = CostModel(len(fields), dropout=0.0, laplace=0.8).eval()
    rows = data.comp_rows(np.arange(len(data.comps)))
    keep = [i for i, f in enumerate(data.layout["fields"]) if not f["name"].startswith("host_")]
    old.set_normalization(rows[:, keep].mean(axis=0), rows[:, keep].std(axis=0))
    config = {"layout_hash": "earlier", "features": len(fields), "dropout": 0.0, "residual": True, "laplace": 0.8}
    torch.save({"config": config, "state": old.state_dict()}, tmp_path / "model.pt")
    (tmp_path / "layout.json").write_text(json.dumps(earlier))
    model, cfg = adapt.load_base(tmp_path / "model.pt", data)
    assert cfg["layout_hash"] == data.layout["hash"] and cfg["widened_from"] == "earlier"
    x = torch.from_numpy(rows)
    with torch.no_grad():
        assert torch.allclose(model.eval().embed_rows(x), old.embed_rows(x[:, keep]), atol=1e-5)
    (tmp_path / "layout.json").unlink()
    with pytest.raises(SystemExit, match="layout.json"):
        adapt.load_base(tmp_path / "model.pt", data)
