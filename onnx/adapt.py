"""Adapt the shipped cost model to this machine: fine-tune its weights on a small dataset
measured here, and say how well it ranks held-out programs measured here, before and after.

    .venv/bin/python onnx/adapt.py --base onnx/model.pt --data build/adapt/features --out build/adapt/model
    (`autosched adapt --budget N --out model.onnx` measures the data, featurizes it, runs this
    and exports the result)

What is fine-tuned (--mode):
  tree (default)  the recursive LSTMs, the merge and the head; the computation encoder and
                  its input standardization stay as shipped. The encoder says what a
                  computation is (its accesses, operations, the schedule's tags on its
                  loops), which does not change with the machine; how loops and computations
                  combine into a run time (cache sizes, vector width, cores, the cost of
                  threads) does, and that lives in the tree and the head.
  head            only the head (the least data-hungry; the weakest when machines differ in
                  more than a scale).
  all             every weight, at the same low rate.
A low learning rate and early stopping on a validation part of the new data keep the
shipped model's knowledge where the new data says nothing. The held-out programs (never
trained on) give the before/after figures, next to a network trained from scratch on the
same small data (what the data alone can teach): adaptation is worth it when it beats both.

Fine-tuning on data of a few kinds of programs forgets the others: on the Intel host, the
pair fine-tuned on four contraction classes alone decided syrk and syr2k far worse (onnx/REPORT.md,
2026-12-07). `--replay FEATURES` (the shipped dataset, featurized by the same build) mixes
points of its training programs into every epoch (rehearsal; as many as the new data's
unless --replay-points) and scores its test programs before and after, so what was forgotten
shows in the figures.

An ensemble (the shipped model is one: onnx/model.pt and onnx/model.seed1.pt) is adapted
member by member, each on the same data with its own loss (a `--laplace-mean regression`
member as it was trained); the figures are the ensemble's, as the pass uses it.

Writes OUT/model.pt (train.py's checkpoint format, for onnx/export.py), OUT/model.seedK.pt
for the other members, and OUT/adapt.json.
"""

import argparse
import json
import pathlib
import sys
import time

import numpy as np
import torch
from tqdm import tqdm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import data as data_mod  # noqa: E402
import train as train_mod  # noqa: E402
from model import CostModel, Ensemble  # noqa: E402

MODES = {
    "tree": lambda name: not name.startswith("comp_mlp."),
    "head": lambda name: name.startswith("head.") or name.startswith("head_list."),
    "all": lambda name: True,
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, nargs="+",
                   help="the shipped model's checkpoints (onnx/model.pt, then onnx/model.seed1.pt ...)")
    p.add_argument("--data", required=True, help="`autosched featurize` output of data measured on this machine")
    p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=sorted(MODES), default="tree")
    p.add_argument("--held-out", type=float, default=0.3, help="fraction of the programs kept for the figures")
    p.add_argument("--split", choices=["adapt", "train"], default="adapt",
                   help="adapt: --held-out of the programs held out, 15%% of the rest for validation (seeded by "
                        "--seed); train: train.py's split by a hash of each program's id (--split-seed): its "
                        "test programs are held out, its validation programs validate, so that a network "
                        "train.py trained on the same data (--reference) was never trained on the held-out ones")
    p.add_argument("--split-seed", type=int, default=1, help="with --split train: train.py's --split-seed")
    p.add_argument("--reference", nargs="+", default=[],
                   help="checkpoints of a network trained on a full dataset measured on this machine (train.py "
                        "with --split-seed as here, on data holding these programs): its figures on the same "
                        "held-out programs are the target's comparison")
    p.add_argument("--fine-tune-programs", type=int, default=0,
                   help="fine-tune on only the first N of the fine-tuning programs (0: all); the validation and "
                        "held-out programs stay those of the whole data, so runs with several N on one "
                        "measurement make a budget curve on one held-out set")
    p.add_argument("--fine-tune-points", type=int, default=0,
                   help="a budget in measured points, as the issue states it (5%% of the shipped dataset): the "
                        "first fine-tuning programs whose points add up to at most N, 15%% of them (the last) "
                        "validating in place of the split's validation programs (0: all, as split)")
    p.add_argument("--replay", metavar="FEATURES",
                   help="`autosched featurize` output of the data the base model was trained on (the shipped "
                        "dataset): fine-tuning mixes in points of its training programs (rehearsal), so that "
                        "what the new data does not cover is not forgotten; the figures then also give the "
                        "base data's test programs before and after (--replay-held-out)")
    p.add_argument("--replay-points", type=int, default=0,
                   help="with --replay: points of the base data mixed in (0: as many as the fine-tuning points)")
    p.add_argument("--replay-held-out", type=int, default=300,
                   help="with --replay: test programs of the base data (train.py's split, --split-seed) scored "
                        "before and after, to see what fine-tuning forgot")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=6)
    p.add_argument("--max-lr", type=float, default=3e-4)
    p.add_argument("--no-scratch", action="store_true", help="skip the from-scratch comparison")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def split(n_programs, held_out, seed):
    """Programs for (fine-tuning, validation, held-out figures): none in two parts."""
    order = np.random.default_rng(seed + 104729).permutation(n_programs)
    h = max(1, int(round(held_out * n_programs)))
    rest = order[h:]
    v = max(1, int(round(0.15 * len(rest)))) if len(rest) > 1 else 0
    return rest[v:], rest[:v], order[:h]


def within_points(data, programs, points):
    """The first of `programs` whose points in `data` add up to at most `points`."""
    sizes = np.bincount(data.program, minlength=len(data.programs))[programs]
    return programs[:int(np.searchsorted(np.cumsum(sizes), points, side="right"))]


def load_base(path, data):
    """The base network, for `data`'s layout: a network of an earlier layout (its
    layout.json beside it) is widened to it, the added columns at zero weight (it predicts
    as before; train.widened_state) and standardized on `data`."""
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    cfg = dict(ckpt["config"])
    layout = data.layout
    model = CostModel(layout["features"], dropout=cfg["dropout"], residual=cfg["residual"],
                      heads=cfg.get("heads", 1), laplace=cfg.get("laplace"), derive=cfg.get("derive"))
    if cfg["layout_hash"] == layout["hash"]:
        model.load_state_dict(ckpt["state"])
        return model, cfg
    beside = pathlib.Path(path).with_name("layout.json")
    earlier = json.loads(beside.read_text()) if beside.exists() else None
    if earlier is None or earlier["hash"] != cfg["layout_hash"] or cfg.get("derive"):
        raise SystemExit(f"{path} was trained on layout {cfg['layout_hash']}; the new data has {layout['hash']} "
                         f"(featurize it with the same build as the shipped model, or put the model's layout.json "
                         f"beside it)")
    rows = data.comp_rows(np.arange(len(data.comps)))
    model.set_normalization(rows.mean(axis=0), rows.std(axis=0))
    model.load_state_dict(train_mod.widened_state(ckpt["state"], model.state_dict(), earlier, layout))
    cfg.update(features=layout["features"], layout_hash=layout["hash"], widened_from=earlier["hash"])
    return model, cfg


def fit(model, data, train_p, val_p, trainable, args, desc, replay=None):
    """Trains the parameters `trainable(name)` selects; early stopping on validation (of the
    new data). `replay`: (data, programs) of the base model's own data, mixed into every epoch."""
    params = []
    for n, p in model.named_parameters():
        p.requires_grad_(trainable(n))
        if p.requires_grad:
            params.append(p)
    if not params:
        raise SystemExit("nothing to train in this mode")
    sources = [(data, train_p)] + ([replay] if replay is not None else [])
    # Several heads keep their spread as train.py made it: each sees the points with its own
    # bootstrap weights.
    n_heads = getattr(model, "heads", 1)
    batches, cache, tensors = [], {}, []
    for s, (d, progs) in enumerate(sources):
        for b in data_mod.batches(d, progs, 32, np.random.default_rng(args.seed + s), 16):
            batches.append((s, b))
            cache[id(b)] = d.inputs(b)
        tensors.append((torch.from_numpy(d.speedup), torch.from_numpy(d.censored),
                        torch.from_numpy(np.where(d.noisy, 0.5, 1.0).astype(np.float32)),
                        torch.from_numpy(np.random.default_rng(args.seed + 7919 + s).poisson(1.0, size=(len(d), n_heads))
                                         .astype(np.float32))))
    val_batches = data_mod.batches(data, val_p, 32) if len(val_p) else []
    opt = torch.optim.AdamW(params, lr=args.max_lr, weight_decay=0.0075)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.max_lr, epochs=args.epochs,
                                                steps_per_epoch=max(1, len(batches)))
    rng = np.random.default_rng(args.seed)

    def val_loss():
        if not val_batches:
            return 0.0
        vp = train_mod.predict(model, data, val_batches, torch.device("cpu"))
        vidx = np.concatenate(val_batches)
        return float(np.mean(np.abs(np.log(vp[vidx]) - np.log(data.speedup[vidx]))))

    best = (val_loss(), {k: v.clone() for k, v in model.state_dict().items()}, 0)
    history = [{"epoch": 0, "val_loss": best[0]}]
    for epoch in tqdm(range(args.epochs), desc=desc, disable=args.quiet):
        model.train()
        order = list(range(len(batches)))
        rng.shuffle(order)
        for i in order:
            s, idx = batches[i]
            targets, censored, weights, boot = tensors[s]
            raw = model(*cache[id(idx)])
            if getattr(model, "laplace", None):
                mu, b = model.laplace_parts(raw)
                loss = train_mod.laplace_training_loss(mu, b, targets[idx], weights[idx], censored[idx],
                                                       getattr(args, "laplace_mean", "likelihood"))
            else:
                heads = [raw] if raw.dim() == 1 else [raw[:, m] for m in range(raw.shape[1])]
                loss = sum(train_mod.regression_loss(h, targets[idx],
                                                     weights[idx] * (boot[idx, m] if len(heads) > 1 else 1.0),
                                                     censored[idx], "log_l1")
                           for m, h in enumerate(heads)) / len(heads)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        v = val_loss()
        history.append({"epoch": epoch + 1, "val_loss": v})
        if not val_batches:
            # No validation programs (a tiny budget): the last epoch is kept.
            best = (v, {k: t.clone() for k, t in model.state_dict().items()}, epoch + 1)
        elif v < best[0]:
            best = (v, {k: t.clone() for k, t in model.state_dict().items()}, epoch + 1)
        elif epoch + 1 - best[2] >= args.patience:
            break
    model.load_state_dict(best[1])
    for p in model.parameters():
        p.requires_grad_(True)
    return {"best_epoch": best[2], "epochs_run": len(history) - 1, "history": history,
            "trained_parameters": int(sum(p.numel() for n, p in model.named_parameters() if trainable(n))),
            "total_parameters": int(sum(p.numel() for p in model.parameters()))}


def figures(model, data, programs):
    fig, _ = train_mod.evaluate(model, data, programs, torch.device("cpu"), 32)
    return fig["all"]


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = data_mod.Featurized(args.data)
    if args.split == "train":
        train_p, val_p, held_p = data_mod.split_programs(data.programs, args.split_seed)
    else:
        train_p, val_p, held_p = split(len(data.programs), args.held_out, args.seed)
    if args.fine_tune_programs:
        if args.fine_tune_programs > len(train_p):
            raise SystemExit(f"--fine-tune-programs {args.fine_tune_programs}: the data has {len(train_p)} "
                             "fine-tuning programs")
        train_p = train_p[:args.fine_tune_programs]
    if args.fine_tune_points:
        # The budget is every point measured for the adaptation (validation included), so
        # the validation programs come out of it: the last 15% of the budget's programs.
        budget = within_points(data, train_p, args.fine_tune_points)
        v = int(round(0.15 * len(budget))) if len(budget) > 1 else 0
        train_p, val_p = budget[:len(budget) - v], budget[len(budget) - v:]
    if len(train_p) == 0:
        raise SystemExit(f"{len(data.programs)} programs: too few to fine-tune and hold some out")
    replay, replay_held = None, None
    if args.replay:
        rdata = data_mod.Featurized(args.replay)
        if rdata.layout["hash"] != data.layout["hash"]:
            raise SystemExit(f"--replay {args.replay}: layout {rdata.layout['hash']}, the new data's is "
                             f"{data.layout['hash']} (featurize both with the same build)")
        r_train, _, r_test = data_mod.split_programs(rdata.programs, args.split_seed)
        order = np.random.default_rng(args.seed + 15485863).permutation(r_train)
        want = args.replay_points or int(np.isin(data.program, train_p).sum())
        chosen = within_points(rdata, order, want)
        replay = (rdata, chosen if len(chosen) else order[:1])
        replay_held = np.random.default_rng(args.seed + 32452843).permutation(r_test)[:args.replay_held_out]
    loaded = [load_base(b, data) for b in args.base]
    cfg = loaded[0][1]
    models = [m for m, _ in loaded]

    def whole():
        return models[0] if len(models) == 1 else Ensemble(models).eval()

    t0 = time.time()
    before = figures(whole(), data, held_p)
    replay_before = figures(whole(), replay[0], replay_held) if replay is not None else None
    reference = None
    if args.reference:
        refs = [load_base(r, data)[0] for r in args.reference]
        reference = figures(refs[0] if len(refs) == 1 else Ensemble(refs).eval(), data, held_p)
    fines = []
    for k, (model, member_cfg) in enumerate(loaded):
        member_args = argparse.Namespace(**{**vars(args), "seed": args.seed + k,
                                            "laplace_mean": member_cfg.get("args", {}).get("laplace_mean",
                                                                                           "likelihood")})
        fine = fit(model, data, train_p, val_p, MODES[args.mode], member_args,
                   f"fine-tuning ({args.mode})" + (f", member {k + 1} of {len(loaded)}" if len(loaded) > 1 else ""),
                   replay)
        fine["laplace_mean"] = member_args.laplace_mean
        if getattr(model, "laplace", None) and len(val_p):
            # The error model's scale, calibrated again on this machine's validation programs
            # (an ensemble's, again by onnx/export.py).
            before_cov, after_cov, factor = train_mod.calibrate_laplace(model, data, val_p, torch.device("cpu"), 32,
                                                                        model.laplace)
            fine["calibration"] = {"validation_coverage_before": before_cov, "validation_coverage_after": after_cov,
                                   "scale_factor": factor}
        fines.append(fine)
    after = figures(whole(), data, held_p)
    result = {
        "base": [str(b) for b in args.base],
        "members": len(models),
        "mode": args.mode,
        "points": int(len(data)),
        "programs": {"fine_tune": int(len(train_p)), "validation": int(len(val_p)), "held_out": int(len(held_p))},
        "fine_tune_points": int(np.isin(data.program, train_p).sum()),
        "validation_points": int(np.isin(data.program, val_p).sum()),
        "held_out_before": before,
        "held_out_after": after,
        "split": args.split,
        "fine_tuning": fines[0],
        "fine_tuning_members": fines,
        "seconds": time.time() - t0,
    }
    if replay is not None:
        result["replay"] = {"data": str(args.replay), "programs": int(len(replay[1])),
                            "points": int(np.isin(replay[0].program, replay[1]).sum()),
                            "held_out_before": replay_before,
                            "held_out_after": figures(whole(), replay[0], replay_held)}
    for k, ((model, member_cfg), base) in enumerate(zip(loaded, args.base)):
        config = dict(member_cfg)
        config["adapted"] = {key: result[key] for key in ("mode", "points", "programs")}
        config["adapted"]["data"] = str(args.data)
        config["adapted"]["base"] = str(base)
        torch.save({"config": config, "state": model.state_dict()}, out / ("model.pt" if k == 0 else f"model.seed{k}.pt"))
    if reference is not None:
        result["reference"] = [str(r) for r in args.reference]
        result["held_out_reference"] = reference
    if not args.no_scratch:
        scratch = CostModel(cfg["features"], dropout=cfg["dropout"], residual=cfg["residual"],
                            heads=cfg.get("heads", 1), laplace=cfg.get("laplace"), derive=cfg.get("derive"))
        rows = np.concatenate([np.arange(data.offsets[i], data.offsets[i + 1]) for i in train_p])
        train_rows = data.comp_rows(rows)
        scratch.set_normalization(train_rows.mean(axis=0), train_rows.std(axis=0))
        if cfg.get("derive"):
            scratch.set_derived_normalization(train_rows)
        scratch_args = argparse.Namespace(**{**vars(args), "max_lr": 1e-3, "epochs": max(args.epochs, 40),
                                             "patience": 10})
        fit(scratch, data, train_p, val_p, MODES["all"], scratch_args, "from scratch")
        result["held_out_scratch"] = figures(scratch, data, held_p)
    (out / "adapt.json").write_text(json.dumps(result, indent=1))
    line = (f"held-out programs measured here ({len(held_p)}): Spearman {before['spearman']:.3f} -> "
            f"{after['spearman']:.3f} (MAPE {before['mape']:.3f} -> {after['mape']:.3f})")
    if replay is not None:
        line += (f"; the base data's test programs ({len(replay_held)}): {replay_before['spearman']:.3f} -> "
                 f"{result['replay']['held_out_after']['spearman']:.3f}")
    if reference is not None:
        line += f"; the reference trained on a full dataset measured here: {reference['spearman']:.3f}"
    if "held_out_scratch" in result:
        line += f"; trained from scratch on the same data: {result['held_out_scratch']['spearman']:.3f}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
