"""Smoke test of the Ray driver: a local Ray instance runs two tiny shards of datagen."""

import gzip
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import datagen_ray  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"


@pytest.mark.skipif(not AUTOSCHED.exists(), reason="build first (scripts/setup.sh)")
def test_two_shards_gather_and_merge(tmp_path):
    out = tmp_path / "ray"
    status = datagen_ray.main([
        "--programs", "4", "--schedules-per-program", "2", "--shards", "2", "--reps", "1",
        "--num-cpus", "2", "--seed", "3", "--sizes", "toy", "--out", str(out), "--autosched", str(AUTOSCHED),
    ])
    assert status == 0
    assert (out / "shard-0-of-2.jsonl").exists() and (out / "shard-1-of-2.jsonl").exists()
    with gzip.open(out / "merged.jsonl.gz", "rt") as f:
        points = [json.loads(line) for line in f]
    programs = {p["program_id"] for p in points}
    # Shard i holds the programs i, i+2, ...: both shards contributed.
    assert {int(p.split("-p")[1]) % 2 for p in programs} == {0, 1}
    assert all(p["speedup"] > 0 for p in points)
    identities = [p for p in points if p["schedule"] == ""]
    assert len(identities) == len(programs)
    # A second run finds every shard gathered and only merges again.
    assert datagen_ray.main([
        "--programs", "4", "--shards", "2", "--num-cpus", "1", "--seed", "3",
        "--out", str(out), "--autosched", str(AUTOSCHED),
    ]) == 0
