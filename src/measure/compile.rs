//! Lowering an affine module to a native shared library for the host CPU, by running the
//! LLVM 22 tools: mlir-opt-22 (the lowering pipeline of DESIGN.md), mlir-translate-22, then
//! clang-22 at -O3 with -march=native and OpenMP.
//!
//! Spawning the tools (rather than JIT-compiling in-process) keeps a crash of MLIR or LLVM
//! on a strange transformed program from taking the caller down, and needs no second copy
//! of the lowering logic; it costs about 0.3 s per variant.

use super::MeasureError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The lowering pipeline: affine -> scf (+ OpenMP for parallel loops) -> LLVM dialect.
/// finalize-memref-to-llvm must precede convert-scf-to-cf; the second lower-affine catches
/// the affine.apply that vector-to-scf creates; convert-openmp-to-llvm must precede
/// convert-vector-to-llvm, which otherwise leaves `index` operands on the `llvm.br` inside
/// an OpenMP loop whose body holds a loop bounded by the parallel induction variable
/// ("'llvm.br' op operand #0 must be variadic of LLVM dialect-compatible type, but got
/// 'index'"; test-mlir/lowering.mlir). README.md ("Lowering the pass's output") and
/// test-mlir/lowering.mlir spell it out: keep them in step (checked below).
pub const LOWERING: &[&str] = &[
    "--lower-affine",
    "--convert-scf-to-openmp",
    "--convert-vector-to-scf",
    "--lower-affine",
    "--finalize-memref-to-llvm",
    "--convert-scf-to-cf",
    "--convert-openmp-to-llvm",
    "--convert-vector-to-llvm",
    "--convert-to-llvm",
    "--reconcile-unrealized-casts",
];

pub const MLIR_OPT: &str = "mlir-opt-22";
pub const MLIR_TRANSLATE: &str = "mlir-translate-22";
pub const CLANG: &str = "clang-22";

/// Flags of the final compilation; recorded with every measurement.
pub const CLANG_FLAGS: &[&str] = &["-O3", "-march=native", "-fopenmp", "-fPIC"];

fn run(tool: &str, args: &[&std::ffi::OsStr], stage: &'static str, timeout: Duration) -> Result<(), MeasureError> {
    let mut cmd = Command::new(tool);
    cmd.args(args);
    let (status, _, stderr) = super::output_with_timeout(cmd, timeout).map_err(|e| match e {
        MeasureError::Io(m) => MeasureError::Tool {
            stage,
            message: format!("{m} (is LLVM 22 installed? see scripts/setup.sh)"),
        },
        MeasureError::Timeout(t) => MeasureError::Tool { stage, message: format!("{tool} timed out after {t:?}") },
        other => other,
    })?;
    if !status.success() {
        return Err(MeasureError::Tool {
            stage,
            message: format!("{tool} failed: {}", stderr.lines().take(12).collect::<Vec<_>>().join("\n")),
        });
    }
    Ok(())
}

/// Compiles `mlir` (a module whose measured function has `llvm.emit_c_interface`) into
/// `dir/<stem>.so`.
pub fn shared_library(mlir: &str, dir: &Path, stem: &str, timeout: Duration) -> Result<PathBuf, MeasureError> {
    let input = dir.join(format!("{stem}.mlir"));
    let lowered = dir.join(format!("{stem}.llvm.mlir"));
    let ll = dir.join(format!("{stem}.ll"));
    let so = dir.join(format!("{stem}.so"));
    std::fs::write(&input, mlir).map_err(|e| MeasureError::Io(format!("{}: {e}", input.display())))?;
    let mut args: Vec<&std::ffi::OsStr> = LOWERING.iter().map(|s| s.as_ref()).collect();
    args.extend([input.as_os_str(), "-o".as_ref(), lowered.as_os_str()]);
    run(MLIR_OPT, &args, "lowering (mlir-opt-22)", timeout)?;
    run(
        MLIR_TRANSLATE,
        &["--mlir-to-llvmir".as_ref(), lowered.as_os_str(), "-o".as_ref(), ll.as_os_str()],
        "translation to LLVM IR (mlir-translate-22)",
        timeout,
    )?;
    let mut args: Vec<&std::ffi::OsStr> = CLANG_FLAGS.iter().map(|s| s.as_ref()).collect();
    args.extend(["-Wno-override-module".as_ref(), "-shared".as_ref(), ll.as_os_str(), "-o".as_ref(), so.as_os_str()]);
    run(CLANG, &args, "native compilation (clang-22 -O3)", timeout)?;
    Ok(so)
}

#[cfg(test)]
mod tests {
    use super::LOWERING;

    /// The pipeline as the documentation and the lit test spell it (line continuations and
    /// lit's `DEFINE:` prefixes removed, whitespace collapsed) contains LOWERING in order.
    fn spells_out_lowering(text: &str) -> bool {
        let flat = text.replace("\\\n", " ").replace("// DEFINE:", " ");
        let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
        flat.contains(&LOWERING.join(" "))
    }

    #[test]
    fn documented_pipeline_is_the_one_used() {
        assert!(spells_out_lowering(include_str!("../../README.md")), "README.md: update 'Lowering the pass's output'");
        assert!(spells_out_lowering(include_str!("../../test-mlir/lowering.mlir")), "test-mlir/lowering.mlir");
    }
}
