"""The pessimistic rule at other coverages of a Laplace network's interval: what the pass
would pick among the measured schedules of each validation and test program if the
interval it takes the low end of were calibrated to another coverage.

    .venv/bin/python onnx/coverage_sweep.py --checkpoint build/report-real/regression-laplace/model.pt

A Laplace interval at coverage a is exp(mu ± b ln(1/(1-a))): the exported ends at the
calibrated coverage give mu and b, and any other coverage follows. Choose on validation.
"""

import argparse
import math
import pathlib
import sys

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "onnx"))
import data as data_mod  # noqa: E402
import report  # noqa: E402
from export import load_model  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True, help="model.pt of a train.py --laplace training")
    p.add_argument("--data", default=str(ROOT / "build/report-real/features"), help="its featurized dataset")
    p.add_argument("--coverages", default="0.3,0.5,0.6,0.7,0.8")
    args = p.parse_args(argv)
    model = load_model(args.checkpoint)[0]
    if not getattr(model, "laplace", None):
        sys.exit(f"{args.checkpoint} has no Laplace interval (train.py --laplace)")
    data = data_mod.Featurized(args.data)
    _, val_p, test_p = data_mod.split_programs(data.programs, 1)
    print("| coverage | set | geomean | changed | below 0.95x | worst |\n|---|---|---|---|---|---|")
    for name, progs in (("validation", val_p), ("test", test_p)):
        pred, idx = report.member_predictions([model], data, progs)
        mu, b = (t.numpy() for t in model.laplace_parts(torch.from_numpy(pred)))
        for a in (float(c) for c in args.coverages.split(",")):
            z = -math.log(1.0 - a)
            r = report.decisions(np.exp(np.stack([mu - b * z, mu + b * z], axis=1)), data, idx,
                                 interval=True)["pessimistic (pass)"]
            print(f"| {a:.0%} | {name} | {r['geomean']:.2f}x | {r['changed']} | {r['below_0.95']} | "
                  f"{r['worst']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
