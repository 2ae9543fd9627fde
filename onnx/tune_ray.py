"""Spread `autosched tune` over Ray tasks and gather the records into one database.

On one machine (Ray starts a local instance):
    .venv/bin/python onnx/tune_ray.py benchmarks/polybench --records tuned.db --shards 2
On a cluster, with `autosched` and LLVM 22 installed on every node (scripts/setup.sh):
    .venv/bin/python onnx/tune_ray.py KERNELS/ --records tuned.db --address auto --shards 64

Each task tunes shard i of n (`autosched tune --shard i/n`: every n-th function over the
sorted files) into a node-local database (resumable there: a retried task goes on where it
stopped) and returns it as JSON Lines; the driver keeps each shard's lines in
RECORDS.shards/shard-<i>-of-<n>.jsonl and imports them into RECORDS (importing twice adds
nothing). Shards already gathered are not run again. Records carry the fingerprint of the
node that measured them, so a cluster of several machine kinds yields records for each
kind, and each machine applies only its own.

The files travel with the tasks (their text, under their paths relative to the common
parent), so nodes need no shared file system. A task asks for --cpus-per-task CPUs (by
default 2, a whole machine of this project's kind): measurements need a quiet machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import ray

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from datagen_ray import gather, write_atomically  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"


def mlir_files(inputs: list[pathlib.Path]) -> list[pathlib.Path]:
    out = []
    for p in inputs:
        out.extend(sorted(p.rglob("*.mlir")) if p.is_dir() else [p])
    return sorted(set(q.resolve() for q in out))


@ray.remote(max_retries=2)
def run_shard(autosched: str, files: dict[str, str], shard: int, shards: int, evaluator: str,
              budget: str | None, key: str) -> dict:
    """Tunes one shard on the node this task landed on; returns its records as JSON Lines."""
    work = pathlib.Path(tempfile.gettempdir()) / f"autosched-tune-{key}-{shard}-of-{shards}"
    src = work / "files"
    for rel, text in files.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    db = work / "records.db"
    cmd = [autosched, "tune", str(src), "--records", str(db), "--evaluator", evaluator,
           "--shard", f"{shard}/{shards}", "--quiet"]
    if budget:
        cmd += ["--budget", budget]
    done = subprocess.run(cmd, capture_output=True, text=True)
    exported = subprocess.run([autosched, "records", "export", str(db)], capture_output=True, text=True)
    return {
        "shard": shard,
        "returncode": done.returncode,
        "summary": done.stdout.strip().splitlines()[-1:] + done.stderr.strip().splitlines()[-1:],
        "records": exported.stdout if exported.returncode == 0 else "",
        "export_error": exported.stderr.strip() if exported.returncode != 0 else "",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", type=pathlib.Path, help=".mlir files or directories")
    ap.add_argument("--records", type=pathlib.Path, required=True, help="the database to gather into")
    ap.add_argument("--address", help="Ray cluster address ('auto' to join one); default: a local instance")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--evaluator", choices=["hybrid", "execution"], default="hybrid")
    ap.add_argument("--budget", help="per shard, as autosched tune takes it (30m, 2h)")
    ap.add_argument("--cpus-per-task", type=int, default=2)
    ap.add_argument("--num-cpus", type=int, help="CPUs of the local Ray instance")
    ap.add_argument("--autosched", default=os.environ.get("AUTOSCHED_BIN", str(DEFAULT_AUTOSCHED)))
    args = ap.parse_args(argv)

    files = mlir_files(args.inputs)
    if not files:
        print("no .mlir files", file=sys.stderr)
        return 2
    base = pathlib.Path(os.path.commonpath([f.parent for f in files]))
    texts = {str(f.relative_to(base)): f.read_text() for f in files}
    key = hashlib.sha256(json.dumps(sorted(texts.items())).encode()).hexdigest()[:12]
    gathered = pathlib.Path(str(args.records) + ".shards")
    gathered.mkdir(parents=True, exist_ok=True)

    def shard_file(i: int) -> pathlib.Path:
        return gathered / f"shard-{i}-of-{args.shards}.jsonl"

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    todo = [i for i in range(args.shards) if not shard_file(i).exists()]
    task = run_shard.options(num_cpus=args.cpus_per_task)
    futures = [task.remote(args.autosched, texts, i, args.shards, args.evaluator, args.budget, key) for i in todo]
    def failure(r):
        ok = r["returncode"] in (0, 1) and not r["export_error"]
        return None if ok else f"{r['summary']} {r['export_error']}"

    status = gather(futures, failure, lambda r: write_atomically(shard_file(r["shard"]), r["records"]))
    ray.shutdown()
    shards = sorted(gathered.glob(f"shard-*-of-{args.shards}.jsonl"))
    if shards:
        subprocess.run([args.autosched, "records", "import", str(args.records), *map(str, shards)], check=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
