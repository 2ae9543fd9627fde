"""Pre-optimize an exported cost model's graph, so that the pass does not optimize it again
on every run.

    .venv/bin/python onnx/preoptimize.py onnx/model.onnx

ONNX Runtime optimizes a graph each time it creates a session: for the shipped model
(about 1,300 nodes) that was 0.28 s of the 0.53 s the pass spent creating its session,
out of a search of about a second. This writes the graph as ONNX Runtime's extended level
leaves it (constant folding, redundant nodes removed, fusions into its contrib ops; not the
layout level, whose graphs hold CPU-specific kernels) over the file, and marks it in the
metadata (`graph_optimized`); the Rust side then creates sessions with optimization off
(src/cost_model.rs). export.py calls it before its parity check, so that PyTorch is compared
with the graph that ships; on a model exported before, run it by hand: the cargo tests
(tests/cost_model.rs) check the file against the PyTorch predictions of onnx/reference.json.
"""

import argparse
import pathlib
import sys
import tempfile

import onnx
import onnxruntime as ort

# The metadata key the Rust side reads (src/cost_model.rs, OPTIMIZED_KEY).
OPTIMIZED_KEY = "graph_optimized"


def optimized_level(path) -> str | None:
    """The level a file was pre-optimized at, or None."""
    for p in onnx.load(str(path), load_external_data=False).metadata_props:
        if p.key == OPTIMIZED_KEY:
            return p.value
    return None


def preoptimize(path) -> str:
    """Rewrites `path` pre-optimized (unless it is already); returns the level's name."""
    path = pathlib.Path(path)
    done = optimized_level(path)
    if done:
        return done
    level = f"extended (onnxruntime {ort.__version__})"
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "optimized.onnx"
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        so.optimized_model_filepath = str(out)
        ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        model = onnx.load(str(out))
        entry = model.metadata_props.add()
        entry.key, entry.value = OPTIMIZED_KEY, level
        onnx.save(model, str(out))
        path.write_bytes(out.read_bytes())
    return level


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", nargs="+")
    args = p.parse_args(argv)
    for m in args.model:
        before = pathlib.Path(m).stat().st_size
        print(f"{m}: {preoptimize(m)} ({before / 1e6:.1f} MB -> {pathlib.Path(m).stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
