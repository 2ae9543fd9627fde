"""Smoke test of the Ray tuning driver: a local Ray instance tunes two shards of functions
with the execution evaluator and gathers their records into one database."""

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))

import tune_ray  # noqa: E402

AUTOSCHED = ROOT / "build" / "cargo" / "release" / "autosched"

KERNEL = """
func.func @copy_{n}(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {{
  affine.for %i = 0 to 64 {{
    affine.for %j = 0 to {m} {{
      %v = affine.load %a[%j, %i] : memref<64x64xf32>
      affine.store %v, %b[%i, %j] : memref<64x64xf32>
    }}
  }}
  return
}}
"""


@pytest.mark.skipif(not AUTOSCHED.exists(), reason="build first (scripts/setup.sh)")
def test_two_shards_gather_into_one_database(tmp_path):
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "a.mlir").write_text(KERNEL.format(n=0, m=64) + KERNEL.format(n=1, m=63))
    (kernels / "sub").mkdir()
    (kernels / "sub" / "b.mlir").write_text(KERNEL.format(n=2, m=62))
    db = tmp_path / "tuned.db"
    argv = [str(kernels), "--records", str(db), "--shards", "2", "--evaluator", "execution",
            "--cpus-per-task", "1", "--num-cpus", "2", "--autosched", str(AUTOSCHED)]
    assert tune_ray.main(argv) == 0
    exported = subprocess.run([str(AUTOSCHED), "records", "export", str(db)], capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    assert sorted(r["function"] for r in records) == ["copy_0", "copy_1", "copy_2"]
    assert all(r["evaluator"] == "execution" and r["speedup"] > 0 for r in records)
    # A second run finds both shards gathered, runs nothing and imports nothing new.
    assert tune_ray.main(argv) == 0
    again = subprocess.run([str(AUTOSCHED), "records", "export", str(db)], capture_output=True, text=True, check=True)
    assert again.stdout == exported.stdout
