//! The static half of `transform`: which loop names exist at each step of a schedule.

use affine_autosched::ir;
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::Schedule;
use affine_autosched::transform::{check_names, TransformError};
use std::path::PathBuf;

fn program(name: &str) -> ir::Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-mlir").join(name);
    let m = LoadedModule::from_file(&path).unwrap();
    let f = m.functions()[0];
    ir::analyze_function(f).unwrap().program
}

fn check(file: &str, schedule: &str) -> Result<(), TransformError> {
    check_names(&program(file), &schedule.parse::<Schedule>().unwrap())
}

#[test]
fn tiling_creates_tile_loops() {
    assert!(check("gemm.mlir", "tile(L0:16, L0.0:16); parallelize(L0.t); unroll(L0.0.t:2)").is_ok());
    let e = check("gemm.mlir", "parallelize(L0.t)").unwrap_err().to_string();
    assert!(e.contains("step 1 (parallelize(L0.t)): no loop named L0.t in @gemm"), "{e}");
}

#[test]
fn consumed_loops_are_named_in_the_error() {
    let e = check("gemm.mlir", "parallelize(L0); tile(L0:8)").unwrap_err().to_string();
    assert_eq!(e, "step 2 (tile(L0:8)): L0 no longer exists after step 1 (parallelize)");
    let e = check("transform-fuse.mlir", "fuse(L0, L1, 2); unroll(L0.0:2)").unwrap_err().to_string();
    assert!(e.contains("L0.0 no longer exists after step 1 (fuse)"), "{e}");
    // The second nest's loops survive fusion and carry both computations.
    assert!(check("transform-fuse.mlir", "fuse(L0, L1, 2); unroll(L1.0:2)").is_ok());
}

#[test]
fn unknown_loops_list_the_known_ones() {
    let e = check("syrk.mlir", "unroll(L0.2:2)").unwrap_err().to_string();
    assert!(e.contains("no loop named L0.2 in @syrk (its loops: L0, L0.0, L0.1, L0.1.0)"), "{e}");
}

#[test]
fn distribution_names_its_parts_and_consumes_the_loop() {
    assert!(check("2mm.mlir", "distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1); tile(L0.d1:8)").is_ok());
    let e = check("2mm.mlir", "distribute(L0.0); unroll(L0.0:2)").unwrap_err().to_string();
    assert_eq!(e, "step 2 (unroll(L0.0:2)): L0.0 no longer exists after step 1 (distribute)");
    // Parts exist only for a distributed loop.
    let e = check("2mm.mlir", "unroll(L0.d1:2)").unwrap_err().to_string();
    assert!(e.contains("no loop named L0.d1 in @kernel_2mm"), "{e}");
    // Unrolling and vectorization copy statements: distribution must come first.
    let e = check("2mm.mlir", "unroll(L1.0.0:2); distribute(L0.0)").unwrap_err().to_string();
    assert!(e.contains("distribute must come before unroll and vectorize steps (step 1)"), "{e}");
}

#[test]
fn a_loop_is_tiled_once() {
    // A second tiling of L0 would make a second loop named L0.t inside the first.
    let e = check("gemm.mlir", "tile(L0:32); tile(L0:8)").unwrap_err().to_string();
    assert_eq!(e, "step 2 (tile(L0:8)): L0 is tiled already (its tile loop L0.t exists); tile L0.t for another level of tiles");
    assert!(check("gemm.mlir", "tile(L0:32); tile(L0.t:4)").is_ok());
}
