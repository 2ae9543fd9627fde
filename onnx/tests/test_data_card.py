"""The data card of a dataset grown in parts: every part's programs, every command, the notes,
and the schedules' lengths, counted from the points themselves."""

import gzip
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import data_card  # noqa: E402

MACHINE = {"cpu": "test", "cores": 2, "llvm": "22", "threads": 2,
           "caches": [{"level": 1, "bytes": 32768}, {"level": 3, "bytes": 1 << 25}]}


def point(pid, schedule, speedup):
    return {"program_id": pid, "class": "wide" if "wide" in pid else "reduction", "schedule": schedule,
            "speedup": speedup, "spread": 0.01, "noisy": False, "batch_compile_s": 1.0, "batch_run_s": 0.5,
            "batch_size": 3, "machine": MACHINE, "identity_time_s": 0.01,
            "representation": {"buffers": [{"shape": [64, 64], "element_type": "f32"}]}}


def test_the_card_counts_parts_and_schedule_lengths(tmp_path):
    points = []
    for pid in ["r1-p3", "r2-p0", "r2-wide-p0", "r2-wide-p1"]:
        points += [point(pid, "", 1.0), point(pid, "tile(L0:32)", 1.5),
                   point(pid, "interchange(L0, L0.0); tile(L0:32); unroll(L0.0:2); parallelize(L0)", 0.5)]
    data = tmp_path / "d.jsonl.gz"
    with gzip.open(data, "wt") as f:
        f.write("\n".join(json.dumps(p) for p in points) + "\n")
    assert data_card.main([str(data), "--out-dir", str(tmp_path), "--command", "autosched datagen A",
                           "--command", "autosched datagen B", "--note", "Some points were measured again."]) == 0
    card = (tmp_path / "README.md").read_text()
    assert "`autosched datagen A`; `autosched datagen B`" in card
    assert "Some points were measured again." in card
    assert "| `r2-wide-p*` | 2 | 6 |" in card
    assert "| `r1-p*` | 1 | 3 |" in card
    assert "| 1 | 4 | 1.500 | 100.0% |" in card
    assert "| 4 | 4 | 0.500 | 0.0% |" in card


def test_the_card_tells_the_hosts_apart_and_compares_them_on_shared_programs(tmp_path):
    other = dict(MACHINE, caches=[{"level": 1, "bytes": 32768}, {"level": 2, "bytes": 524288}],
                 isa=["avx", "avx2", "fma"])
    points = []
    for i in range(10):
        pid = f"r1-p{i}"
        points += [point(pid, "", 1.0), point(pid, "tile(L0:32)", 1.5)]
        if i < 4:  # measured again on the other host: its identity runs 2x longer there
            again = dict(point(pid, "vectorize(L0:8)", 1.2), machine=other, identity_time_s=0.02)
            points.append(again)
    data = tmp_path / "d.jsonl.gz"
    with gzip.open(data, "wt") as f:
        f.write("\n".join(json.dumps(p) for p in points) + "\n")
    assert data_card.main([str(data), "--out-dir", str(tmp_path)]) == 0
    card = (tmp_path / "README.md").read_text()
    assert "| A | test, 2 cores, ISA not recorded, L1 32 KiB, L3 32768 KiB | 10 | 20 |" in card
    assert "| B | test, 2 cores, AVX2, L1 32 KiB, L2 512 KiB | 4 | 4 |" in card
    assert "4 programs have an identity measured on hosts A and B: its time on B over A, median 2.00x" in card
    # The caches the working sets are compared with are the host most points ran on.
    assert "L1 32 KiB, L3 32768 KiB." in card
