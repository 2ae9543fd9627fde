"""Train, export and evaluate the shipped model, and write onnx/REPORT.md: one command.

    .venv/bin/python onnx/report.py            # everything (about an hour on 2 cores)
    .venv/bin/python onnx/report.py --reuse    # reuse trainings already in build/report/

Steps: featurize the committed dataset (`autosched featurize`), train on all training
programs (onnx/train.py), export onnx/model.onnx with its parity check and reference file
(onnx/export.py), score every held-out point with the Rust side (`autosched score`) and
compare with PyTorch, time Rust inference on batches of 32 candidates, train on fractions
of the training programs for the learning curve (onnx/learning-curve.png), write the report.
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "onnx"))
import data as data_mod  # noqa: E402
import metrics  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"
PY = sys.executable
SEEDS = {"mape": 0.16, "pearson": 0.90, "spearman": 0.95, "ndcg@5": 0.954}


def run(cmd):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT)


def train(feats, out, epochs, fraction, reuse):
    if reuse and (out / "metrics.json").exists():
        return json.loads((out / "metrics.json").read_text())
    run([PY, ROOT / "onnx/train.py", "--data", feats, "--out", out, "--epochs", epochs,
         "--train-fraction", fraction, "--quiet"])
    return json.loads((out / "metrics.json").read_text())


def fmt(x, pct=False):
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def row(name, m):
    return (f"| {name} | {m['programs']} | {m['points']} | {fmt(m['mape'], True)} | {fmt(m['pearson'])} | "
            f"{fmt(m['spearman'])} | {fmt(m['ndcg@1'])} | {fmt(m['ndcg@5'])} |")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", default=str(ROOT / "onnx/data/dataset.jsonl.gz"))
    p.add_argument("--work", default=str(ROOT / "build/report"))
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--fractions", default="0.1,0.25,0.5", help="learning-curve fractions of the training programs")
    p.add_argument("--reuse", action="store_true", help="reuse finished trainings in --work")
    args = p.parse_args(argv)
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    feats = work / "features"
    run([AUTOSCHED, "featurize", args.dataset, "--out", feats])
    data = data_mod.Featurized(feats)

    full = train(feats, work / "full", args.epochs, 1.0, args.reuse)
    model = ROOT / "onnx/model.onnx"
    run([PY, ROOT / "onnx/export.py", "--checkpoint", work / "full/model.pt", "--data", feats,
         "--dataset", args.dataset, "--out", model])
    shutil.copy(feats / "layout.json", ROOT / "onnx/layout.json")
    info = json.loads(model.with_suffix(".json").read_text())

    # The Rust side on every held-out point, against PyTorch's predictions.
    cfg = full["config"]
    _, _, test_p = data_mod.split_programs(len(data.programs), cfg["args"]["split_seed"])
    ids = work / "test-programs.txt"
    ids.write_text("\n".join(data.programs[i] for i in test_p))
    scores = work / "rust-scores.tsv"
    run([AUTOSCHED, "score", args.dataset, "--model", model, "--program-ids", ids, "--out", scores,
         "--time-batch", "32"])
    rust = {}
    for line in scores.read_text().splitlines():
        pid, sched, _, pred = line.split("\t")
        rust[(pid, sched)] = float(pred)
    import torch  # noqa: E402
    from export import load_model  # noqa: E402
    torch_model, _ = load_model(work / "full/model.pt")
    worst, compared = 0.0, 0
    pred_all = np.full(len(data), np.nan)
    for idx in data_mod.batches(data, test_p):
        with torch.no_grad():
            ref = torch_model(*data.inputs(idx)).numpy()
        pred_all[idx] = ref
        for i, r in zip(idx, ref):
            key = (data.programs[data.program[i]], data.meta["schedules"][i])
            worst = max(worst, abs(rust[key] - r) / abs(r))
            compared += 1
    timing = json.loads((work / "rust-scores.tsv.timing.json").read_text())

    # A trivial baseline: always predict 1.0 (no change), and rank at random.
    idx = np.concatenate(data_mod.batches(data, test_p))
    ones = metrics.summary(np.ones(len(idx)), data.speedup[idx], data.program[idx])

    # Learning curve.
    curve = []
    for f in [float(x) for x in args.fractions.split(",") if x] + [1.0]:
        m = full if f == 1.0 else train(feats, work / f"fraction-{f}", args.epochs, f, args.reuse)
        curve.append((f, m["config"]["train_points"], m["test"]["all"]))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    xs = [c[1] for c in curve]
    ax[0].plot(xs, [100 * c[2]["mape"] for c in curve], "o-")
    ax[0].axhline(100 * SEEDS["mape"], ls="--", c="gray", label="seeds (1.8M points)")
    ax[0].set(xscale="log", xlabel="training points", ylabel="held-out MAPE (%)")
    ax[0].legend()
    ax[1].plot(xs, [c[2]["spearman"] for c in curve], "o-", label="Spearman")
    ax[1].plot(xs, [c[2]["ndcg@5"] for c in curve], "s-", label="nDCG@5")
    ax[1].set(xscale="log", xlabel="training points", ylabel="held-out score")
    ax[1].legend()
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    for a in ax:
        a.xaxis.set_major_formatter(ScalarFormatter())
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xticks(xs)
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(ROOT / "onnx/learning-curve.png", dpi=110)

    t = full["test"]
    lines = [
        "# The shipped cost model: held-out accuracy",
        "",
        "Produced by `.venv/bin/python onnx/report.py` (featurize, train, export, parity, learning curve).",
        "",
        "## Model and training",
        "",
        f"- Data: `onnx/data/dataset.jsonl.gz`, {len(data)} points of {len(data.programs)} programs, split by "
        f"program (seeded): {cfg['train_programs']} training / {cfg['validation_programs']} validation / "
        f"{cfg['test_programs']} test programs; {cfg['train_points']} training points.",
        f"- Model: recursive LSTM of the seeds (computation MLP {data.layout['features']}-600-350-200-180, "
        f"two LSTMs of 180 per loop, merge 360-200-180, head 180-200-180-1, ELU, dropout "
        f"{cfg['dropout']}); {cfg['parameters']:,} parameters; `onnx/model.onnx` is "
        f"{info['bytes'] / 1e6:.1f} MB.",
        f"- Training: {cfg['args']['loss']} loss (noisy points weighted {cfg['args']['noisy_weight']}), "
        f"batches of the schedules of {cfg['args']['programs_per_batch']} programs, AdamW (weight decay "
        f"{cfg['args']['weight_decay']}), one-cycle learning rate (max {cfg['args']['max_lr']}), "
        f"early stopping on the validation loss (patience {cfg['args']['patience']}); "
        f"best epoch {cfg['best_epoch']} of {cfg['epochs_run']} run ({cfg['args']['epochs']} planned); "
        f"{cfg['train_seconds'] / 60:.1f} min on {cfg['device']}.",
        "",
        "## Held-out test programs",
        "",
        "| set | programs | points | MAPE | Pearson | Spearman | nDCG@1 | nDCG@5 |",
        "|---|---|---|---|---|---|---|---|",
        row("all", t["all"]),
    ]
    if "not_noisy" in t:
        lines.append(row("timings not noisy", t["not_noisy"]))
    lines.append(row("baseline: predict 1.0", ones))
    for k in sorted(t):
        if k.startswith("class:"):
            lines.append(row(k[len("class:"):], t[k]))
    lines += [
        "",
        "Spearman and Pearson are over all held-out points; nDCG is per program (the ranking the search "
        "needs), averaged. The constant baseline has no ranking: its nDCG is that of the data order.",
        "",
        f"Seeds' figures (1.8M points, 16-node cluster): MAPE {100 * SEEDS['mape']:.0f}%, Pearson "
        f"{SEEDS['pearson']}, Spearman {SEEDS['spearman']}, nDCG@5 {SEEDS['ndcg@5']}.",
        "",
        "## Learning curve",
        "",
        "![learning curve](learning-curve.png)",
        "",
        "| training programs | training points | MAPE | Spearman | nDCG@5 |",
        "|---|---|---|---|---|",
    ]
    for f, n, m in curve:
        lines.append(f"| {100 * f:.0f}% | {n} | {fmt(m['mape'], True)} | {fmt(m['spearman'])} | {fmt(m['ndcg@5'])} |")
    lines += [
        "",
        "## Parity and inference",
        "",
        f"- PyTorch vs Python onnxruntime: max relative difference {info['parity']['max_relative_difference']:.1e} "
        f"over {info['parity']['points']} held-out points.",
        f"- PyTorch vs Rust (`autosched score`: Rust featurizer + ort): max relative difference {worst:.1e} over "
        f"{compared} held-out points.",
        f"- Rust inference, one batch of 32 candidates (one call, one thread): median "
        f"{timing['median_ms']:.2f} ms (min {timing['min_ms']:.2f}, max {timing['max_ms']:.2f}, "
        f"{timing['repetitions']} repetitions) on {timing['machine']}.",
        "",
    ]
    discussion = ROOT / "onnx/report-discussion.md"
    if discussion.exists():
        lines += [discussion.read_text()]
    (ROOT / "onnx/REPORT.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
