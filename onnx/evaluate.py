"""Held-out figures of trained networks, alone and as the ensemble the pass runs, on any
featurized data: the dataset's test programs, or a chunk of programs never trained on.

    .venv/bin/python onnx/evaluate.py --checkpoints onnx/model.pt onnx/model.seed1.pt --data F --split test
    .venv/bin/python onnx/evaluate.py --checkpoints M0/model.pt M1/model.pt --data HELD_OUT_CHUNK --json out.json

--split test takes the test programs of train.py's split (--split-seed, 1 as for the shipped
networks); --split all every program of --data (a chunk kept out of training). --unseen-by
MODEL_JSON leaves out the programs a model saw in training (data that grew after it). Prints
Spearman, nDCG@5 and MAPE of the ensemble (the geometric mean of the members' intervals,
as onnx/export.py builds it) and of each member, overall and per class; and the ensemble's
first choice among each program's measured schedules as a fraction of the best one, by how far
the program's best goes (programs whose best runs 8x or more are where the benchmark
contractions are, and where a wrong first choice costs most).
"""

import argparse
import json
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import adapt  # noqa: E402
import data as data_mod  # noqa: E402
import metrics  # noqa: E402
import train as train_mod  # noqa: E402
from model import Ensemble  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoints", required=True, nargs="+", help="train.py checkpoints (model.pt files)")
    p.add_argument("--data", required=True, help="`autosched featurize` output")
    p.add_argument("--split", choices=["test", "all"], default="all")
    p.add_argument("--split-seed", type=int, default=1)
    p.add_argument("--unseen-by", nargs="+", default=[], metavar="MODEL_JSON",
                   help="leave out the programs any of these models trained or validated on "
                        "(model.json's training.seen_programs): comparing models on data that grew")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--predictions", metavar="NPZ",
                   help="write the ensemble's prediction of every evaluated point here (point: its index in "
                        "--data, predicted, measured): to group the errors by a feature")
    p.add_argument("--threads", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    data = data_mod.Featurized(args.data)
    if args.split == "test":
        _, _, programs = data_mod.split_programs(data.programs, args.split_seed)
    else:
        programs = np.arange(len(data.programs))
    seen = set()
    for path in args.unseen_by:
        training = json.loads(pathlib.Path(path).read_text()).get("training", {})
        if "seen_programs" not in training:
            raise SystemExit(f"--unseen-by {path}: no training.seen_programs in it")
        seen |= set(training["seen_programs"])
    if seen:
        programs = np.array([i for i in programs if data.programs[i] not in seen], dtype=np.int64)
    models = [adapt.load_base(c, data)[0].eval() for c in args.checkpoints]
    whole = models[0] if len(models) == 1 else Ensemble(models).eval()
    out = {"data": args.data, "split": args.split, "unseen_by": args.unseen_by, "programs": int(len(programs)),
           "checkpoints": args.checkpoints}
    with torch.no_grad():
        fig, preds = train_mod.evaluate(whole, data, programs, torch.device("cpu"), 32)
        out["ensemble"] = fig
        sel = np.isin(data.program, programs)
        out["picks"] = metrics.picks(preds[sel], data.speedup[sel], data.program[sel])
        out["members"] = [adapt.figures(m, data, programs) for m in models] if len(models) > 1 else []
    if args.predictions:
        points = np.flatnonzero(sel)
        np.savez(args.predictions, point=points, predicted=preds[sel], measured=data.speedup[sel])
    print(f"{args.data} ({args.split}, {len(programs)} programs)")
    for name, f in fig.items():
        if name == "all" or name.startswith("class:") or name.startswith("host:"):
            print(f"  {name:40} Spearman {f['spearman']:.3f}  nDCG@5 {f['ndcg@5']:.3f}  MAPE {100 * f['mape']:.1f}%"
                  f"  ({f.get('programs', '?')} programs)")
    for name, f in out["picks"].items():
        print(f"  first choice, programs {name:10} {f['pick_over_best']:.3f} of the best measured (geomean), "
              f"{100 * f['at_0.8']:.0f}% at 0.8 of it or more  ({f['programs']} programs)")
    for k, f in enumerate(out["members"]):
        print(f"  member {k}: Spearman {f['spearman']:.3f}  nDCG@5 {f['ndcg@5']:.3f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
