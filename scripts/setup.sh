#!/usr/bin/env bash
# Sets up affine-autosched on a fresh Debian 12 machine, as root, and builds it.
# Idempotent: run it again at any time; it only installs what is missing and rebuilds
# what changed.
#
#   bash scripts/setup.sh            # apt packages, .venv, cargo + cmake build
#
# Environment: AUTOSCHED_SKIP_APT=1 skips the apt step (for machines set up already).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
log() { printf '\n== %s\n' "$*"; }

# LLVM/MLIR 22 and what linking against them needs (see ../shared/DESIGN.md).
APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 libomp-22-dev libpolly-22-dev
  libzstd-dev libz3-dev libxml2-dev zlib1g-dev libedit-dev libffi-dev
  cmake ninja-build python3-venv g++ pkg-config
  libopenblas-dev  # the benchmarks' BLAS column (benchmarks/*/*.blas.c)
)

if [[ "${AUTOSCHED_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "apt: installing ${missing[*]}"
    SUDO=""
    [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  else
    log "apt: all packages present"
  fi
fi

command -v mlir-opt-22 >/dev/null || { echo "mlir-opt-22 not found after the apt step" >&2; exit 1; }

# Rust: the machine's rustup toolchain (melior and its build scripts need a recent rustc).
if ! command -v cargo >/dev/null; then
  [[ -x "$HOME/.cargo/bin/cargo" ]] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null || {
  echo "cargo not found: install a Rust toolchain (rustup, Rust >= 1.88) and re-run" >&2
  exit 1
}

log "python: .venv with scripts/requirements.txt"
if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -m pip install --disable-pip-version-check -q -r scripts/requirements.txt; then
  echo "pip install failed (see above)" >&2
  exit 1
fi

log "build: cmake (libMLIR-C.so, the Rust core, the plugin)"
start=$(date +%s)
cmake -G Ninja -S . -B build -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
cmake --build build
echo "build took $(( $(date +%s) - start )) s"
test -f build/lib/libAffineAutosched.so
log "ready: build/lib/libAffineAutosched.so and build/cargo/release/autosched"
