"""Run `autosched datagen` shards as Ray tasks and gather them into one dataset.

On one machine (Ray starts a local instance):
    .venv/bin/python onnx/datagen_ray.py --programs 2000 --shards 8 --out onnx/data/raw-ray
On a cluster, with `autosched` and LLVM 22 installed on every node (scripts/setup.sh):
    .venv/bin/python onnx/datagen_ray.py --address auto --programs 100000 --shards 400 --out DIR

Each task runs one shard in a node-local directory (resumable there: a retried task goes
on where it stopped) and returns the shard's JSON Lines; the driver writes them to
OUT/shard-<i>-of-<n>.jsonl and merges everything into OUT/merged.jsonl.gz with
`autosched merge`. Shards already gathered in OUT are not run again.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

import ray
from tqdm import tqdm

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"


@ray.remote(num_cpus=1, max_retries=2)
def run_shard(autosched: str, seed: int, programs: int, schedules: int, shard: int, shards: int,
              reps: int, threads: int, sizes: str = "real") -> dict:
    """Runs one shard on the node this task landed on; returns its points and failures."""
    work = pathlib.Path(tempfile.gettempdir()) / f"autosched-ray-s{seed}-{shard}-of-{shards}"
    work.mkdir(parents=True, exist_ok=True)
    cmd = [autosched, "datagen", "--seed", str(seed), "--programs", str(programs),
           "--schedules-per-program", str(schedules), "--shard", f"{shard}/{shards}",
           "--reps", str(reps), "--threads", str(threads), "--out", str(work), "--quiet",
           "--sizes", sizes,
           # Shards share the node's cores: each would wait for the others to be quiet.
           "--no-quiet-wait"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    stem = f"shard-{shard}-of-{shards}"
    data = work / f"{stem}.jsonl"
    failed = work / f"{stem}.failed.jsonl"
    return {
        "shard": shard,
        "returncode": done.returncode,
        "summary": done.stderr.strip().splitlines()[-1:] if done.stderr else [],
        "data": data.read_text() if data.exists() else "",
        "failed": failed.read_text() if failed.exists() else "",
    }


def gather(futures, failure, save) -> int:
    """Waits for shard tasks as they finish, with a progress bar: `failure(result)` says why
    one failed (None: it did not), `save(result)` keeps one that did not. Returns 1 if any
    failed, else 0. Shared by the tuning driver (onnx/tune_ray.py)."""
    status = 0
    with tqdm(total=len(futures), desc="shards", unit="shard") as bar:
        pending = futures
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            result = ray.get(ready[0])
            why = failure(result)
            if why is not None:
                print(f"shard {result['shard']} failed: {why}", file=sys.stderr)
                status = 1
            else:
                save(result)
            bar.set_postfix_str(" ".join(result["summary"])[-80:])
            bar.update(1)
    return status


def write_atomically(path: pathlib.Path, text: str):
    """A shard file present means the shard is complete."""
    tmp = path.with_suffix(".partial")
    tmp.write_text(text)
    tmp.rename(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", help="Ray cluster address ('auto' to join one); default: a local instance")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, required=True)
    ap.add_argument("--schedules-per-program", type=int, default=16)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", choices=["real", "toy"], default="real",
                    help="program sizes (real: what users run; toy: the first dataset's)")
    ap.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS of parallel variants")
    ap.add_argument("--num-cpus", type=int, help="CPUs of the local Ray instance")
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--autosched", default=os.environ.get("AUTOSCHED_BIN", str(DEFAULT_AUTOSCHED)))
    args = ap.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)

    def shard_file(i: int) -> pathlib.Path:
        return args.out / f"shard-{i}-of-{args.shards}.jsonl"

    todo = [i for i in range(args.shards) if not shard_file(i).exists()]
    futures = [run_shard.remote(args.autosched, args.seed, args.programs, args.schedules_per_program,
                                i, args.shards, args.reps, args.threads, args.sizes) for i in todo]
    def save(result):
        i = result["shard"]
        write_atomically(shard_file(i), result["data"])
        if result["failed"]:
            (args.out / f"shard-{i}-of-{args.shards}.failed.jsonl").write_text(result["failed"])

    status = gather(futures, lambda r: None if r["returncode"] in (0, 1) else r["summary"], save)
    ray.shutdown()
    merged = args.out / "merged.jsonl.gz"
    subprocess.run([args.autosched, "merge", str(args.out), "--out", str(merged)], check=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
