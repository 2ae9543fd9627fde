"""Export a trained model (train.py's model.pt), or an ensemble of several, to ONNX, and
check parity.

    .venv/bin/python onnx/export.py --checkpoint build/train-full/model.pt --data build/features \\
        --out onnx/model.onnx
    .venv/bin/python onnx/export.py --checkpoint run-s0/model.pt run-s1/model.pt run-s2/model.pt ...

An ensemble (several checkpoints, e.g. the same data trained with different --seed) is one
graph whose output has a column per member: the pass predicts their geometric mean and, in
model mode, applies a schedule only when its most pessimistic member predicts a gain.

One graph scores a batch of candidates: inputs as src/features/tensors.rs lays them out,
with the candidates (B), computations (K), node slots (S) and children (C) dynamic and the
depth fixed to the layout's max_depth. The graph's metadata carries the layout hash, which
the Rust side checks before using the model.

Writes next to OUT: OUT's .json (training config, held-out metrics, export facts) and a
reference file (onnx/reference.json) of programs, schedules and the PyTorch predictions,
which the Rust tests reproduce through their own featurizer and ONNX Runtime.
Parity: PyTorch and onnxruntime must agree within --tolerance (relative) on every point of
the held-out programs; the export fails otherwise.
"""

import argparse
import collections
import gzip
import re
import json
import pathlib
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import data as data_mod  # noqa: E402
import train as train_mod  # noqa: E402
from preoptimize import preoptimize  # noqa: E402
from model import (CACHED_INPUT_NAMES, CACHED_OUTPUT_NAMES, Cached, CostModel, Ensemble, networks,  # noqa: E402
                   to_shared, with_known)


def load_model(checkpoint):
    ck = torch.load(checkpoint, map_location="cpu", weights_only=False)
    cfg = ck["config"]
    model = CostModel(cfg["features"], dropout=cfg.get("dropout", 0.225), residual=cfg.get("residual", True),
                      heads=cfg.get("heads", 1), laplace=cfg.get("laplace"), derive=cfg.get("derive"))
    model.load_state_dict(ck["state"])
    model.eval()
    return model, cfg


def export(model, data, path, max_depth):
    # Example sizes of at least 2, so that no dynamic size is specialized to 1.
    # A point of each of the first programs: distinct computations, so that U is not 1 either.
    idx = np.unique(data.program, return_index=True)[1][:4]
    # Two known nests (unused by the example's roots): K is not specialized to 1 either.
    x = with_known(to_shared(*data.padded_inputs(idx, max_depth, at_least=2), at_least=2), unknown(model, 2))
    b, s, c, u, n, k = (torch.export.Dim(n) for n in ("B", "S", "C", "U", "N", "K"))
    dyn = {
        "unique_comps": {0: u},
        "node_comps": {1: n, 2: c}, "node_comp_counts": {1: n},
        "node_loops": {1: n, 2: c}, "node_loop_counts": {1: n},
        "root_children": {0: b, 1: s}, "root_counts": {0: b},
        "known_nests": {1: k},
    }
    torch.onnx.export(Cached(model).eval(), tuple(x), str(path), input_names=CACHED_INPUT_NAMES,
                      output_names=CACHED_OUTPUT_NAMES, dynamic_shapes=dyn, dynamo=True, external_data=False,
                      verbose=False, report=False, optimize=True)


def embed_size(model):
    return model.members[0].embed if isinstance(model, Ensemble) else model.embed


def unknown(model, k=1):
    """`known_nests` when none is known: rows no root names (the graph takes at least one)."""
    return torch.zeros(networks(model), k, embed_size(model))


def seen_programs(data, members):
    """The programs any member trained or validated on: the training and validation splits of
    its data and all of its --extra-data (what a later evaluation must leave out)."""
    train_p, val_p, _ = data_mod.split_programs(data.programs, members[0][1]["args"]["split_seed"])
    seen = {data.programs[i] for i in np.concatenate([train_p, val_p])}
    for _, cfg in members:
        extra = cfg["args"].get("extra_data")
        if extra:
            seen |= set(json.loads((pathlib.Path(extra) / "meta.json").read_text())["programs"])
    return sorted(seen)


def min_work(data, members):
    """The smallest work (`autosched featurize`'s per-program `work`: iterations of all
    computations) among the programs any member was trained on: the training split of its
    data and its --extra-data. None when the featurized sets predate the field. `members`
    holds (checkpoint path, config) pairs; a member's extra data that is gone is an error
    here, before the export's minutes are spent."""
    work = data.meta.get("work")
    if work is None:
        return None
    train_p, _, _ = data_mod.split_programs(data.programs, members[0][1]["args"]["split_seed"])
    works = [work[i] for i in train_p]
    for path, cfg in members:
        extra = cfg["args"].get("extra_data")
        if not extra:
            continue
        meta = pathlib.Path(extra) / "meta.json"
        if not meta.exists():
            raise SystemExit(f"{path} was trained with --extra-data {extra}, which is not there: featurize "
                             f"that data again into it (`autosched featurize ... --out {extra}`) to export")
        extra_meta = json.loads(meta.read_text())
        if "work" not in extra_meta:
            return None
        works += extra_meta["work"]
    return float(min(works)) if works else None


def set_metadata(path, entries):
    m = onnx.load(str(path))
    del m.metadata_props[:]
    for key, value in entries.items():
        p = m.metadata_props.add()
        p.key, p.value = key, str(value)
    onnx.save(m, str(path))


def parity(model, session, data, programs, max_depth, tolerance):
    """Largest relative difference between PyTorch and onnxruntime over `programs`: the graph
    computing every nest, and given back the nests it returned as known ones."""
    worst, points = 0.0, 0
    torch_pred = np.empty(len(data))
    for idx in data_mod.batches(data, programs):
        x = data.padded_inputs(idx, max_depth)
        with torch.no_grad():
            ref = model(*x).numpy()
        shared = to_shared(*x)
        run = lambda inputs: session.run(None, {n: t.numpy() for n, t in zip(CACHED_INPUT_NAMES, inputs)})
        got, nests = run(with_known(shared, unknown(model)))
        # Every root names a known nest now (the ones just returned, in the tables' order).
        roots, counts = shared[5], shared[6]
        known_of = torch.where(torch.arange(roots.shape[1]).view(1, -1) < counts.view(-1, 1), roots, -1)
        again, _ = run(with_known(shared, torch.from_numpy(nests), known_of))
        worst = max(worst, float(np.max(np.abs(got - ref) / np.abs(ref))), float(np.max(np.abs(again - ref) / np.abs(ref))))
        # An ensemble's prediction is its members' geometric mean (as on the Rust side).
        torch_pred[idx] = np.exp(np.log(ref).mean(axis=-1)) if ref.ndim == 2 else ref
        points += len(idx)
    if worst > tolerance:
        raise SystemExit(f"parity failed: onnxruntime differs from PyTorch by {worst:.2e} (relative)")
    return worst, points, torch_pred


def reference(data, dataset_path, programs, torch_pred, out, count):
    """Programs (MLIR text), their schedules and PyTorch's predictions, for the Rust tests:
    one entry per program and host (a program's points may come from several hosts, and the
    features read the host's caches). A schedule measured more than once in a program is
    left out: which of its points a prediction belongs to is ambiguous."""
    want = {data.programs[p] for p in (programs if count <= 0 else programs[:count])}
    points, seen = {}, collections.Counter()
    for i, s in enumerate(data.meta["schedules"]):
        pid = data.programs[data.program[i]]
        if pid in want:
            points[(pid, s)] = float(torch_pred[i])
            seen[(pid, s)] += 1
    return write_reference(dataset_path, {k: v for k, v in points.items() if seen[k] == 1}, out)


def newest_space(dataset_path):
    """The newest search space (datagen::sampler::SPACE, each point's `space`; 0 where a point
    records none) of the points in the dataset: model mode keeps to the steps that space had
    (src/search/evaluate.rs, `skip_peeling`)."""
    space = re.compile(r'"space":\s*(\d+)')
    newest = 0
    with gzip.open(dataset_path, "rt") as f:
        for line in f:
            m = space.search(line)
            if m:
                newest = max(newest, int(m.group(1)))
    return newest


def write_reference(dataset_path, points, out):
    """reference.json of `points` ((program id, schedule) -> prediction), each program's
    points grouped by the caches they record."""
    progs = {}
    with gzip.open(dataset_path, "rt") as f:
        for line in f:
            r = json.loads(line)
            key = (r["program_id"], r["schedule"])
            if key in points:
                # The host it was measured on: the features read its caches.
                caches = (r.get("machine") or {}).get("caches", [])
                p = progs.setdefault((r["program_id"], json.dumps(caches, sort_keys=True)),
                                     {"program_id": r["program_id"], "mlir": r["mlir"], "caches": caches,
                                      "schedules": [], "predicted": []})
                p["schedules"].append(r["schedule"])
                p["predicted"].append(points[key])
    out.write_text(json.dumps({"programs": list(progs.values())}, indent=0))
    return sum(len(p["schedules"]) for p in progs.values())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True, nargs="+",
                   help="train.py's model.pt; several make an ensemble (same data and split)")
    p.add_argument("--data", required=True, help="the featurized dataset the model was trained on")
    p.add_argument("--dataset", default="onnx/data/dataset.jsonl.gz", help="its JSON Lines source")
    p.add_argument("--out", required=True)
    p.add_argument("--reference", default=None, help="reference file (default: OUT's directory/reference.json)")
    p.add_argument("--reference-programs", type=int, default=6, help="held-out programs in the reference (0: all)")
    p.add_argument("--tolerance", type=float, default=1e-4)
    args = p.parse_args(argv)

    loaded = [load_model(c) for c in args.checkpoint]
    cfg = loaded[0][1]
    for c, (_, other) in zip(args.checkpoint, loaded):
        if (other["layout_hash"], other["args"]["split_seed"]) != (cfg["layout_hash"], cfg["args"]["split_seed"]):
            raise SystemExit(f"{c}: the members of an ensemble need one layout and one split")
    if len(loaded) > 1 and any(c.get("heads", 1) > 1 for _, c in loaded):
        raise SystemExit("an ensemble's members must have one head each (a network with --heads is an "
                         "ensemble already)")
    if len(loaded) > 1 and len({c.get("laplace") for _, c in loaded}) > 1:
        raise SystemExit("an ensemble's members must all predict a Laplace interval of one coverage, or none")
    data = data_mod.Featurized(args.data)
    if data.layout["hash"] != cfg["layout_hash"]:
        raise SystemExit(f"{args.data} has layout {data.layout['hash']}, the model was trained on {cfg['layout_hash']}")
    trained = list(zip(args.checkpoint, (c for _, c in loaded)))
    domain = min_work(data, trained)
    calibration = None
    if len(loaded) == 1:
        model = loaded[0][0]
    else:
        model = Ensemble([m for m, _ in loaded]).eval()
        if cfg.get("laplace"):
            # The members' mean interval is narrower in truth than theirs (their errors partly
            # cancel): calibrated again, on the validation programs, as train.py does one network.
            _, val_p, _ = data_mod.split_programs(data.programs, cfg["args"]["split_seed"])
            before, after, factor = train_mod.calibrate_laplace(model, data, val_p, "cpu", cfg["args"]["batch"],
                                                                cfg["laplace"])
            calibration = {"coverage_before": before, "coverage_after": after, "factor": factor}
    # Columns of the output: members, heads, or a Laplace interval's two ends.
    members = 2 if cfg.get("laplace") else (len(loaded) if len(loaded) > 1 else cfg.get("heads", 1))
    max_depth = data.layout["max_depth"]
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t = time.time()
    export(model, data, out, max_depth)
    metadata = {"layout_hash": cfg["layout_hash"], "features": cfg["features"], "max_depth": max_depth,
                "members": members,
                "output": "interval" if cfg.get("laplace") else "members",
                "producer": "affine-autosched onnx/export.py"}
    if cfg.get("laplace"):
        # The two-sided coverage the interval's ends are calibrated to: the pass re-reads the
        # interval at the confidence its user asks for (option `confidence`).
        metadata["coverage"] = repr(cfg["laplace"])
    if domain is not None:
        # The pass keeps the original of a function smaller than this (model mode).
        metadata["min_work"] = repr(domain)
    data_space = newest_space(args.dataset)
    metadata["data_space"] = str(data_space)
    set_metadata(out, metadata)
    # The graph as ONNX Runtime optimizes it, so that the pass does not optimize it again on
    # every run; parity below is checked on this graph.
    optimized = preoptimize(out)
    export_s = time.time() - t
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    _, _, test_p = data_mod.split_programs(data.programs, cfg["args"]["split_seed"])
    worst, points, torch_pred = parity(model, session, data, test_p, max_depth, args.tolerance)
    ref_path = pathlib.Path(args.reference) if args.reference else out.parent / "reference.json"
    n_ref = reference(data, args.dataset, test_p, torch_pred, ref_path, args.reference_programs)
    metrics_path = pathlib.Path(args.checkpoint[0]).parent / "metrics.json"
    info = {
        "model": out.name,
        "layout_hash": cfg["layout_hash"],
        "bytes": out.stat().st_size,
        "parameters": cfg.get("parameters"),
        "export_seconds": round(export_s, 1),
        "parity": {"points": points, "max_relative_difference": worst, "tolerance": args.tolerance},
        "reference_points": n_ref,
        "members": members,
        "networks": len(loaded),
        "min_work": domain,
        "data_space": data_space,
        "graph_optimized": optimized,
        # What report.py and evaluate.py --unseen-by read: the data this model saw, so that a
        # later dataset (grown, merged) is scored only on programs it never saw.
        "training": {**cfg, "data_stamp": data_mod.digest(args.dataset), "seen_programs": seen_programs(data, trained)},
    }
    if calibration:
        info["ensemble_calibration"] = calibration
    if metrics_path.exists():
        info["metrics"] = json.loads(metrics_path.read_text())
        info["metrics"].pop("config", None)
    out.with_suffix(".json").write_text(json.dumps(info, indent=1))
    print(f"exported {out} ({out.stat().st_size / 1e6:.1f} MB); PyTorch vs onnxruntime on {points} held-out "
          f"points: max relative difference {worst:.1e}; {n_ref} reference points in {ref_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
