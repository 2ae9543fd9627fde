#!/usr/bin/env bash
# Runs the whole test suite: builds, then cargo tests and the lit tests.
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x .venv/bin/lit ]] || { echo "run scripts/setup.sh first (no .venv/bin/lit)" >&2; exit 1; }
command -v cargo >/dev/null || export PATH="$HOME/.cargo/bin:$PATH"

echo "== build"
cmake --build build

# The same target dir and libMLIR-C.so as the CMake build, so nothing is compiled twice.
export CARGO_TARGET_DIR=$PWD/build/cargo AUTOSCHED_MLIR_C_DIR=$PWD/build/lib
echo "== cargo test"
cargo test --release 2>&1 | tee build/cargo-test.log
echo "== lit"
.venv/bin/lit -sv test-mlir 2>&1 | tee build/lit.log

echo "== fuzz (smoke campaign: random programs through the pass, every result run against the original)"
rm -rf build/fuzz-smoke
if ! build/cargo/release/autosched fuzz --programs 300 --hybrid-every 50 --out build/fuzz-smoke --quiet >build/fuzz-smoke.log 2>&1; then
  cat build/fuzz-smoke.log
  echo "fuzz smoke campaign failed: see build/fuzz-smoke/failures/" >&2
  exit 1
fi
sed -n '3,8p' build/fuzz-smoke.log

echo "== pytest (training smoke, export and parity; benchmarks: equivalence of every optimized kernel, harness smoke)"
.venv/bin/python -m pytest -q onnx/tests benchmarks/tests 2>&1 | tee build/pytest.log

# One summary line over all runners (each failed above already if anything failed).
cargo_pass=$(grep -Eo '^test result: ok\. [0-9]+ passed' build/cargo-test.log | awk '{s+=$4} END {print s+0}')
lit_pass=$(grep -Eo 'Passed *: *[0-9]+' build/lit.log | grep -Eo '[0-9]+$' || echo 0)
py_pass=$(grep -Eo '[0-9]+ passed' build/pytest.log | tail -1 | grep -Eo '[0-9]+' || echo 0)
echo "cargo: ${cargo_pass} passed, lit: ${lit_pass} passed, pytest: ${py_pass} passed"
echo "tests: $((cargo_pass + lit_pass + py_pass)) passed, 0 failed"
