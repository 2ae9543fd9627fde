# lit configuration for affine-autosched's FileCheck tests.
#   .venv/bin/lit -v test-mlir          (after cmake --build build)
import os
import shutil

import lit.formats

config.name = "affine-autosched"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.test_source_root, "Output")

root = os.path.dirname(config.test_source_root)
build = os.environ.get("AUTOSCHED_BUILD_DIR", os.path.join(root, "build"))
llvm_bin = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")

plugin = os.path.join(build, "lib", "libAffineAutosched.so")
autosched = os.path.join(build, "cargo", "release", "autosched")
for needed in (plugin, autosched):
    if not os.path.exists(needed):
        lit_config.fatal(f"{needed} is missing: build first (cmake --build build)")
if shutil.which("mlir-opt-22") is None:
    lit_config.fatal("mlir-opt-22 is not on PATH: run scripts/setup.sh")

config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%autosched", autosched))
# The project's venv (it has onnx, numpy, ...), unless overridden.
venv_python = os.path.join(root, ".venv", "bin", "python")
default_python = venv_python if os.path.exists(venv_python) else "python3"
config.substitutions.append(("%python", os.environ.get("AUTOSCHED_PYTHON", default_python)))
# FileCheck, not and count come from LLVM 22.
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])
for var in ("HOME", "RUST_LOG", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
