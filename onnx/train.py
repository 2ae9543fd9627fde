"""Train the recursive-LSTM speedup model on a featurized dataset (`autosched featurize`).

    .venv/bin/python onnx/train.py --data build/features --out build/train

Splits by program (80/10/10, seeded), batches schedules of one program, minimizes MAPE
with AdamW (weight decay 0.0075) under a one-cycle learning rate (max 1e-3), and stops
early on the validation MAPE. Writes OUT/model.pt (weights + config), OUT/history.json
and OUT/metrics.json (held-out figures, overall and per program class). Uses a GPU when
one is present.
"""

import argparse
import json
import pathlib
import re
import sys
import time

import numpy as np
import torch
from tqdm import tqdm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import data as data_mod  # noqa: E402
import metrics  # noqa: E402
import model as model_mod  # noqa: E402
from model import CostModel  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="directory written by `autosched featurize`")
    p.add_argument("--extra-data", help="another featurized dataset (same layout) whose programs all join the "
                                        "training set; the split and the held-out figures stay those of --data")
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--patience", type=int, default=10, help="epochs without validation gain before stopping")
    p.add_argument("--max-lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.0075)
    p.add_argument("--dropout", type=float, default=0.225)
    p.add_argument("--batch", type=int, default=32, help="most schedules of one program per group")
    p.add_argument("--programs-per-batch", type=int, default=16,
                   help="programs whose schedules form one batch (1: the seeds' batches of one program)")
    p.add_argument("--no-residual", action="store_true",
                   help="the seeds' loop unit exactly (no residual + layer norm around the merge)")
    p.add_argument("--loss", choices=["mape", "log_l1"], default="log_l1",
                   help="log_l1: |log pred - log y| (default); mape: |pred - y| / y, the seeds' loss, which "
                        "stalls or collapses to predicting ~0 on this data (onnx/REPORT.md)")
    p.add_argument("--rank-weight", type=float, default=0.0,
                   help="weight of a pairwise ranking term over the schedules of each program in a batch "
                        "(logistic loss on log-prediction differences of pairs ordered by measured speedup); "
                        "0: regression only")
    p.add_argument("--rank-pairs", choices=["uniform", "gap", "top"], default="uniform",
                   help="how the ranking term weighs a program's ordered pairs: uniform (each pair alike), "
                        "gap (by how far apart their measured speedups are, in log, normalized to mean 1 over the "
                        "batch's pairs, as LambdaRank weighs a swap by what it costs: a program whose schedules "
                        "run 0.5x to 40x decides more than one whose run 0.95x to 1.05x), or top (gap times how "
                        "much swapping the pair moves a log-discounted rank gain, ranks measured over each "
                        "program's schedules: LambdaRank's weight with the measured order, so the pairs that "
                        "hold a program's fastest schedules decide and the order among its slow ones barely "
                        "counts)")
    p.add_argument("--pretrained", help="encoder.pt of onnx/pretrain.py: start the computation encoder from it, "
                                        "frozen until the validation loss stops improving for --unfreeze-after "
                                        "epochs, then fine-tuned at a fifth of the learning rate")
    p.add_argument("--unfreeze-after", type=int, default=3)
    p.add_argument("--init", metavar="MODEL_PT",
                   help="start every weight (and the input standardization) from an earlier training's model.pt "
                        "of the same layout and shape (--heads/--laplace): fine-tuning, e.g. with --rank-weight "
                        "as the thesis fine-tuned a regression model for ranking; the starting model competes "
                        "as epoch 0, so a fine-tuning that does not help keeps it")
    p.add_argument("--init-layout", metavar="LAYOUT_JSON",
                   help="the layout --init was trained on, when the data's is a later one (default: layout.json "
                        "beside --init): its columns keep their weights, the columns the later layout added start "
                        "at zero weight (so the starting model predicts as before) with the data's standardization")
    p.add_argument("--select", choices=["loss", "ranking", "picks"], default="loss",
                   help="validation figure that picks the best epoch and stops early: loss (the regression "
                        "loss being minimized), ranking (mean of validation Spearman and nDCG@5) or picks (the "
                        "geometric mean, over validation programs whose best schedule runs 2x or more, of what "
                        "the model's first choice runs at as a fraction of the best: the search's top-1 regret)")
    p.add_argument("--heads", type=int, default=1,
                   help="several regression heads over one body, each trained on its own bootstrap weights of "
                        "the points (Poisson(1) per point and head): an ensemble at the cost of one network, "
                        "exported with a column per head")
    p.add_argument("--laplace", type=float, default=None, metavar="ALPHA",
                   help="predict a Laplace scale of the log speedup too (trained by its likelihood; censored "
                        "points by the probability of lying below their bound), calibrated on the validation "
                        "programs so that the central ALPHA interval holds ALPHA of them; exported as two "
                        "columns, the interval's ends")
    p.add_argument("--laplace-mean", choices=["likelihood", "regression"], default="likelihood",
                   help="with --laplace, what trains the log estimate: the likelihood (with the scale, so a "
                        "point the network calls uncertain weighs less in the estimate), or the plain "
                        "regression loss (--loss), the scale then learned by the likelihood around the "
                        "estimate held fixed: every point weighs alike in the estimate")
    p.add_argument("--noisy-weight", type=float, default=0.5,
                   help="loss weight of points flagged noisy (their timings spread > 5%%)")
    p.add_argument("--derive-inner", action="store_true",
                   help="the computation encoder also reads, per computation, the strides, extent and tile size "
                        "of the deepest of its loops after the schedule and of the next one out, "
                        "gathered from its vector inside the graph (model.derive_spec; read before "
                        "--drop-features zeroes anything)")
    p.add_argument("--drop-features", metavar="REGEX", default="",
                   help="zero the features whose layout name matches REGEX (re.search) in every point: what "
                        "they add, asked by training without them (the network keeps the layout's width)")
    p.add_argument("--oversample", metavar="REGEX=K", action="append", default=[],
                   help="training programs whose id matches REGEX (re.search) count K times an epoch (an "
                        "integer K >= 2; the last '=' splits): their schedules form K groups, each a group of its "
                        "own (batches of several programs may hold two copies). For a part of "
                        "the space that the data holds few points of (a new transformation kind); the split, "
                        "validation and held-out figures are those of the data as it is. May be repeated")
    p.add_argument("--train-fraction", type=float, default=1.0,
                   help="use this fraction of the training programs (learning curve)")
    p.add_argument("--seed", type=int, default=0, help="seeds the split, the initialization and the order")
    p.add_argument("--split-seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def regression_loss(pred, y, w, censored, kind):
    """Weighted mean error; a censored point's speedup is an upper bound (the variant is at
    most that fast), so only a prediction above it is an error."""
    if kind == "mape":
        err = torch.abs(pred - y) / y
        bound = torch.relu(pred - y) / y
    else:
        err = torch.abs(torch.log(pred) - torch.log(y))
        bound = torch.relu(torch.log(pred) - torch.log(y))
    err = torch.where(censored, bound, err)
    return torch.sum(w * err) / torch.sum(w).clamp(min=1e-6)


def laplace_loss(mu, b, y, w, censored):
    """Negative log-likelihood of log y under Laplace(mu, b); for a censored point (log y is
    only known to be at most its bound c), -log P(X <= c)."""
    x = torch.log(y)
    exact = torch.abs(x - mu) / b + torch.log(2 * b)
    # P(X <= c): 1 - exp(-(c - mu) / b) / 2 above mu, exp((c - mu) / b) / 2 below.
    z = (x - mu) / b
    below = torch.log(torch.tensor(2.0)) - z.clamp(max=0.0)
    above = -torch.log1p(-0.5 * torch.exp(-z.clamp(min=0.0)))
    bound = torch.where(z < 0, below, above)
    nll = torch.where(censored, bound, exact)
    return torch.sum(w * nll) / torch.sum(w).clamp(min=1e-6)


def laplace_training_loss(mu, b, y, w, censored, mean="likelihood", kind="log"):
    """The loss of a --laplace network. "likelihood": the negative log-likelihood trains both
    parts, so a point's error in the estimate is divided by its own predicted scale (points the
    network calls hard teach the estimate little). "regression": the estimate learns from the
    plain regression loss, every point alike, and the scale from the likelihood around the
    estimate held fixed."""
    if mean == "regression":
        return regression_loss(torch.exp(mu), y, w, censored, kind) + laplace_loss(mu.detach(), b, y, w, censored)
    return laplace_loss(mu, b, y, w, censored)


def calibrate_laplace(model, data, programs, device, batch, alpha):
    """Scales the model's Laplace scale so that the central `alpha` interval holds `alpha` of
    the exactly measured points of `programs`; returns (coverage before, after, factor)."""
    bl = data_mod.batches(data, programs, batch)
    ratios, covered = [], []
    model.eval()
    with torch.no_grad():
        for idx in bl:
            out = model(*[t.to(device) for t in data.inputs(idx)]).cpu()
            mu, b = model.laplace_parts(out)
            x = torch.log(torch.from_numpy(data.speedup[idx]).double())
            keep = torch.from_numpy(~data.censored[idx])
            t = b.double() * (-np.log(1.0 - alpha))
            r = (torch.abs(x - mu.double()) / t)[keep]
            ratios.append(r.numpy())
            covered.append((r <= 1.0).numpy())
    ratios, covered = np.concatenate(ratios), np.concatenate(covered)
    if len(ratios) == 0:
        return float("nan"), float("nan"), 1.0
    factor = float(np.quantile(ratios, alpha))
    factor = max(factor, 1e-3)
    model.scale_factor.mul_(factor)
    return float(covered.mean()), float(np.mean(ratios <= factor)), factor


def ranking_loss(pred, y, program, censored, margin=0.02, pairs_by="uniform", rank=None):
    """Pairwise logistic loss over pairs of one program whose measured speedups differ by more
    than `margin` (in log): the faster one should be predicted faster. A censored point is
    known slower only than points above its bound, so it is never the faster of a pair.
    `pairs_by="gap"` weighs each pair by its measured log gap (mean 1 over the pairs): a swap
    of 2x and 30x costs a search far more than one of 1.00x and 1.03x. `pairs_by="top"`
    multiplies that by |1/log2(2+r_i) - 1/log2(2+r_j)|, `rank` being each point's measured
    rank among its program's schedules (0: the fastest): what the swap costs a discounted
    gain, so a program's first choice is what the term trains."""
    logp, logy = torch.log(pred), torch.log(y)
    same = program[:, None] == program[None, :]
    gap = logy[:, None] - logy[None, :]
    faster = (gap > margin) & ~censored[:, None]
    pairs = same & faster
    if not bool(pairs.any()):
        return pred.sum() * 0.0
    diff = logp[:, None] - logp[None, :]
    losses = torch.nn.functional.softplus(-diff[pairs])
    if pairs_by in ("gap", "top"):
        w = gap[pairs].detach()
        if pairs_by == "top":
            disc = 1.0 / torch.log2(2.0 + rank.to(pred.dtype))
            w = w * (disc[:, None] - disc[None, :]).abs()[pairs]
        return (losses * w).sum() / w.sum().clamp_min(1e-12)
    return losses.mean()


def measured_ranks(speedup, program):
    """Each point's rank among its program's points by measured speedup (0: the fastest;
    a censored point at its bound)."""
    rank = np.empty(len(speedup), dtype=np.int64)
    order = np.lexsort((-speedup, program))
    prog_sorted = program[order]
    starts = np.r_[0, np.flatnonzero(np.diff(prog_sorted)) + 1]
    pos = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank[order] = pos
    return rank


def predict(model, data, batch_list, device):
    model.eval()
    preds = np.empty(len(data), dtype=np.float64)
    with torch.no_grad():
        for idx in batch_list:
            x = [t.to(device) for t in data.inputs(idx)]
            out = model(*x).cpu().numpy()
            # Several heads: their geometric mean is the prediction (as on the Rust side).
            preds[idx] = np.exp(np.log(out).mean(axis=1)) if out.ndim == 2 else out
    return preds


def evaluate(model, data, programs, device, batch):
    bl = data_mod.batches(data, programs, batch)
    idx = np.concatenate(bl) if bl else np.array([], dtype=int)
    preds = predict(model, data, bl, device)
    return breakdown(preds, data, idx), preds


def breakdown(preds, data, idx):
    """Held-out figures over `idx`: all, not noisy, per class, per identity run-time bucket."""
    def summary(sel):
        return metrics.summary(preds[sel], data.speedup[sel], data.program[sel], censored=data.censored[sel])

    out = {"all": summary(idx)}
    clean = idx[~data.noisy[idx]]
    if len(clean):
        out["not_noisy"] = summary(clean)
    for c, name in enumerate(data.classes):
        sel = idx[data.klass[idx] == c]
        if len(sel):
            out[f"class:{name}"] = summary(sel)
    # By the host the points were measured on (where the data holds several).
    if len(getattr(data, "hosts", [])) > 1:
        for h, name in enumerate(data.hosts):
            sel = idx[data.host[idx] == h]
            if len(sel):
                out[f"host:{name}"] = summary(sel)
    # By the program's run time (its identity's): what the model knows of small and large.
    for name, lo, hi in RUN_TIME_BUCKETS:
        t = data.identity_time[idx]
        sel = idx[(t >= lo) & (t < hi)]
        if len(sel):
            out[f"time:{name}"] = summary(sel)
    return out


# Identity run-time buckets for the held-out metrics (seconds).
RUN_TIME_BUCKETS = [("<1ms", 0.0, 1e-3), ("1-10ms", 1e-3, 1e-2), ("10-100ms", 1e-2, 1e-1), (">=100ms", 1e-1, float("inf"))]


def widened_state(old, new, old_layout, new_layout):
    """A state dict of the network `new` (a later layout, its standardization fitted) that
    predicts as `old` did: every weight from `old`; of the per-feature tensors (the
    standardization and the computation encoder's first layer) the columns `old` had, found
    by name, and zero weight on the columns the later layout added."""
    names = [f["name"] for f in new_layout["fields"]]
    at = {n: i for i, n in enumerate(names)}
    missing = [f["name"] for f in old_layout["fields"] if f["name"] not in at]
    if missing:
        raise SystemExit(f"the data's layout lacks {len(missing)} fields of the starting model's "
                         f"({', '.join(missing[:3])}, ...): it is not a later version of it")
    cols = torch.tensor([at[f["name"]] for f in old_layout["fields"]])
    width_old, width_new = len(old_layout["fields"]), len(names)
    out = {}
    for k, v in new.items():
        w = old[k]
        if w.shape == v.shape:
            out[k] = w
        elif w.dim() == 1 and k in ("feature_mean", "feature_scale") and w.shape[0] == width_old:
            x = v.clone()
            x[cols] = w
            out[k] = x
        elif w.dim() == 2 and w.shape[1] == width_old and v.shape[1] == width_new and w.shape[0] == v.shape[0]:
            x = torch.zeros_like(v)
            x[:, cols] = w
            out[k] = x
        else:
            raise SystemExit(f"cannot start {k} {tuple(v.shape)} from {tuple(w.shape)}")
    return out


def oversampled(program_ids, train_p, specs):
    """{program index: count} for the training programs that `--oversample REGEX=K` names."""
    repeats = {}
    for spec in specs:
        regex, sep, k = spec.rpartition("=")
        if not sep or not regex or not k.isdecimal() or int(k) < 2:
            raise SystemExit(f"--oversample {spec!r}: expected REGEX=K with a non-empty REGEX and an integer K >= 2")
        try:
            pattern = re.compile(regex)
        except re.error as e:
            raise SystemExit(f"--oversample {spec!r}: {e}")
        hits = [int(p) for p in train_p if pattern.search(program_ids[int(p)])]
        if not hits:
            raise SystemExit(f"--oversample {spec!r} matches no training program")
        for p in hits:
            repeats[p] = max(repeats.get(p, 1), int(k))
    return repeats


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    data = data_mod.Featurized(args.data)
    dropped = []
    if args.drop_features:
        dropped = [i for i, f in enumerate(data.layout["fields"]) if re.search(args.drop_features, f["name"])]
        if not dropped:
            raise SystemExit(f"--drop-features {args.drop_features!r} matches no feature of the layout")
        if not args.derive_inner:
            # (With --derive-inner the derived features read these columns: the scale of
            # zero below is what keeps the encoder from reading them directly.)
            data.zero_features(dropped)
    train_p, val_p, test_p = data_mod.split_programs(data.programs, args.split_seed)
    if args.train_fraction < 1.0:
        keep = max(1, int(round(args.train_fraction * len(train_p))))
        train_p = train_p[:keep]
    if args.extra_data:
        train_p = np.concatenate([train_p, data.append(data_mod.Featurized(args.extra_data))])
    rng = np.random.default_rng(args.seed)
    repeats = oversampled(data.programs, train_p, args.oversample)
    train_batches = data_mod.batches(data, train_p, args.batch, np.random.default_rng(args.seed),
                                     args.programs_per_batch, repeats)
    val_batches = data_mod.batches(data, val_p, args.batch)
    # Inputs are built once: the cost of batching is paid before the epochs.
    cache = {id(b): [t.to(device) for t in data.inputs(b)] for b in train_batches}
    weights = torch.from_numpy(np.where(data.noisy, args.noisy_weight, 1.0).astype(np.float32))
    targets = torch.from_numpy(data.speedup)
    censored = torch.from_numpy(data.censored)
    program_of = torch.from_numpy(data.program.astype(np.int64))
    rank_of = torch.from_numpy(measured_ranks(data.speedup, program_of.numpy()))

    config = {
        "features": data.layout["features"],
        "layout_hash": data.layout["hash"],
        "dropout": args.dropout,
        "residual": not args.no_residual,
        "args": vars(args),
        "device": str(device),
        "train_programs": int(len(train_p)),
        "validation_programs": int(len(val_p)),
        "test_programs": int(len(test_p)),
        "train_points": int(sum(len(b) for b in train_batches)),
    }
    config["heads"] = args.heads
    if args.laplace is not None and not 0.0 < args.laplace < 1.0:
        raise SystemExit(f"--laplace takes an interval's coverage between 0 and 1, got {args.laplace}")
    if args.laplace is not None and args.heads > 1:
        raise SystemExit("--laplace and --heads are two ways to an interval: choose one")
    config["laplace"] = args.laplace
    if args.derive_inner and args.pretrained:
        raise SystemExit("--derive-inner widens the computation encoder's input: a pre-trained encoder does not fit")
    config["derive"] = model_mod.derive_spec(data.layout) if args.derive_inner else None
    model = CostModel(config["features"], dropout=args.dropout, residual=not args.no_residual, heads=args.heads,
                      laplace=args.laplace, derive=config["derive"])
    # Each head sees the points with its own bootstrap weights (fixed for the run).
    boot = torch.from_numpy(np.random.default_rng(args.seed + 7919).poisson(1.0, size=(len(data), args.heads))
                            .astype(np.float32))
    rows = np.concatenate([np.arange(data.offsets[i], data.offsets[i + 1]) for b in train_batches for i in b])
    train_rows = data.comp_rows(rows)
    model.set_normalization(train_rows.mean(axis=0), train_rows.std(axis=0))
    if args.derive_inner:
        model.set_derived_normalization(train_rows)
    del train_rows
    encoder_params = list(model.comp_mlp.parameters())
    frozen = False
    if args.pretrained:
        pre = torch.load(args.pretrained, map_location="cpu", weights_only=False)
        if pre["layout_hash"] != data.layout["hash"]:
            raise SystemExit(f"{args.pretrained} was pre-trained on layout {pre['layout_hash']}, the data has "
                             f"{data.layout['hash']}")
        # The encoder learned on the vectors' standardization: keep it.
        model.comp_mlp.load_state_dict(pre["encoder"])
        model.feature_mean.copy_(pre["feature_mean"])
        model.feature_scale.copy_(pre["feature_scale"])
        for p in encoder_params:
            p.requires_grad_(False)
        frozen = True
        config["pretrained"] = {"path": str(args.pretrained), "vectors": pre.get("vectors"),
                                "validation_mse": pre.get("validation_mse")}
    if args.init:
        start = torch.load(args.init, map_location="cpu", weights_only=False)
        sc = start["config"]
        widen = None
        if sc["layout_hash"] != data.layout["hash"]:
            path = pathlib.Path(args.init_layout) if args.init_layout else pathlib.Path(args.init).with_name("layout.json")
            earlier = json.loads(path.read_text()) if path.exists() else None
            if earlier is None or earlier["hash"] != sc["layout_hash"]:
                raise SystemExit(f"{args.init} was trained on layout {sc['layout_hash']}, the data has "
                                 f"{data.layout['hash']}; give that layout's layout.json as --init-layout to "
                                 f"start the later layout from it")
            widen = earlier
        if bool(sc.get("derive")) != args.derive_inner:
            raise SystemExit(f"{args.init} was trained {'with' if sc.get('derive') else 'without'} --derive-inner: "
                             "pass the same to fine-tune it")
        if (sc.get("heads", 1), sc.get("laplace")) != (args.heads, args.laplace):
            raise SystemExit(f"{args.init} has heads={sc.get('heads', 1)}, laplace={sc.get('laplace')}: pass the "
                             f"same --heads/--laplace to fine-tune it")
        if widen is None:
            model.load_state_dict(start["state"])
        else:
            model.load_state_dict(widened_state(start["state"], model.state_dict(), widen, data.layout))
        config["init"] = {"path": str(args.init), "best_epoch": sc.get("best_epoch")}
        if widen is not None:
            config["init"]["layout_hash"] = widen["hash"]
    if dropped:
        # Zero in training and scaled to zero in the exported graph: the Rust featurizer
        # still fills these columns, and the network must not read them.
        with torch.no_grad():
            model.feature_scale[dropped] = 0.0
    config["dropped_features"] = [data.layout["fields"][i]["name"] for i in dropped]
    model = model.to(device)
    config["parameters"] = int(sum(p.numel() for p in model.parameters()))
    encoder_ids = {id(p) for p in encoder_params}
    rest = [p for p in model.parameters() if id(p) not in encoder_ids]
    # The encoder learns at a fifth of the rate once it is unfrozen (a pre-trained one);
    # without pre-training both groups share one rate.
    encoder_lr = args.max_lr * (0.2 if args.pretrained else 1.0)
    opt = torch.optim.AdamW([{"params": rest}, {"params": encoder_params}], lr=args.max_lr,
                            weight_decay=args.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[args.max_lr, encoder_lr], epochs=args.epochs,
                                                steps_per_epoch=max(1, len(train_batches)))
    vidx = np.concatenate(val_batches)

    def validation_figure():
        """What --select minimizes, on the validation programs."""
        vp = predict(model, data, val_batches, device)
        if args.select == "ranking":
            s = metrics.summary(vp[vidx], data.speedup[vidx], data.program[vidx], censored=data.censored[vidx])
            return -(s["spearman"] + s["ndcg@5"]) / 2
        if args.select == "picks":
            b = metrics.picks(vp[vidx], data.speedup[vidx], data.program[vidx],
                              buckets=[("best >=2x", 2.0, float("inf")), ("all", 0.0, float("inf"))])
            # (A validation split with no program of 2x, a small smoke run's: all of them.)
            return -(b["best >=2x"] if b["best >=2x"]["programs"] else b["all"])["pick_over_best"]
        if args.loss == "mape":
            return metrics.mape(vp[vidx], data.speedup[vidx])
        return float(np.mean(np.abs(np.log(vp[vidx]) - np.log(data.speedup[vidx]))))

    history = []
    best = (float("inf"), None, -1)
    if args.init:
        # The model fine-tuning starts from is the one to beat.
        best = (validation_figure(), {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}, 0)
        history.append({"epoch": 0, "train_loss": None, "val_loss": best[0], "seconds": 0.0})
    t0 = time.time()
    bar = tqdm(range(args.epochs), desc="epochs", disable=args.quiet)
    for epoch in bar:
        model.train()
        order = list(range(len(train_batches)))
        rng.shuffle(order)
        total, count = 0.0, 0
        for i in order:
            idx = train_batches[i]
            y = targets[idx].to(device)
            w = weights[idx].to(device)
            raw = model(*cache[id(idx)])
            cens = censored[idx].to(device)
            prog = program_of[idx].to(device)
            rank = rank_of[idx].to(device)
            loss = 0.0
            if args.laplace is not None:
                mu, b = model.laplace_parts(raw)
                loss = laplace_training_loss(mu, b, y, w, cens, args.laplace_mean, args.loss)
                if args.rank_weight > 0:
                    loss = loss + args.rank_weight * ranking_loss(torch.exp(mu), y, prog, cens, pairs_by=args.rank_pairs,
                                                                rank=rank)
                heads = []
            else:
                heads = [raw] if raw.dim() == 1 else [raw[:, m] for m in range(raw.shape[1])]
            for m, pred in enumerate(heads):
                hw = w if len(heads) == 1 else w * boot[idx, m].to(device)
                loss = loss + regression_loss(pred, y, hw, cens, args.loss) / len(heads)
                if args.rank_weight > 0:
                    loss = loss + args.rank_weight * ranking_loss(pred, y, prog, cens, pairs_by=args.rank_pairs,
                                                                rank=rank) / len(heads)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            count += len(idx)
        # Early stopping on the validation figure --select names.
        val_figure = validation_figure()
        history.append({"epoch": epoch + 1, "train_loss": total / max(count, 1), "val_loss": val_figure,
                        "seconds": time.time() - t0})
        bar.set_postfix(train=f"{total / max(count, 1):.3f}", val=f"{val_figure:.3f}")
        if args.quiet:
            print(f"epoch {epoch + 1}: train {args.loss} {total / max(count, 1):.4f}, validation "
                  f"{'-' + args.select if args.select in ('ranking', 'picks') else args.loss} {val_figure:.4f}, "
                  f"{time.time() - t0:.0f} s", flush=True)
        if val_figure < best[0]:
            best = (val_figure, {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}, epoch + 1)
        elif frozen and epoch + 1 - best[2] >= args.unfreeze_after:
            # The rest has learned what it can on the frozen embeddings: fine-tune them too,
            # and give the fine-tuning its own patience.
            for p in encoder_params:
                p.requires_grad_(True)
            frozen = False
            config["unfrozen_after_epoch"] = epoch + 1
            best = (best[0], best[1], epoch + 1)
        elif epoch + 1 - best[2] >= args.patience:
            break
    model.load_state_dict(best[1])
    if args.laplace is not None:
        before, after, factor = calibrate_laplace(model, data, val_p, device, args.batch, args.laplace)
        config["calibration"] = {"validation_coverage_before": before, "validation_coverage_after": after,
                                 "scale_factor": factor}
    config["best_epoch"] = best[2]
    config["epochs_run"] = len(history)
    config["train_seconds"] = time.time() - t0
    test, _ = evaluate(model, data, test_p, device, args.batch)
    val, _ = evaluate(model, data, val_p, device, args.batch)
    torch.save({"config": config, "state": model.cpu().state_dict()}, out / "model.pt")
    (out / "history.json").write_text(json.dumps(history, indent=1))
    (out / "metrics.json").write_text(json.dumps({"test": test, "validation": val, "config": config}, indent=1))
    t = test["all"]
    print(f"test: MAPE {t['mape']:.3f}, Pearson {t['pearson']:.3f}, Spearman {t['spearman']:.3f}, "
          f"nDCG@5 {t['ndcg@5']:.3f} ({t['points']} points, {t['programs']} programs); "
          f"best epoch {best[2]}, {config['train_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
