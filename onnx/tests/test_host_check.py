"""host_check pairs the same points of two files and counts the pairs that keep their order."""
import gzip
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import host_check  # noqa: E402


def write(path, points, l2):
    machine = {"caches": [{"level": 2, "bytes": l2}]}
    with gzip.open(path, "wt") as f:
        for pid, sched, s in points:
            f.write(json.dumps({"program_id": pid, "schedule": sched, "speedup": s, "censored": False,
                                "machine": machine}) + "\n")


def test_speedup_ratios_and_kept_order(tmp_path, capsys):
    first = [("p", "", 1.0), ("p", "a", 2.0), ("p", "b", 1.0), ("p", "c", 0.5)]
    # On the second host b and c swap; a is 10% faster.
    again = [("p", "", 1.0), ("p", "a", 2.2), ("p", "b", 0.4), ("p", "c", 0.8)]
    write(tmp_path / "first.jsonl.gz", first, 1 << 20)
    write(tmp_path / "again.jsonl.gz", again, 1 << 19)
    assert host_check.main([str(tmp_path / "first.jsonl.gz"), str(tmp_path / "again.jsonl.gz")]) == 0
    out = capsys.readouterr().out
    assert "L2 1024 KiB -> 512 KiB: 3 points" in out
    assert "median 1.100" in out
    # (a,b) and (a,c) keep their order, (b,c) swaps.
    assert "2/3 = 0.667" in out
