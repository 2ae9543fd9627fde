"""Train, compare, export and evaluate the shipped model, and write onnx/REPORT.md: one command.

    .venv/bin/python onnx/report.py                 # everything (hours on 2 cores; resumable)
    .venv/bin/python onnx/report.py --uncertainty heads --members 1   # a single network, no interval
    .venv/bin/python onnx/report.py --members 1     # one Laplace network, no other seed
    .venv/bin/python onnx/report.py --uncertainty ensemble --members 3   # 3 plain networks of different seeds

Every training lives in its own directory of --work with the arguments and the dataset's
digest it was made from; a later run reuses it when both match, so an interrupted report
goes on where it stopped, and a grown dataset retrains everything.

Steps, all on the real-size dataset split by program (the split of train.py):
1. featurize it (`autosched featurize`); score its held-out programs with the model shipped
   before (if its layout still matches): the "before" row.
2. choose the training, one question at a time, by the validation figures (never the test
   set): is the pairwise ranking term better than regression alone; then does starting
   from an encoder pre-trained on unlabeled vectors help (`autosched vectors`,
   onnx/pretrain.py); then does adding the toy-size dataset's programs to training help;
   then do the working-set fields (layout 4) and the stride fields (layout 5) help; then
   does the encoder reading the deepest loop's strides, extent and tile size per
   computation help (train.py --derive-inner, gathered inside the graph).
3. learning curve of the chosen training on fractions of the training programs, with and
   without pre-training.
4. the interval: by default one network that predicts its own Laplace error scale,
   calibrated on validation to an 80% interval (--uncertainty laplace: one network's cost,
   where the search asks the model about a thousand schedules per kernel; --members heads
   on bootstrap weights gave an interval of 1.01x that held 5% of the points), or an
   ensemble of networks of other seeds; then a ranking fine-tuning of that network
   (--fine-tune-epochs), kept if it wins on validation; with --members > 1 (laplace), the
   same network of other seeds (fine-tuned alike), shipped as one interval if their mean
   beats the one network on validation; export onnx/model.onnx with parity,
   and evaluate it: held-out figures, how often the measured speedup lies in the
   interval, and the schedule each decision rule would pick among the measured
   schedules of each held-out program.
5. Rust side: every held-out point scored by `autosched score` against PyTorch; inference time.
"""

import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "onnx"))
import data as data_mod  # noqa: E402
import metrics  # noqa: E402
import train as train_mod  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
PY = sys.executable
SEEDS = {"mape": 0.16, "pearson": 0.90, "spearman": 0.95, "ndcg@5": 0.954}
# The pass's rules (src/search/mod.rs): a predicted gain must clear this margin, and the
# pessimistic rule looks at this many best-ranked schedules.
MIN_PREDICTED_GAIN = 1.05
PESSIMISTIC_CANDIDATES = 8


def run(cmd):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT)


def rel(x):
    """A flag as the key and train.py see it: a path under the repository relative to it
    (keys stay valid in another checkout), anything else as text."""
    p = pathlib.Path(str(x))
    if p.is_absolute() and p.exists() and p.resolve().is_relative_to(ROOT):
        return str(p.resolve().relative_to(ROOT))
    return str(x)


def content_stamp(path):
    """A file's digest, or a featurized directory's stamp (the digest of its source)."""
    path = pathlib.Path(path)
    if path.is_dir():
        return (path / "stamp").read_text() if (path / "stamp").exists() else None
    return digest(path)


digest = data_mod.digest


# train.py --drop-features: the working-set fields of layout 4, the strides of layout 5.
WORKING_SET = "(working_set|caches_exceeded)"
STRIDES = "(stride_)"


def dropping(*groups):
    """train.py flags that zero the fields of every regex group in `groups` (none: no flags)."""
    return ["--drop-features", "(" + "|".join(g.strip("()") for g in groups) + ")"] if groups else []


class Trainer:
    """Trainings by name, reused when their arguments and data are unchanged.

    A training's key and figures are also kept in `archive` (committed, onnx/runs/): the
    report takes hours on 2 cores, longer than a session, and build/ does not survive one,
    so each finished training is kept where the next session finds it."""

    def __init__(self, work, feats, stamp, epochs, archive=None):
        self.work, self.feats, self.stamp, self.epochs = work, feats, stamp, epochs
        self.layout = json.loads((feats / "layout.json").read_text())["hash"]
        self.archive = pathlib.Path(archive) if archive else None

    def __call__(self, name, *extra, epochs=None, train=True, init=None, quiet=False):
        """The training `name` with train.py flags `extra` (for `epochs`, by default the
        report's); an earlier training with the same flags, epochs and data (under any name)
        is reused. With `train` false, only reused: None when there is none. With `init` (an
        earlier training), it starts from that training's weights (train.py --init)."""
        flags = [rel(e) for e in extra]
        epochs = epochs or self.epochs
        # The layout too: the same data featurized in a later layout is another training.
        key = {"flags": flags, "epochs": epochs, "data": self.stamp, "layout": self.layout}
        if init is not None:
            # By what the start is, not by its file: once the fine-tuned model ships, the
            # start's weights are gone, and the fine-tuning must still be found.
            key["init"] = init["key"]
        # Files a training starts from (a pre-trained encoder, another featurized set) are
        # part of what it is: a retrained encoder is another training.
        inputs = {f: content_stamp(ROOT / f) for f in flags if (ROOT / f).exists() and f.strip()}
        if inputs:
            key["inputs"] = inputs
        out = self.work / name
        dirs = sorted(self.work.glob("*/key.json"))
        if self.archive:
            dirs += sorted(self.archive.glob("*/key.json"))
        for k in dirs:
            if json.loads(k.read_text()) == key and (k.parent / "metrics.json").exists():
                out = k.parent
                if not quiet:
                    print(f"reusing {out} for {name}", flush=True)
                break
        else:
            if not train:
                return None
            start = []
            if init is not None:
                c = self.checkpoint(init)
                if c is None:
                    sys.exit(f"{init['dir']}: its figures are archived but not its weights, which {name} starts "
                             f"from; remove it from {self.archive} to train it again")
                start = ["--init", c]
            shutil.rmtree(out, ignore_errors=True)
            run([PY, ROOT / "onnx/train.py", "--data", self.feats, "--out", out, "--epochs", epochs,
                 "--quiet", *flags, *start])
            (out / "key.json").write_text(json.dumps(key))
            if self.archive:
                kept = self.archive / name
                kept.mkdir(parents=True, exist_ok=True)
                for f in ("key.json", "metrics.json", "history.json"):
                    if (out / f).exists():
                        shutil.copy(out / f, kept / f)
        m = json.loads((out / "metrics.json").read_text())
        m["name"], m["dir"], m["flags"], m["key"] = name, str(out), flags, key
        return m

    def archived(self, name, *extra, epochs=None, like=None):
        """The archive's training with flags `extra` and `epochs` (the one named `name` first),
        whatever data it was trained on; None if it holds none. `stale` names the data's
        digest when it is not this report's (and the layout when only that differs). With
        `like` (another archived training), only one on its data and layout: the two sides
        of a question are compared where both were trained."""
        if not self.archive:
            return None
        flags, epochs = [rel(e) for e in extra], epochs or self.epochs
        dirs = [self.archive / name] + sorted(k.parent for k in self.archive.glob("*/key.json"))
        for d in dirs:
            if not (d / "key.json").exists() or not (d / "metrics.json").exists():
                continue
            key = json.loads((d / "key.json").read_text())
            m = json.loads((d / "metrics.json").read_text())
            layout = m.get("config", {}).get("layout_hash")
            if like is not None and (key["data"] != like["key"]["data"]
                                     or layout != like.get("config", {}).get("layout_hash")):
                continue
            if key["epochs"] == epochs and "init" not in key and self.same_flags(flags, key["flags"], m.get("config", {})):
                m["name"], m["dir"], m["flags"], m["key"] = name, str(d), key["flags"], key
                if key["data"] != self.stamp:
                    m["stale"] = key["data"]
                elif layout != self.layout:
                    m["stale"] = f"{key['data']} in layout {layout}"
                else:
                    m["stale"] = None
                return m
        return None

    def same_flags(self, want, had, config):
        """Whether a training with flags `had` (on the layout its `config` names) is the one
        `want` asks for: the same flags, or the same but for `--drop-features REGEX` where its
        layout had none of the fields REGEX drops from this one (a training on layout 3 is one
        without layout 4's working-set fields)."""
        if want == had:
            return True
        if "--drop-features" not in want or "--drop-features" in had:
            return False
        i = want.index("--drop-features")
        if want[:i] + want[i + 2:] != had:
            return False
        layout = json.loads((self.feats / "layout.json").read_text())
        names = [f["name"] for f in layout["fields"]]
        kept = [n for n in names if not re.search(want[i + 1], n)]
        return config.get("layout_hash") != layout["hash"] and config.get("features") == len(kept)

    def reuse(self, name, *extra, epochs=None, stale=False):
        """Training `name` if trained on this data; else, with `stale`, the archive's training
        of the same flags on earlier data; else trained now."""
        m = self(name, *extra, epochs=epochs, train=not stale)
        if m is None:
            m = self.archived(name, *extra, epochs=epochs)
            if m is None:
                sys.exit(f"{name}: no archived training with these flags; run without --questions archived")
            print(f"using {m['dir']} for {name} as archived (trained on data {m['stale']})", flush=True)
        return m

    def pair(self, a, b, epochs=None, stale=False):
        """The two sides of a question, `a` and `b` = (name, flags), trained on one data and
        layout: both on this data (trained now unless `stale`), else, with `stale`, an
        archived pair (a side on this data alone is not compared with one on other data)."""
        (na, fa), (nb, fb) = a, b
        ma = self(na, *fa, epochs=epochs, train=False, quiet=True)
        mb = self(nb, *fb, epochs=epochs, train=False, quiet=True)
        if ma is not None and mb is not None:
            for m in (ma, mb):
                print(f"reusing {m['dir']} for {m['name']}", flush=True)
            return ma, mb
        if not stale:
            return self(na, *fa, epochs=epochs), self(nb, *fb, epochs=epochs)
        ma = self.archived(na, *fa, epochs=epochs)
        mb = self.archived(nb, *fb, epochs=epochs, like=ma) if ma is not None else None
        if ma is None or mb is None:
            sys.exit(f"{na} / {nb}: no archived pair trained on one data; run without --questions archived")
        for m in (ma, mb):
            print(f"using {m['dir']} for {m['name']} as archived (trained on data {m['stale']})", flush=True)
        return ma, mb

    def checkpoint(self, m):
        """The weights of training `m`: its own model.pt, or the shipped file its archive entry
        names when the digest still matches (the archive keeps figures, not weights)."""
        d = pathlib.Path(m["dir"])
        if (d / "model.pt").exists():
            return d / "model.pt"
        ref = d / "checkpoint.json"
        if ref.exists():
            r = json.loads(ref.read_text())
            path = ROOT / r["path"]
            if path.exists() and digest(path) == r["digest"]:
                return path
        return None

    def keep_checkpoint(self, m, shipped):
        """Record in the archive that `shipped` holds training `m`'s weights."""
        if not self.archive:
            return
        kept = self.archive / m["name"]
        if kept.exists():
            (kept / "checkpoint.json").write_text(json.dumps(
                {"path": str(pathlib.Path(shipped).resolve().relative_to(ROOT)), "digest": digest(shipped)}))


def layout_hash():
    """The hash of the layout `autosched featurize` writes now."""
    return json.loads(subprocess.run([str(AUTOSCHED), "layout"], check=True, capture_output=True, text=True).stdout)["hash"]


def featurize(dataset, d):
    """`d` holds `dataset` featurized in the current form; returns the dataset's digest. A
    set of another digest, or featurized before `autosched featurize` wrote each point's
    host (the figures by host; sets older still lack per-program `work`, the model's
    domain), or in another layout than the featurizer's now, is featurized again."""
    stamp = digest(dataset)
    meta = d / "meta.json"
    current = ((d / "stamp").exists() and (d / "stamp").read_text() == stamp and meta.exists()
               and "hosts" in json.loads(meta.read_text())
               and (d / "layout.json").exists()
               and json.loads((d / "layout.json").read_text())["hash"] == layout_hash())
    if not current:
        shutil.rmtree(d, ignore_errors=True)
        run([AUTOSCHED, "featurize", dataset, "--out", d])
        (d / "stamp").write_text(stamp)
    return stamp


def score(m):
    """How good a training is for the search, on the validation programs."""
    v = m["validation"]["all"]
    return v["spearman"] + v["ndcg@5"]


def fmt(x, pct=False):
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


HEADER = ["| set | programs | points | MAPE | Pearson | Spearman | nDCG@1 | nDCG@5 | censored above bound |",
          "|---|---|---|---|---|---|---|---|---|"]


def row(name, m):
    return (f"| {name} | {m['programs']} | {m['points']} | {fmt(m['mape'], True)} | {fmt(m['pearson'])} | "
            f"{fmt(m['spearman'])} | {fmt(m['ndcg@1'])} | {fmt(m['ndcg@5'])} | "
            f"{fmt(m.get('censored_above'), True)} of {m.get('censored', 0)} |")


def rust_scores(dataset, model, ids, out, time_batch=None):
    cmd = [AUTOSCHED, "score", dataset, "--model", model, "--program-ids", ids, "--out", out]
    if time_batch:
        cmd += ["--time-batch", str(time_batch)]
    run(cmd)
    got = {}
    for line in pathlib.Path(out).read_text().splitlines():
        pid, sched, _, pred = line.split("\t")
        got[(pid, sched)] = float(pred)
    return got


def shipped_networks(checkpoints, data, val_p):
    """The torch modules the shipped graph is made of: the networks of `checkpoints`, or, for
    several Laplace networks, their one interval (model.Ensemble), calibrated on the
    validation programs as export.py calibrates it."""
    from export import load_model
    from model import Ensemble
    loaded = [load_model(c) for c in checkpoints]
    if len(loaded) > 1 and loaded[0][1].get("laplace"):
        ens = Ensemble([m for m, _ in loaded]).eval()
        train_mod.calibrate_laplace(ens, data, val_p, "cpu", loaded[0][1]["args"]["batch"], loaded[0][1]["laplace"])
        return [ens]
    return [m for m, _ in loaded]


def member_predictions(models, data, programs):
    """[points, columns] PyTorch predictions of `models` (shipped_networks) on `programs`,
    and their indices."""
    import torch
    bl = data_mod.batches(data, programs)
    idx = np.concatenate(bl)
    columns = sum(2 if getattr(m, "laplace", None) else getattr(m, "heads", 1) for m in models)
    out = np.empty((len(data), columns))
    for b in bl:
        x = data.inputs(b)
        with torch.no_grad():
            # A network with several heads gives a column per head; a Laplace one, its interval's ends.
            out[b] = np.concatenate([m(*x).numpy().reshape(len(b), -1) for m in models], axis=1)
    return out[idx], idx


def ensemble_figures(models, data, programs):
    """train.breakdown of the models' geometric-mean prediction on `programs`."""
    pred, idx = member_predictions(models, data, programs)
    full = np.full(len(data), np.nan)
    full[idx] = np.exp(np.log(pred).mean(axis=1))
    return train_mod.breakdown(full, data, idx)


def decisions(member_pred, data, idx, interval=False):
    """What each rule picks among the measured schedules of each held-out program, and the
    measured speedup of the pick. Ratios are to the model's own prediction of the identity
    (as in the pass). A censored pick counts at its bound, which flatters it."""
    sched = np.array(data.meta["schedules"], dtype=object)[idx]
    prog = data.program[idx]
    picks = {"point estimate": [], "pessimistic (pass)": [], "best measured": []}
    for p in np.unique(prog):
        sel = np.where(prog == p)[0]
        ident = [i for i in sel if sched[i] == ""]
        if not ident or len(sel) < 2:
            continue
        # An error interval's ends go over the identity's point estimate (as in the pass).
        base = np.exp(np.log(member_pred[ident[0]]).mean()) if interval else member_pred[ident[0]]
        ratio = member_pred[sel] / base
        point = np.exp(np.log(ratio).mean(axis=1))
        lo = ratio.min(axis=1)
        true = data.speedup[idx][sel]
        cand = [k for k in range(len(sel)) if sel[k] != ident[0]]
        best_point = max(cand, key=lambda k: point[k])
        picks["point estimate"].append(true[best_point] if point[best_point] > MIN_PREDICTED_GAIN else 1.0)
        top = sorted(cand, key=lambda k: -point[k])[:PESSIMISTIC_CANDIDATES]
        best_lo = max(top, key=lambda k: (lo[k], point[k]))
        picks["pessimistic (pass)"].append(true[best_lo] if lo[best_lo] > MIN_PREDICTED_GAIN else 1.0)
        picks["best measured"].append(max(1.0, float(true.max())))
    out = {}
    for rule, v in picks.items():
        v = np.array(v)
        out[rule] = {"programs": len(v), "geomean": float(np.exp(np.log(v).mean())),
                     "changed": int(np.sum(v != 1.0)), "below_0.95": int(np.sum(v < 0.95)),
                     "worst": float(v.min())}
    return out


def noise_ceiling(dataset, data, idx, draws=20, seed=0):
    """The figures a perfect model could reach against these labels: a replicate measurement
    (one repetition of each point's time and one of its identity's, drawn at random) as the
    prediction. Label noise bounds every model's Spearman and nDCG below 1; the median over
    `draws` replicates is returned. Censored points keep their bound (one run was all there was)."""
    import gzip
    want = {(data.programs[data.program[i]], data.meta["schedules"][i]) for i in idx}
    times, identity = {}, {}
    with gzip.open(dataset, "rt") as f:
        for line in f:
            r = json.loads(line)
            key = (r["program_id"], r["schedule"])
            if key in want:
                times[key] = (r["times_s"] or [r["time_s"]], r["identity_time_s"])
            if r["schedule"] == "":
                identity[r["program_id"]] = (r["times_s"] or [r["time_s"]], r["time_s"])
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(draws):
        rep = np.empty(len(idx))
        for j, i in enumerate(idx):
            prog = data.programs[data.program[i]]
            key = (prog, data.meta["schedules"][i])
            if data.censored[i] or key not in times or prog not in identity:
                rep[j] = data.speedup[i]
            else:
                own, batch_identity = times[key]
                ident, ident_median = identity[prog]
                # A point measured again with its identity (another batch, maybe another host)
                # is not timed against the identity record that replaced the first one: there
                # only its own repetitions vary, against its batch's identity median.
                same = ident_median == batch_identity
                rep[j] = (rng.choice(ident) if same else batch_identity) / rng.choice(own)
        runs.append(metrics.summary(rep, data.speedup[idx], data.program[idx], censored=data.censored[idx]))
    return {k: type(v)(np.median([r[k] for r in runs])) for k, v in runs[0].items()}


def learning_curve_plot(curves, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    curves = {label: curve for label, curve in curves.items() if curve}
    if not curves:
        path.unlink(missing_ok=True)
        return
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    for label, curve in curves.items():
        xs = [c[1] for c in curve]
        ax[0].plot(xs, [c[2]["spearman"] for c in curve], "o-", label=label)
        ax[1].plot(xs, [c[2]["ndcg@5"] for c in curve], "s-", label=label)
    ax[0].axhline(SEEDS["spearman"], ls="--", c="gray", label="seeds (1.8M points)")
    ax[1].axhline(SEEDS["ndcg@5"], ls="--", c="gray", label="seeds (1.8M points)")
    ax[0].set(xscale="log", xlabel="training points", ylabel="held-out Spearman")
    ax[1].set(xscale="log", xlabel="training points", ylabel="held-out nDCG@5")
    for a in ax:
        a.xaxis.set_major_formatter(ScalarFormatter())
        a.xaxis.set_minor_formatter(NullFormatter())
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def dated_sections(report: pathlib.Path) -> list[str]:
    """The sections of an existing report between its opening paragraph and "## Data and
    model" (where each experiment's dated section goes), as lines to put back there; none
    where there is no report or no such sections."""
    if not report.exists():
        return []
    text = report.read_text()
    start, end = text.find("\n## "), text.find("\n## Data and model\n")
    if start < 0 or end <= start:
        return []
    return text[start + 1:end].rstrip("\n").split("\n") + [""]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", default=str(ROOT / "onnx/data/real/dataset.jsonl.gz"))
    p.add_argument("--toy-dataset", default=str(ROOT / "onnx/data/dataset.jsonl.gz"),
                   help="the toy-size dataset, tried as extra training programs ('' to skip the question)")
    p.add_argument("--work", default=str(ROOT / "build/report-real"))
    p.add_argument("--archive", default=str(ROOT / "onnx/runs"),
                   help="where each finished training's key and figures are kept for later sessions ('' for none)")
    p.add_argument("--question-fraction", type=float, default=0.25,
                   help="fraction of the training programs the questions of step 2 are asked at")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--ship-epochs", type=int, default=12,
                   help="epochs of the shipped training, which sees all training programs each epoch: 12 at "
                        "100%% are 1.2x the optimizer steps of a question's 40 at 25%% (2 h less on 2 cores)")
    p.add_argument("--rank-weight", type=float, default=1.0, help="the ranking term's weight when it is tried")
    p.add_argument("--vectors", type=int, default=20000, help="programs of unlabeled vectors for pre-training (0: skip)")
    p.add_argument("--fine-tune-epochs", type=int, default=8,
                   help="epochs of a ranking fine-tuning of the shipped network (train.py --init --rank-weight "
                        "--select ranking), kept if it beats it on validation (0: not tried)")
    p.add_argument("--fine-tune-lr", type=float, default=2e-4, help="the fine-tuning's peak learning rate")
    p.add_argument("--members", type=int, default=2,
                   help="members of the shipped ensemble (laplace: networks of other seeds, kept if their mean "
                        "interval beats the one network on validation)")
    p.add_argument("--uncertainty", choices=["ensemble", "heads", "laplace"], default="laplace",
                   help="ensemble: --members networks of different seeds; heads: one network with --members "
                        "heads on their own bootstrap weights (train.py --heads); laplace: one network that "
                        "predicts its own error scale, calibrated to --coverage on validation (train.py --laplace)")
    p.add_argument("--coverage", type=float, default=0.8, help="the Laplace interval's calibrated coverage")
    p.add_argument("--questions", choices=["ask", "archived"], default="ask",
                   help="ask: train both sides of each question on this data; archived: take the answers of "
                        "step 2 from the archived trainings where this data has none (a grown dataset then "
                        "retrains only the shipped model; the report names the data they were asked on)")
    p.add_argument("--before-seen", default="",
                   help="a file of the program ids the model shipped before trained or was validated on, for a "
                        "model that does not record them: its row is then also scored on the test programs it never saw")
    p.add_argument("--curves", choices=["train", "archived"], default="train",
                   help="train the learning curves' missing points, or show only those already trained (a "
                        "report written in one session; the rest is listed as not yet trained)")
    p.add_argument("--derive", choices=["ask", "no"], default="ask",
                   help="ask whether the encoder should read the deepest loop's fields (train.py --derive-inner), "
                        "or leave it out (no: the question is not asked, the network does not read them)")
    p.add_argument("--laplace-mean", choices=["ask", "likelihood", "regression"], default="ask",
                   help="what trains the shipped network's estimate (train.py --laplace-mean): ask compares "
                        "the two on all training programs by validation and ships the better")
    p.add_argument("--fractions", default="0.1,0.25,0.5", help="learning-curve fractions of the training programs")
    p.add_argument("--out", default=str(ROOT / "onnx/model.onnx"))
    p.add_argument("--report", default=str(ROOT / "onnx/REPORT.md"))
    args = p.parse_args(argv)
    ship_epochs = args.ship_epochs or args.epochs
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    dataset = pathlib.Path(args.dataset)
    feats = work / "features"
    stamp = featurize(dataset, feats)
    data = data_mod.Featurized(feats)
    train_p, val_p, test_p = data_mod.split_programs(data.programs, 1)
    ids = work / "test-programs.txt"
    ids.write_text("\n".join(data.programs[i] for i in test_p))
    test_idx = np.concatenate(data_mod.batches(data, test_p))
    trainer = Trainer(work, feats, stamp, args.epochs, args.archive)

    # 1. The model shipped before, on the same held-out points (once per dataset, before the
    # export replaces it; skipped if it was trained on this very data).
    before = None
    shipped = pathlib.Path(args.out)
    info_path = shipped.with_suffix(".json")
    cache = work / "before.json"
    if cache.exists() and json.loads(cache.read_text()).get("stamp") == stamp:
        before = json.loads(cache.read_text())
    elif shipped.exists() and info_path.exists():
        info = json.loads(info_path.read_text())
        # Scored by the Rust side, which gives a model of an earlier layout that layout's columns.
        if info.get("training", {}).get("data_stamp") != stamp:
            got = rust_scores(dataset, shipped, ids, work / "before-scores.tsv")
            pred = np.full(len(data), np.nan)
            for i in test_idx:
                pred[i] = got[(data.programs[data.program[i]], data.meta["schedules"][i])]
            # The programs it trained or was validated on: recorded by the model since
            # 2026-11-26, else given (--before-seen). A split drawn over a grown dataset puts
            # many of them among this report's test programs.
            seen = info.get("training", {}).get("seen_programs")
            if seen is None and args.before_seen:
                seen = pathlib.Path(args.before_seen).read_text().split()
            before = {"stamp": stamp, "figures": train_mod.breakdown(pred, data, test_idx),
                      "trained_on": info.get("training", {}).get("train_points"),
                      "real_size": "data_stamp" in info.get("training", {}),
                      "members": info.get("members", 1),
                      "pred": {str(i): float(pred[i]) for i in test_idx},
                      "seen": sorted(set(seen)) if seen is not None else None}
            cache.write_text(json.dumps(before))

    # 2. The training, chosen one question at a time by the validation figures, each question
    # asked at --question-fraction of the training programs (the answers cost hours on 2 cores;
    # the learning curve below shows how the chosen training grows to all of them).
    qf = ["--train-fraction", args.question_fraction] if args.question_fraction < 1.0 else []
    questions = []
    stale = args.questions == "archived"
    regression = trainer.reuse("regression", *qf, stale=stale)
    ranking = trainer.reuse("ranking", "--rank-weight", args.rank_weight, *qf, stale=stale)
    flags = ["--rank-weight", str(args.rank_weight)] if score(ranking) > score(regression) else []
    chosen = ranking if flags else regression
    questions.append(("pairwise ranking term (weight %g)" % args.rank_weight, regression, ranking, bool(flags)))
    encoder = None
    if args.vectors > 0:
        vectors = work / "vectors"
        # The encoder is kept in the archive (a few MB): the trainings that start from it are
        # reused in a later session only with the very same encoder.
        encoder = (pathlib.Path(args.archive) if args.archive else work) / "pretrain" / "encoder.pt"
        # An encoder of another layout is pre-trained again, unless the answers are taken from
        # the archive (then only its archived question is shown).
        outdated = encoder.exists() and torch.load(encoder, map_location="cpu", weights_only=False)["layout_hash"] != trainer.layout
        if not encoder.exists() or (outdated and not stale):
            meta = vectors / "meta.json"
            if (not meta.exists() or json.loads(meta.read_text()).get("programs") != args.vectors
                    or json.loads(meta.read_text()).get("layout_hash") != trainer.layout):
                run([AUTOSCHED, "vectors", "--programs", args.vectors, "--sizes", "real", "--out", vectors, "--quiet"])
            run([PY, ROOT / "onnx/pretrain.py", "--vectors", vectors, "--out", work / "pretrain", "--quiet"])
            if encoder.parent != work / "pretrain":
                encoder.parent.mkdir(parents=True, exist_ok=True)
                for f in (work / "pretrain").iterdir():
                    if f.is_file() and f.stat().st_size < 20e6:
                        shutil.copy(f, encoder.parent / f.name)
        pre = trainer.reuse("pretrained" if not flags else "ranking-pretrained", *flags, "--pretrained", encoder, *qf,
                            stale=stale)
        better = score(pre) > score(chosen)
        questions.append(("encoder pre-trained on %d programs' unlabeled vectors" % args.vectors, chosen, pre, better))
        if better:
            chosen, flags = pre, flags + ["--pretrained", str(encoder)]
    if args.toy_dataset:
        toy_feats = work / "features-toy"
        featurize(args.toy_dataset, toy_feats)
        with_toy = trainer.reuse(chosen["name"] + "-toy", *flags, "--extra-data", toy_feats, *qf, stale=stale)
        better = score(with_toy) > score(chosen)
        questions.append(("the toy-size dataset's programs added to training", chosen, with_toy, better))
        if better:
            chosen, flags = with_toy, flags + ["--extra-data", str(toy_feats)]
    # The working-set features of layout 4 (per loop: the bytes one run touches, and how many
    # of the measuring host's cache levels that exceeds): both sides at --question-fraction
    # for --ship-epochs (a question's 40 epochs twice would cost 2.5 h more on 2 cores);
    # without them, the same network with those inputs zeroed (train.py --drop-features).
    # Under --questions archived, a grown dataset takes the archived answer.
    ws = dropping(WORKING_SET)
    without_ws, with_ws = trainer.pair(("no-working-set", [*flags, *ws, *qf]), ("working-set", [*flags, *qf]),
                                       epochs=ship_epochs, stale=stale)
    questions.append((f"working-set features per loop against the host's caches (layout 4; both at "
                      f"{ship_epochs} epochs)", without_ws, with_ws, score(with_ws) > score(without_ws)))
    name = chosen["name"]
    # The strides of layout 5 (per loop: how many accesses stay, move one element, less than
    # a line, a line or more; the largest move), asked without the working-set fields (which
    # the shipped network dropped since 2026-11-26), both sides on one data (under
    # --questions archived, the archived pair when this data has none).
    without_strides, with_strides = trainer.pair(
        ("no-strides", [*flags, *dropping(WORKING_SET, STRIDES), *qf]), ("strides", [*flags, *ws, *qf]),
        epochs=ship_epochs, stale=stale)
    strides_better = score(with_strides) > score(without_strides)
    questions.append((f"stride features per loop (layout 5; without the working-set fields, both at "
                      f"{ship_epochs} epochs)", without_strides, with_strides, strides_better))
    # The deepest loop's strides, extent and tile size (and the next one out's) gathered per
    # computation inside the graph (train.py --derive-inner): what the per-loop strides say
    # about the loop the schedule put innermost, in one place of the encoder's input, asked
    # against the shipped network's inputs (the per-loop fields stay dropped as inputs).
    derive = []
    if args.derive == "ask":
        with_derived = trainer("derive-inner", *flags, *dropping(WORKING_SET, STRIDES), "--derive-inner", *qf,
                               epochs=ship_epochs)
        derived_better = score(with_derived) > score(without_strides)
        questions.append((f"the deepest loop's strides, extent and tile size per computation (--derive-inner; "
                          f"without the per-loop working-set and stride fields, both at {ship_epochs} epochs)",
                          without_strides, with_derived, derived_better))
        derive = ["--derive-inner"] if derived_better else []

    # 3. The shipped model: the chosen training on all training programs, with several heads,
    # or with other seeds. Exported before the learning curves so that a report cut off there
    # has already shipped its model.
    if args.uncertainty == "laplace":
        # The working-set question decided on the shipped network itself, on all training
        # programs: features that help at a quarter of the data may only ease memorizing at
        # all of it (the first answer at 25% said yes by 0.02 of validation Spearman). Asked
        # with the strides in (where the layout has them); archived answers are reused under
        # --questions archived.
        plain, full = trainer.pair((f"{name}-laplace-no-ws", [*flags, *ws, "--laplace", args.coverage]),
                                   (f"{name}-laplace", [*flags, "--laplace", args.coverage]),
                                   epochs=ship_epochs, stale=stale)
        ws_better = score(full) > score(plain)
        questions.append(("working-set features, the shipped network on all training programs", plain,
                          full, ws_better))
        drop = dropping(*([] if ws_better else [WORKING_SET]), *([] if strides_better else [STRIDES]))
        tag = ("" if ws_better else "-no-ws") + ("" if strides_better else "-no-strides") + ("-derived" if derive else "")
        # The likelihood divides each point's error in the estimate by the scale the network
        # gives it, so what it calls hard it learns least (dense's disastrous schedule was
        # predicted below 1x by the 25% plain-loss networks, at 5x by the 100% likelihood one).
        # Asked on the shipped network itself: the estimate trained by the plain loss instead.
        by_likelihood = by_regression = None
        if args.laplace_mean != "regression":
            by_likelihood = trainer(f"{name}-laplace{tag}", *flags, *drop, *derive, "--laplace", args.coverage,
                                    epochs=ship_epochs)
        if args.laplace_mean != "likelihood":
            by_regression = trainer(f"{name}-laplace{tag}-lmreg", *flags, *drop, *derive, "--laplace",
                                    args.coverage, "--laplace-mean", "regression", epochs=ship_epochs)
        if args.laplace_mean == "ask":
            better = score(by_regression) > score(by_likelihood)
            questions.append(("the estimate trained by the plain regression loss, the scale by the likelihood "
                              "around it (--laplace-mean regression), the shipped network on all training "
                              "programs", by_likelihood, by_regression, better))
            by_regression = by_regression if better else None
        mean = ["--laplace-mean", "regression"] if by_regression else []
        members, tag = ([by_regression], tag + "-lmreg") if by_regression else ([by_likelihood], tag)
        # Other seeds of the same network: with --members > 1, their mean interval is the
        # shipped model if it beats the one network on validation (asked below).
        seeds = [trainer(f"{name}-laplace{tag}-seed{s}", *flags, *drop, *derive, "--laplace", args.coverage,
                         *mean, "--seed", s, epochs=ship_epochs) for s in range(1, args.members)]
        flags = flags + drop + derive + mean
    elif args.uncertainty == "heads" and args.members > 1:
        seeds = []
        members = [trainer(f"{name}-heads{args.members}", *flags, "--heads", args.members, epochs=ship_epochs)]
    else:
        seeds = []
        members = [trainer(f"{name}-all", *flags, epochs=ship_epochs)] + [
            trainer(f"{name}-seed{s}", *flags, "--seed", s, epochs=ship_epochs) for s in range(1, args.members)]
    trained_cfg, tuning = members[0]["config"], None

    def fine_tuned(base):
        # The thesis fine-tuned its regression model for ranking; the shipped network is the
        # start (a pre-trained encoder is in its weights already, so not frozen again).
        tune_flags, skip = [], False
        for f in base["flags"]:
            if skip:
                skip = False
            elif f in ("--pretrained", "--rank-weight"):
                skip = True
            else:
                tune_flags.append(f)
        return trainer(f"{base['name']}-ranktuned{args.fine_tune_epochs}", *tune_flags, "--rank-weight",
                       args.rank_weight, "--select", "ranking", "--max-lr", args.fine_tune_lr,
                       epochs=args.fine_tune_epochs, init=base)

    if args.fine_tune_epochs > 0 and len(members) == 1:
        base = members[0]
        tuned = fine_tuned(base)
        better = score(tuned) > score(base)
        questions.append((f"ranking fine-tuning of the shipped network ({args.fine_tune_epochs} epochs, "
                          f"all training programs)", base, tuned, better))
        if better:
            members, tuning = [tuned], tuned["config"]
            seeds = [fine_tuned(m) for m in seeds]

    def weights(ms):
        cs = [trainer.checkpoint(m) for m in ms]
        for m, c in zip(ms, cs):
            if c is None:
                sys.exit(f"{m['dir']}: its figures are archived but not its weights; remove it from {args.archive} "
                         "to train it again")
        return cs

    if seeds:
        # The mean interval of the seeds against the first network alone, on the validation
        # programs (the ensemble re-calibrated there too).
        together = members + seeds
        alone, joined = (shipped_networks(weights(ms), data, val_p) for ms in (members, together))
        one = {"name": members[0]["name"], "validation": ensemble_figures(alone, data, val_p)}
        ens = {"name": f"{members[0]['name']} and {len(seeds)} other seed(s)",
               "validation": ensemble_figures(joined, data, val_p)}
        better = score(ens) > score(one)
        questions.append((f"an ensemble of {len(together)} networks (seeds; their mean estimate and interval), "
                          f"all training programs", one, ens, better))
        members, networks = (together, joined) if better else (members, alone)
    checkpoints = weights(members)
    if not seeds:
        networks = shipped_networks(checkpoints, data, val_p)
    member_pred, idx = member_predictions(networks, data, test_p)
    ens_pred = np.full(len(data), np.nan)
    ens_pred[idx] = np.exp(np.log(member_pred).mean(axis=1))
    ensemble = train_mod.breakdown(ens_pred, data, idx)
    exact = ~data.censored[idx]
    lo, hi = member_pred.min(axis=1), member_pred.max(axis=1)
    inside = (data.speedup[idx] >= lo) & (data.speedup[idx] <= hi)
    coverage = float(np.mean(inside[exact]))
    width = float(np.median(hi / lo))
    rules = decisions(member_pred, data, idx, interval=args.uncertainty == "laplace")
    # Exported already when the shipped graph records these very checkpoints (a report run
    # again only to rewrite REPORT.md must not replace the model, nor take it for the one
    # shipped before).
    sources = [digest(c) for c in checkpoints]
    exported = info_path.exists() and json.loads(info_path.read_text()).get("checkpoints") == sources
    if not exported and not all(c.resolve() == shipped.with_suffix(".pt").resolve() for c in checkpoints):
        run([PY, ROOT / "onnx/export.py", "--checkpoint", *checkpoints, "--data", feats, "--dataset", dataset,
             "--out", shipped])
        shutil.copy(feats / "layout.json", ROOT / "onnx/layout.json")
        # The PyTorch weights beside the graph: what `autosched adapt` fine-tunes for another
        # machine (one network, possibly with several heads).
        # The other members' weights beside it (model.seed1.pt, ...), so that a later report
        # finds them (the archive keeps figures, not weights).
        for k, (m, c) in enumerate(zip(members, checkpoints)):
            kept = shipped.with_suffix(".pt" if k == 0 else f".seed{k}.pt")
            if c.resolve() != kept.resolve():
                shutil.copy(c, kept)
            trainer.keep_checkpoint(m, kept)
        for old in shipped.parent.glob(shipped.stem + ".seed*.pt"):
            if old.name not in {shipped.with_suffix(f".seed{k}.pt").name for k in range(1, len(members))}:
                old.unlink()
        # (export.py recorded the data's stamp and the programs the model saw.)
        info = json.loads(info_path.read_text())
        info["checkpoints"] = sources
        info["ensemble_test"] = ensemble
        info_path.write_text(json.dumps(info, indent=1))
    cfg = trained_cfg

    # 4. Learning curve on the real-size data alone, with and without pre-training (the rest
    # of the chosen training).
    without_pre = []
    skip = False
    for f in flags:
        if skip:
            skip = False
            continue
        if f in ("--pretrained", "--extra-data"):
            skip = True
            continue
        without_pre.append(f)
    fractions = [float(x) for x in args.fractions.split(",") if x]
    curve_sets = {"without pre-training": without_pre}
    if encoder is not None:
        curve_sets["with pre-training"] = without_pre + ["--pretrained", str(encoder)]
    curves, missing = {}, []
    for label, fl in curve_sets.items():
        tag = "curve-pre" if "--pretrained" in fl else "curve"
        pts = []
        for f in fractions + [1.0]:
            extra = fl + (["--train-fraction", f] if f < 1.0 else [])
            m = trainer(f"{tag}-{f}" if f < 1.0 else tag, *extra, train=args.curves == "train")
            likelihood = False
            if m is None and args.curves == "archived":
                m = trainer.archived(f"{tag}-{f}" if f < 1.0 else tag, *extra)
                if m is None and "--laplace-mean" in extra:
                    # Archived before the estimate was trained by the regression loss: shown,
                    # marked, rather than dropped (the curve's shape is what it tells).
                    at = extra.index("--laplace-mean")
                    m = trainer.archived(f"{tag}-{f}" if f < 1.0 else tag, *extra[:at], *extra[at + 2:])
                    likelihood = m is not None
            if m is None:
                missing.append(f"{label} at {f:.0%}")
                continue
            pts.append((f, m["config"]["train_points"], m["test"]["all"], m.get("stale"), likelihood))
        curves[label] = pts
    learning_curve_plot(curves, pathlib.Path(args.report).parent / "learning-curve.png")

    # 5. The Rust side on every held-out point.
    rust = rust_scores(dataset, shipped, ids, work / "rust-scores.tsv", time_batch=32)
    worst = max(abs(rust[(data.programs[data.program[i]], data.meta["schedules"][i])] - ens_pred[i]) / ens_pred[i]
                for i in idx)
    timing = json.loads((work / "rust-scores.tsv.timing.json").read_text())

    ones = metrics.summary(np.ones(len(idx)), data.speedup[idx], data.program[idx], censored=data.censored[idx])
    ceiling = noise_ceiling(dataset, data, idx)
    lines = [
        "# The shipped cost model: held-out accuracy",
        "",
        "Produced by `.venv/bin/python onnx/report.py"
        + "".join(" " + (a if a and " " not in a else repr(a)) for a in (argv if argv is not None else sys.argv[1:]))
        + "` (featurize, choose the training by validation, learning "
        "curves, ensemble, export, parity). Trainings are reused while the data is unchanged.",
        "",
        "## Data and model",
        "",
        f"- Data: `{dataset.relative_to(ROOT) if dataset.is_relative_to(ROOT) else dataset}` (digest {stamp}), "
        f"{len(data)} points of {len(data.programs)} programs at real sizes, {int(data.censored.sum())} of them "
        f"censored; split by program (seeded): {len(train_p)} training / {len(val_p)} validation / {len(test_p)} "
        "test programs.",
        f"- Model: recursive LSTM of the seeds (computation MLP {data.layout['features']}-600-350-200-180, "
        f"two LSTMs of 180 per loop, merge 360-200-180, head 180-200-180-1, ELU, dropout {cfg['dropout']}); "
        f"{cfg['parameters']:,} parameters per network; shipped as "
        + (f"one network predicting its own Laplace error scale, calibrated to a {args.coverage:.0%} interval"
           if args.uncertainty == "laplace" and len(members) == 1 else
           f"{len(members)} such networks of different seeds predicting their own Laplace error scales, as one "
           f"interval (the mean of their log estimates and of their scales) calibrated to {args.coverage:.0%} "
           "on the validation programs"
           if args.uncertainty == "laplace" else
           f"one network with {args.members} heads on their own bootstrap weights" if len(members) == 1 and
           args.members > 1 else f"an ensemble of {len(members)} networks (seeds)")
        + f" (`{shipped.name}`, {info['bytes'] / 1e6:.1f} MB), predicting the members' geometric mean.",
        "- Training: "
        + ("the Laplace likelihood of the log speedup for estimate and scale"
           if cfg.get("laplace") and cfg["args"].get("laplace_mean", "likelihood") == "likelihood" else
           "log_l1 loss for the estimate, the Laplace likelihood around it for the scale" if cfg.get("laplace")
           else "log_l1 loss")
        + f" (censored points as upper bounds, noisy points weighted "
        f"{cfg['args']['noisy_weight']}), flags `{' '.join(flags) or '(defaults)'}`, batches of the schedules of "
        f"{cfg['args']['programs_per_batch']} programs, AdamW (weight decay {cfg['args']['weight_decay']}), "
        f"one-cycle learning rate (max {cfg['args']['max_lr']}), {ship_epochs} epochs planned, early stopping "
        f"on the validation loss; best epoch {cfg['best_epoch']} of {cfg['epochs_run']}; "
        f"{cfg['train_seconds'] / 60:.1f} min per network on {cfg['device']}"
        + (f"; then fine-tuned for ranking (ranking weight {tuning['args']['rank_weight']}, peak rate "
           f"{tuning['args']['max_lr']}, best epoch by validation Spearman + nDCG@5: {tuning['best_epoch']} of "
           f"{tuning['epochs_run']}, {tuning['train_seconds'] / 60:.1f} min)." if tuning else "."),
        "",
        "## Choosing the training (validation programs)",
        "",
        "Each question compares two trainings that differ only in what it asks about; the better by "
        "validation Spearman + nDCG@5 goes on. The test programs play no part. "
        + (f"Each question is asked at {args.question_fraction:.0%} of the training programs (hours fewer on "
           "2 cores); the answer is then trained on all of them." if args.question_fraction < 1.0 else ""),
        "",
        "| question | without: Spearman / nDCG@5 | with: Spearman / nDCG@5 | kept |",
        "|---|---|---|---|",
    ]
    for q, a, b, kept in questions:
        va, vb = a["validation"]["all"], b["validation"]["all"]
        old = a.get("stale") or b.get("stale")
        lines.append(f"| {q}{' †' if old else ''} | {fmt(va['spearman'])} / {fmt(va['ndcg@5'])} | "
                     f"{fmt(vb['spearman'])} / {fmt(vb['ndcg@5'])} | {'yes' if kept else 'no'} |")
    olds = sorted({m.get("stale") for _, a, b, _ in questions for m in (a, b) if m.get("stale")})
    if olds:
        lines += ["", "† asked on an earlier dataset (digest " + ", ".join(olds) + ") and not again on this "
                  "one (`--questions archived`: hours on 2 cores); its answer is taken as it was."]
    if not args.toy_dataset:
        lines += ["", "Not asked in this report (`--toy-dataset ''`): whether the toy-size dataset's programs help; "
                  "the shipped model is trained on the real-size data alone."]
    lines += ["", "## Held-out test programs (the shipped model)", "", *HEADER, row("all", ensemble["all"])]
    if "not_noisy" in ensemble:
        lines.append(row("timings not noisy", ensemble["not_noisy"]))
    single = curves["with pre-training" if "--pretrained" in flags else "without pre-training"]
    if single and single[-1][0] == 1.0 and not single[-1][4]:
        lines.append(row("one network, one head, all training programs", single[-1][2]))
    if before:
        kind = "real-size" if before["real_size"] else "toy-size"
        seen = set(before["seen"]) if before.get("seen") is not None else None
        lines.append(row(f"model shipped before ({kind} data, {before['trained_on']} training points)"
                         + (f", {len(seen & {data.programs[p] for p in test_p})} of these programs "
                            "among those it trained or was validated on" if seen is not None else
                            ", which may have trained on some of these programs"),
                         before["figures"]["all"]))
        if seen is not None:
            unseen = np.array([i for i in idx if data.programs[data.program[i]] not in seen], dtype=int)
            if len(unseen):
                old_pred = np.full(len(data), np.nan)
                for i in unseen:
                    old_pred[i] = before["pred"][str(i)]
                lines.append(row("the test programs neither model saw: the shipped model",
                                 train_mod.breakdown(ens_pred, data, unseen)["all"]))
                lines.append(row("the test programs neither model saw: the model shipped before",
                                 train_mod.breakdown(old_pred, data, unseen)["all"]))
    lines.append(row("baseline: predict 1.0", ones))
    lines.append(row("ceiling: a replicate measurement as the prediction", ceiling))
    for k in sorted(ensemble):
        if k.startswith("class:"):
            lines.append(row(k[len("class:"):], ensemble[k]))
    for k in sorted(ensemble):
        if k.startswith("host:"):
            lines.append(row(f"measured on a host with {k[len('host:'):]}", ensemble[k]))
    for name, _, _ in train_mod.RUN_TIME_BUCKETS:
        if f"time:{name}" in ensemble:
            lines.append(row(f"identity runs {name}", ensemble[f"time:{name}"]))
    lines += [
        "",
        "Spearman and Pearson are over all held-out points; nDCG is per program (the ranking the search "
        "needs), averaged. MAPE is over the exactly measured points; a censored point (cut off after one "
        "run, stored as an upper bound) enters the ranking figures at its bound, and the last column is how "
        "often the model predicts it faster than that bound.",
        "",
        f"Seeds' figures (1.8M points, 16-node cluster): MAPE {100 * SEEDS['mape']:.0f}%, Pearson "
        f"{SEEDS['pearson']}, Spearman {SEEDS['spearman']}, nDCG@5 {SEEDS['ndcg@5']}.",
        "",
        "## Uncertainty and decisions",
        "",
        ((f"- The model's error interval (calibrated on the validation programs to hold {args.coverage:.0%}) "
          if args.uncertainty == "laplace" else "- The members' interval [min, max] ")
         + f"holds the measured speedup on {100 * coverage:.1f}% of the exactly measured held-out points; its "
         f"median width (high / low) is {width:.2f}x."),
        "- Were the pass to choose among the measured schedules of each held-out program (the identity among "
        f"them), with its margin ({MIN_PREDICTED_GAIN}x) and its rules, it would get (measured speedups; a "
        "program left unchanged counts 1.0x):",
        "",
        "| rule | programs | geomean | changed | below 0.95x | worst |",
        "|---|---|---|---|---|---|",
    ]
    for rule, r in rules.items():
        lines.append(f"| {rule} | {r['programs']} | {r['geomean']:.3f}x | {r['changed']} | {r['below_0.95']} | "
                     f"{r['worst']:.3f}x |")
    plot = ["![learning curve](learning-curve.png)", ""] if any(curves.values()) else []
    lines += ["", "## Learning curves", "", *plot,
              "| curve | training programs | training points | MAPE | Spearman | nDCG@5 |", "|---|---|---|---|---|---|"]
    for label, pts in curves.items():
        for f, n, m, old, likelihood in pts:
            lines.append(f"| {label}{' †' if old else ''}{' ‡' if likelihood else ''} | {100 * f:.0f}% | {n} | "
                         f"{fmt(m['mape'], True)} | {fmt(m['spearman'])} | {fmt(m['ndcg@5'])} |")
    olds = sorted({old for pts in curves.values() for *_, old, _ in pts if old})
    if olds:
        lines += ["", "† trained and tested on an earlier dataset (digest " + ", ".join(olds) + "), before the "
                  "data of this report was merged: another split's test programs, not comparable point for point; "
                  "on an earlier feature layout where it had fewer fields (a training that drops fields is matched by "
                  "one on a layout without them)."]
    if any(likelihood for pts in curves.values() for *_, likelihood in pts):
        lines += ["", "‡ its estimate trained by the Laplace likelihood (archived before `--laplace-mean "
                  "regression`); the shipped networks' estimate is trained by the regression loss."]
    if missing:
        lines += ["", "Not yet trained (this report was written from the archived trainings, `--curves archived`): "
                  + ", ".join(missing) + "."]
    lines += [
        "",
        "## Parity and inference",
        "",
        f"- PyTorch vs Python onnxruntime: max relative difference {info['parity']['max_relative_difference']:.1e} "
        f"over {info['parity']['points']} held-out points.",
        f"- PyTorch vs Rust (`autosched score`: Rust featurizer + ort, members' geometric mean): max relative "
        f"difference {worst:.1e} over {len(idx)} held-out points.",
        f"- Rust inference, one batch of 32 candidates (one call, one thread, all members): median "
        f"{timing['median_ms']:.2f} ms (min {timing['min_ms']:.2f}, max {timing['max_ms']:.2f}, "
        f"{timing['repetitions']} repetitions) on {timing['machine']}.",
        "",
    ]
    discussion = ROOT / "onnx/report-discussion.md"
    if discussion.exists():
        lines += [discussion.read_text()]
    # The dated sections above the generated part (trainings tried, shipped or not) are the
    # report's history, written by hand: kept where they are.
    at = lines.index("## Data and model")
    lines[at:at] = dated_sections(pathlib.Path(args.report))
    pathlib.Path(args.report).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
