"""onnx/host_split.py: one host's points, and the other hosts' points of programs it never ran."""

import gzip
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import host_split  # noqa: E402


def machine(l2_kib):
    return {"cpu": "AMD EPYC", "cores": 2, "isa": ["avx2"],
            "caches": [{"level": 1, "bytes": 32768}, {"level": 2, "bytes": l2_kib * 1024}]}


def read(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def test_a_host_keeps_its_points_and_the_others_lose_its_programs(tmp_path):
    big, small = machine(1024), machine(512)
    points = [
        {"program_id": "p0", "schedule": "", "machine": big},
        {"program_id": "p0", "schedule": "a", "machine": big},
        {"program_id": "p1", "schedule": "", "machine": big},
        # p1 measured again on the other host: judged on host A, so never trained on elsewhere.
        {"program_id": "p1", "schedule": "b", "machine": small},
        {"program_id": "p2", "schedule": "", "machine": small},
    ]
    data = tmp_path / "data.jsonl.gz"
    with gzip.open(data, "wt") as f:
        f.writelines(json.dumps(p) + "\n" for p in points)
    here, elsewhere = tmp_path / "here.jsonl.gz", tmp_path / "elsewhere.jsonl.gz"
    # A is the host with the most points, as the data card names it.
    assert host_split.main([str(data), "--host", "A", "--here", str(here), "--elsewhere", str(elsewhere)]) == 0
    assert [(p["program_id"], p["schedule"]) for p in read(here)] == [("p0", ""), ("p0", "a"), ("p1", "")]
    assert [(p["program_id"], p["schedule"]) for p in read(elsewhere)] == [("p2", "")]
    assert host_split.main([str(data), "--host", "C", "--here", str(here), "--elsewhere", str(elsewhere)]) == 2
