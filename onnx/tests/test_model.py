"""The model's recursion: padding never changes a prediction, and running the LSTMs only on
the nodes that have children (model.CostModel.summarize) gives what running them on every
padded slot gives."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import data as data_mod  # noqa: E402
import model as model_mod  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
DATASETS = [ROOT / "onnx" / "data" / "dataset.jsonl.gz", ROOT / "onnx" / "data" / "real" / "dataset.jsonl.gz"]


@pytest.fixture(scope="module", params=[0, 1], ids=["toy", "real"])
def featurized(request, tmp_path_factory):
    if not AUTOSCHED.exists():
        pytest.fail("build first (scripts/setup.sh): no build/cargo/release/autosched")
    out = tmp_path_factory.mktemp("feat") / "f"
    subprocess.run([AUTOSCHED, "featurize", DATASETS[request.param], "--out", out, "--programs", "30"], check=True)
    return data_mod.Featurized(out)


def summarize_every_slot(lstm, items, children, counts, empty):
    """The plain recursion step: the LSTM over every slot, padded or not."""
    b, n, h = items.shape
    s, c = children.shape[1], children.shape[2]
    base = (torch.arange(b, dtype=children.dtype) * n).view(b, 1, 1)
    seq = items.reshape(b * n, h)[(children + base).reshape(-1)].reshape(b * s, c, h)
    out, _ = lstm(seq)
    last = (counts.reshape(b * s) - 1).clamp(min=0)
    picked = torch.gather(out, 1, last.view(b * s, 1, 1).expand(b * s, 1, h)).reshape(b, s, h)
    return torch.where((counts > 0).unsqueeze(-1), picked, empty.view(1, 1, h).expand(b, s, h))


def test_only_nodes_with_children_go_through_the_lstm(featurized):
    torch.manual_seed(3)
    compact = model_mod.CostModel(featurized.layout["features"]).eval()
    plain = model_mod.CostModel(featurized.layout["features"]).eval()
    plain.load_state_dict(compact.state_dict())
    plain.summarize = summarize_every_slot
    d = featurized
    checked = 0
    for idx in data_mod.batches(d, range(len(d.programs)), 32, None, 3):
        x = d.inputs(idx)
        with torch.no_grad():
            a, b = compact(*x), plain(*x)
        assert torch.allclose(a, b, rtol=1e-5, atol=0), (a, b)
        checked += len(idx)
    assert checked == len(d)


def test_padding_never_changes_a_prediction(featurized):
    torch.manual_seed(4)
    m = model_mod.CostModel(featurized.layout["features"]).eval()
    d = featurized
    depth = d.layout["max_depth"]
    for idx in data_mod.batches(d, range(len(d.programs)), 32, None, 2)[:6]:
        with torch.no_grad():
            cropped = m(*d.inputs(idx))
            padded = m(*d.padded_inputs(idx, depth, at_least=3))
            # One point alone, cropped to its own sizes.
            alone = torch.cat([m(*d.inputs([i])) for i in idx])
        assert torch.allclose(cropped, padded, rtol=1e-5, atol=0)
        assert torch.allclose(cropped, alone, rtol=1e-5, atol=0)


def test_gradients_reach_every_part(featurized):
    torch.manual_seed(5)
    m = model_mod.CostModel(featurized.layout["features"]).train()
    d = featurized
    idx = data_mod.batches(d, range(len(d.programs)), 32, None, 4)[0]
    m(*d.inputs(idx)).log().sum().backward()
    for name in ["comp_mlp.0.weight", "comp_lstm.weight_ih_l0", "loop_lstm.weight_ih_l0", "merge.0.weight",
                 "head.0.weight", "no_comps"]:
        g = dict(m.named_parameters())[name].grad
        assert g is not None and bool(torch.isfinite(g).all()), name
    assert float(np.abs(dict(m.named_parameters())["comp_lstm.weight_ih_l0"].grad.numpy()).sum()) > 0


def test_the_shared_form_predicts_what_each_tree_predicts(featurized):
    """The exported form (model.shared over to_shared's distinct nodes) gives every candidate
    what its own tree gives, and shares what candidates have in common."""
    torch.manual_seed(6)
    m = model_mod.CostModel(featurized.layout["features"]).eval()
    d = featurized
    depth = d.layout["max_depth"]
    shared_somewhere = False
    for idx in data_mod.batches(d, range(len(d.programs)), 32, None, 3)[:8]:
        x = d.padded_inputs(idx, depth)
        sh = model_mod.to_shared(*x)
        with torch.no_grad():
            assert torch.allclose(m(*x), m.shared(*sh), rtol=1e-5, atol=0)
        # Nodes per level never exceed the candidates' own nodes; equal subtrees count once.
        nodes = int((x[2] + x[4] > 0).sum())
        distinct = int((sh[2] + sh[4] > 0).sum())
        assert distinct <= nodes
        shared_somewhere |= distinct < nodes
    assert shared_somewhere
    # A batch of one candidate twice has the nodes of one.
    i = [0, 0]
    sh = model_mod.to_shared(*d.padded_inputs(i, depth))
    one = model_mod.to_shared(*d.padded_inputs([0], depth))
    assert all(torch.equal(a, b) for a, b in zip(sh[:5], one[:5]))
    assert torch.equal(sh[5][0], sh[5][1])


def test_known_nests_stand_for_the_nests_they_were_computed_as(featurized):
    """The cached form (model.cached): nests returned by one call and given back as known ones
    in another give what computing them again gives, for one network and for an ensemble
    (a row of known nests per member), in a batch that mixes known and new nests."""
    torch.manual_seed(7)
    d = featurized
    f = d.layout["features"]
    one = model_mod.CostModel(f).eval()
    two = model_mod.Ensemble([model_mod.CostModel(f).eval(), model_mod.CostModel(f).eval()]).eval()
    depth = d.layout["max_depth"]
    batches = data_mod.batches(d, range(len(d.programs)), 32, None, 3)[:4]
    for m in (one, two):
        w = model_mod.networks(m)
        for idx in batches:
            x = d.padded_inputs(idx, depth)
            sh = model_mod.to_shared(*x)
            with torch.no_grad():
                ref = m.shared(*sh)
                nothing = torch.zeros(w, 1, 180)
                out, nests = m.cached(*model_mod.with_known(sh, nothing))
                assert torch.allclose(out, ref, rtol=1e-5, atol=0)
                assert nests.shape == (w, sh[1].shape[1], 180)
                # Every other root slot names its nest among the known ones instead.
                roots, counts = sh[5], sh[6]
                slots = torch.arange(roots.shape[1]).view(1, -1)
                mixed = torch.where((slots < counts.view(-1, 1)) & (slots % 2 == 0), roots, -1)
                again, _ = m.cached(*model_mod.with_known(sh, nests, mixed))
                assert torch.allclose(again, ref, rtol=1e-5, atol=0)
                # A wrong known nest changes the prediction: the known rows are read.
                wrong, _ = m.cached(*model_mod.with_known(sh, nests.flip(1) + 1.0, mixed))
                assert not torch.allclose(wrong, ref, rtol=1e-3, atol=0)


def test_derived_features_gather_the_innermost_loop_and_the_next_one_out(featurized):
    spec = model_mod.derive_spec(featurized.layout)
    names = {f["name"]: i for i, f in enumerate(featurized.layout["fields"])}
    m = model_mod.CostModel(featurized.layout["features"], derive=spec).eval()
    gathered = model_mod.DERIVED_SOURCES[2:]
    rows = torch.from_numpy(featurized.comps[:200].copy())
    got = m.derived(rows).numpy()
    assert got.shape == (len(rows), 2 * len(gathered))
    checked = 0
    for r, out in zip(rows.numpy(), got):
        loops = [lv for lv in range(featurized.layout["max_depth"]) if r[names[f"loop{lv}.present"]] > 0]
        if not loops:
            continue
        depth = {lv: round(float(np.expm1(r[names[f"loop{lv}.final_depth"]]))) for lv in loops}
        inner = [max(loops, key=lambda lv: depth[lv])]
        assert len(set(depth.values())) == len(loops), "a computation's loops end at distinct depths"
        above = sorted((lv for lv in loops if depth[lv] < depth[inner[0]]), key=lambda lv: depth[lv])
        for part, lv in ((0, inner[0]), (1, above[-1] if above else None)):
            want = [r[names[f"loop{lv}.{n}"]] if lv is not None else 0.0 for n in gathered]
            np.testing.assert_allclose(out[part * len(gathered):(part + 1) * len(gathered)], want, rtol=1e-6)
        checked += 1
    assert checked > 20
