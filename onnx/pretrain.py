"""Pre-train the model's computation encoder as an autoencoder on unlabeled computation
vectors (`autosched vectors`), as in the pre-training paper (../shared/seeds,
pretraining-performance-model: an encoder trained to reconstruct computation vectors needs
no measurement, so it can see millions of programs). train.py --pretrained then starts
from this encoder, frozen until the validation loss stops improving, then fine-tuned at a
fifth of the learning rate.

    build/cargo/release/autosched vectors --programs 100000 --out build/vectors
    .venv/bin/python onnx/pretrain.py --vectors build/vectors --out build/pretrain

Writes OUT/encoder.pt (the encoder's weights and the feature normalization fitted on the
vectors, with the layout hash) and OUT/history.json.
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
from model import CostModel, mlp  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vectors", required=True, help="directory written by `autosched vectors`")
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--validation", type=float, default=0.05, help="fraction of vectors held out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


class AutoEncoder(torch.nn.Module):
    """The cost model's computation encoder (same shapes, so its weights load into it) and a
    mirrored decoder; reconstruction is of the standardized vector."""

    def __init__(self, features):
        super().__init__()
        template = CostModel(features, dropout=0.0)
        self.embed = template.embed
        self.register_buffer("feature_mean", torch.zeros(features))
        self.register_buffer("feature_scale", torch.ones(features))
        self.encoder = template.comp_mlp
        hidden = [m.out_features for m in self.encoder if isinstance(m, torch.nn.Linear)][:-1]
        self.decoder = mlp([self.embed, *reversed(hidden), features], 0.0, last_activation=False)

    def forward(self, x):
        z = (x - self.feature_mean) * self.feature_scale
        return self.decoder(self.encoder(z)), z


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    src = pathlib.Path(args.vectors)
    meta = json.loads((src / "meta.json").read_text())
    x = torch.from_numpy(np.load(src / "vectors.npy").astype(np.float32))
    n = len(x)
    perm = torch.from_numpy(np.random.default_rng(args.seed).permutation(n))
    n_val = max(1, int(args.validation * n))
    val, train = x[perm[:n_val]], x[perm[n_val:]]
    model = AutoEncoder(meta["features"])
    std = train.std(dim=0)
    model.feature_mean.copy_(train.mean(dim=0))
    model.feature_scale.copy_(torch.where(std > 1e-6, 1.0 / std, torch.ones_like(std)))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    history, t0 = [], time.time()
    for epoch in tqdm(range(args.epochs), desc="epochs", disable=args.quiet):
        model.train()
        order = torch.randperm(len(train))
        total = 0.0
        for i in range(0, len(train), args.batch):
            batch = train[order[i:i + args.batch]]
            rec, target = model(batch)
            loss = torch.mean((rec - target) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(batch)
        model.eval()
        with torch.no_grad():
            rec, target = model(val)
            val_mse = float(torch.mean((rec - target) ** 2))
        history.append({"epoch": epoch + 1, "train_mse": total / len(train), "val_mse": val_mse,
                        "seconds": time.time() - t0})
        if args.quiet:
            print(f"epoch {epoch + 1}: train MSE {total / len(train):.4f}, validation MSE {val_mse:.4f}", flush=True)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save({
        "layout_hash": meta["layout_hash"],
        "features": meta["features"],
        "encoder": model.encoder.state_dict(),
        "feature_mean": model.feature_mean.clone(),
        "feature_scale": model.feature_scale.clone(),
        "vectors": n,
        "validation_mse": history[-1]["val_mse"] if history else None,
    }, out / "encoder.pt")
    (out / "history.json").write_text(json.dumps(history, indent=1))
    print(f"pre-trained the computation encoder on {n - n_val} vectors: validation MSE "
          f"{history[-1]['val_mse']:.4f} (of standardized features) -> {out / 'encoder.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
