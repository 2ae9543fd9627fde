//! Every transformation kind, executed: the transformed function is compiled and run
//! against the original on the same seeded inputs, and all buffers must be bitwise
//! identical. Small sizes keep this within CI's budget. Also: the check can fail (a wrong
//! variant is caught), and a crashing or hanging program is reported, not fatal.

use affine_autosched::measure::{self, MeasureConfig, MeasureError, Variant};
use affine_autosched::schedule::Schedule;
use std::path::PathBuf;
use std::time::Duration;

fn test_mlir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-mlir").join(name)
}

fn quick() -> MeasureConfig {
    MeasureConfig { reps: 1, warmup: 0, threads: 2, timeout: Duration::from_secs(120), ..Default::default() }
}

/// Applies `schedule` to `function` of `file`, runs both versions, asserts equivalence.
fn equivalent(file: &str, function: &str, schedule: &str) {
    let path = test_mlir(file);
    let sched: Schedule = schedule.parse().unwrap();
    let (original, sig) = measure::variant_from_file(&path, function, "original", None).unwrap();
    let (scheduled, _) = measure::variant_from_file(&path, function, "scheduled", Some(&sched))
        .unwrap_or_else(|e| panic!("{file} @{function} {schedule}: {e}"));
    assert_ne!(original.mlir, scheduled.mlir, "{schedule} changed nothing");
    let m = measure::measure(function, &sig, &[original, scheduled], &quick())
        .unwrap_or_else(|e| panic!("{file} @{function} {schedule}: {e}"));
    let v = &m.verdicts[0];
    assert!(v.equivalent, "{file} @{function} {schedule}: {}", v.detail);
    assert!(v.detail.contains("bitwise identical"), "{}", v.detail);
}

const GEMM: (&str, &str) = ("transform-interchange.mlir", "gemm");

#[test]
fn interchange_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "interchange(L0, L0.0.0, L0.0)");
    equivalent(GEMM.0, GEMM.1, "interchange(L0.0.0, L0, L0.0)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "interchange(L0.0.0, L0.0)");
    equivalent("syrk.mlir", "syrk", "interchange(L0.1.0, L0.1)");
    equivalent("reduction.mlir", "rowsum_i32", "interchange(L0.0, L0)");
}

#[test]
fn tiling_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "tile(L0:16, L0.0:16, L0.0.0:8)");
    equivalent(GEMM.0, GEMM.1, "tile(L0:24, L0.0:20)"); // sizes that do not divide
    equivalent("jacobi-2d.mlir", "jacobi_2d", "tile(L0.0:32, L0.0.0:32); tile(L0.1:16, L0.1.0:64)");
    equivalent("syrk.mlir", "syrk", "tile(L0.1:32)");
    equivalent("seidel-2d.mlir", "seidel_2d", "tile(L0.0.0:16)");
}

#[test]
fn unrolling_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "unroll(L0.0.0:4)");
    equivalent(GEMM.0, GEMM.1, "unroll(L0.0:2)"); // unroll-and-jam
    equivalent(GEMM.0, GEMM.1, "unroll(L0.0.0:5)"); // with a clean-up loop
    equivalent("jacobi-2d.mlir", "jacobi_2d", "unroll(L0.0:3); unroll(L0.1.0:8)");
    equivalent("syrk.mlir", "syrk", "unroll(L0.0:4)"); // triangular trip count
    equivalent("reduction.mlir", "rowsum_i32", "unroll(L0:4)");
}

#[test]
fn reductions_and_clamped_bounds_execute_equivalently() {
    // iter_args: unrolled with and without a clean-up loop, under a parallel outer loop.
    equivalent("iter-args.mlir", "rows", "unroll(L0.0:4); parallelize(L0)");
    equivalent("iter-args.mlir", "rows", "unroll(L0.0:5)");
    equivalent("iter-args.mlir", "total", "unroll(L0:8)");
    // A tile's point loop (min bound), and a window clamped by max and min.
    equivalent("minmax-bounds.mlir", "tiled", "parallelize(L0); unroll(L0.0.0:4)");
    equivalent("minmax-bounds.mlir", "tiled", "tile(L0.0.0:16); vectorize(L0.0.0:4)");
    equivalent("minmax-bounds.mlir", "clamped", "parallelize(L0)");
}

#[test]
fn unrolling_through_partial_tiles_executes_equivalently() {
    // Tiles that do not divide their loops: the unroll peels each partial last tile (64 rows
    // in tiles of 20 leave 4, the factor; 48 columns in tiles of 32 leave 16), then unrolls
    // the full tiles' copies and the last tile's, under a parallel tile loop.
    equivalent(GEMM.0, GEMM.1, "tile(L0:20, L0.0:32, L0.0.0:12); accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:8); parallelize(L0.t)");
    // A last tile shorter than the factor (48 columns in tiles of 40 leave 8, by 16) stays
    // rolled; full tiles that are not a multiple of the factor (24 rows by 8 is one; 40
    // columns by 16 is not) get a clean-up loop each.
    equivalent(GEMM.0, GEMM.1, "tile(L0:24, L0.0:40); accumulate(L0.0.0); unroll(L0:8); unroll(L0.0:16)");
    // A triangular loop inside the jammed point loop (syrk's k in tiles of 64: 200 leaves 8).
    equivalent("syrk.mlir", "syrk", "tile(L0.1:64); unroll(L0.1:3)");
    // A stencil's sweeps (248 points in tiles of 32 leave 24).
    equivalent("jacobi-2d.mlir", "jacobi_2d", "tile(L0.0:32, L0.0.0:32); unroll(L0.0:3); unroll(L0.0.0:5)");
    // A convolution's output rows and columns (32 in tiles of 10 and 12 leave 2 and 8).
    equivalent("conv2d.mlir", "conv2d", "tile(L0.0.0:10, L0.0.0.0:12); unroll(L0.0.0:4); unroll(L0.0.0.0:8)");
}

#[test]
fn parallelization_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "parallelize(L0)");
    equivalent(GEMM.0, GEMM.1, "parallelize(L0.0)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "parallelize(L0.0); parallelize(L0.1)");
    equivalent("syrk.mlir", "syrk", "parallelize(L0)");
    equivalent("reduction.mlir", "rowsum_i32", "parallelize(L0)");
}

#[test]
fn vectorization_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "interchange(L0, L0.0.0, L0.0); vectorize(L0.0:8)");
    equivalent(GEMM.0, GEMM.1, "interchange(L0, L0.0.0, L0.0); vectorize(L0.0:16)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "vectorize(L0.0.0:8); vectorize(L0.1.0:4)");
    equivalent("transform-fuse.mlir", "producer_consumer", "vectorize(L1.0:16); vectorize(L0.0:4)");
    // Loops carrying dependences the vector order keeps.
    equivalent("transform-vectorize-carried.mlir", "forward", "vectorize(L0:4)");
    equivalent("transform-vectorize-carried.mlir", "far", "vectorize(L0:8)");
    // Trip counts that are not a multiple of the width: a scalar remainder loop. 48 by
    // 32 lanes; the jacobi sweeps (N - 2 points) by 16; a triangular loop (j <= i).
    equivalent(GEMM.0, GEMM.1, "interchange(L0, L0.0.0, L0.0); vectorize(L0.0:32)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "vectorize(L0.0.0:16); vectorize(L0.1.0:32)");
    equivalent("syrk.mlir", "syrk", "vectorize(L0.0:8)");
    equivalent("transform-vectorize-remainder.mlir", "triangle", "vectorize(L0.0:8)");
    equivalent("transform-vectorize-remainder.mlir", "scale", "tile(L0:16); vectorize(L0.0:16)");
    // A tile's point loop with a partial last tile, peeled first: 48 columns in tiles of 20
    // (full tiles of 2 vectors and 4 scalars, a last tile of one vector); 248 points in
    // tiles of 40 (a last tile of 8, fewer than the 16 lanes, stays scalar).
    equivalent(GEMM.0, GEMM.1, "interchange(L0, L0.0.0, L0.0); tile(L0.0:20); vectorize(L0.0:8)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "tile(L0.0.0:40); vectorize(L0.0.0:16)");
    // conv2d (three reduction loops): x moves innermost, then 16 lanes along x.
    equivalent(
        "conv2d.mlir",
        "conv2d",
        "interchange(L0.0.0.0.0, L0.0.0.0.0.0, L0.0.0.0.0.0.0, L0.0.0.0); vectorize(L0.0.0.0:16)",
    );
}

#[test]
fn accumulation_executes_equivalently() {
    equivalent(GEMM.0, GEMM.1, "accumulate(L0.0.0)");
    // Register tiles: jams of the loops around the accumulating loop (with a clean-up loop
    // for 3), inside cache tiles, under a parallel tile loop.
    equivalent(GEMM.0, GEMM.1, "accumulate(L0.0.0); unroll(L0.0:4); unroll(L0:2)");
    equivalent(GEMM.0, GEMM.1, "tile(L0:16, L0.0:16); accumulate(L0.0.0); unroll(L0.0:4); unroll(L0:3); parallelize(L0.t)");
    // The order the search proposes (rows, then columns), with clean-up loops for both.
    equivalent(GEMM.0, GEMM.1, "accumulate(L0.0.0); unroll(L0:8); unroll(L0.0:32)");
    // Parallel loops of a register tile, their dependences decided before the jams
    // (transform::base): the jammed loop, and the one inside it.
    equivalent(GEMM.0, GEMM.1, "accumulate(L0.0.0); unroll(L0:8); unroll(L0.0:32); parallelize(L0)");
    equivalent(GEMM.0, GEMM.1, "accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:8); parallelize(L0.0)");
    equivalent(GEMM.0, GEMM.1, "tile(L0:16, L0.0:16); accumulate(L0.0.0); unroll(L0:3); unroll(L0.0:5); parallelize(L0.t)");
    // The k loop in tiles of 20 (32 iterations: a min bound, a point loop that always runs).
    equivalent(GEMM.0, GEMM.1, "tile(L0.0.0:20); accumulate(L0.0.0)");
    // That point loop unrolled whole and by half (full tiles of 8: bounds that move with the
    // tile loop, a known trip count); the whole unroll did not verify before 2026-11-28.
    equivalent(GEMM.0, GEMM.1, "tile(L0.0.0:8); accumulate(L0.0.0); unroll(L0.0.0:8)");
    equivalent(GEMM.0, GEMM.1, "tile(L0.0.0:8); accumulate(L0.0.0); unroll(L0.0.0:4)");
    // tmp[i][j] = 0 beside the k loop, then accumulated; the second product too.
    equivalent("2mm.mlir", "kernel_2mm", "accumulate(L0.0.0); unroll(L0.0:2); accumulate(L1.0.0); unroll(L1:2)");
    // Both products as register tiles at once (the Distribute stage's lookahead), packed.
    equivalent(
        "2mm.mlir",
        "kernel_2mm",
        "distribute(L0.0); distribute(L1.0); distribute(L0); distribute(L1); tile(L0.d1:36, L0.0.d1:38, L0.0.0:35); \
         tile(L1.d1:36, L1.0.d1:44, L1.0.0:38); pack(L0.d1, %arg4); accumulate(L0.0.0); accumulate(L1.0.0); \
         unroll(L0.d1:4); unroll(L0.0.d1:19); unroll(L1.d1:4); unroll(L1.0.d1:11); parallelize(L0.d1.t); parallelize(L1.0.d1.t)",
    );
    equivalent("transform-accumulate.mlir", "total", "accumulate(L0.0)");
    equivalent("iter-args.mlir", "rows", "unroll(L0:2)"); // a jam through a reduction
}

#[test]
fn packing_executes_equivalently() {
    // B's box under the j point loop, over a partial last tile (48 = 2 x 20 + 8).
    equivalent("transform-pack.mlir", "gemm", "tile(L0:16, L0.0:20); pack(L0.0, %arg1)");
    // Both inputs under three tile loops (32 = 2 x 12 + 8 along k), a register tile with a
    // clean-up loop, a parallel tile loop around the copies.
    equivalent(
        "transform-pack.mlir",
        "gemm",
        "tile(L0:16, L0.0:16, L0.0.0:12); pack(L0, %arg0); pack(L0, %arg1); accumulate(L0.0.0); unroll(L0.0:4); unroll(L0:3); parallelize(L0.t)",
    );
    // alpha * A[i][k] folded into A's copy (bit for bit the program's product), in the
    // register tile the Tile stage's lookahead makes with both inputs packed: the columns'
    // point loop moved outside the rows' after tiling, partial last tiles along the rows
    // (64 = 5 x 12 + 4, peeled by the 6-row unroll) and the columns (48 = 32 + 16).
    equivalent("transform-pack.mlir", "scaled", "pack(L0, %arg1)");
    equivalent(
        "transform-pack.mlir",
        "scaled",
        "tile(L0:12, L0.0:32, L0.0.0:12); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); pack(L0.0, %arg2); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:6); parallelize(L0.t)",
    );
    // The 12x32 tile that 512-bit vectors fit: rows 64 = 2 x 24 + 16 (each 24 two whole
    // jams of 12; the 16 one and a peeled 4), columns 48 = 32 + 16 (the 16 peeled).
    equivalent(
        "transform-pack.mlir",
        "scaled",
        "tile(L0:24, L0.0:32, L0.0.0:16); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); pack(L0.0, %arg2); accumulate(L0.0.0); unroll(L0.0:32); unroll(L0:12); parallelize(L0.t)",
    );
    // A triangular kernel: under i, the rows j <= i of A (the box is bounded by the buffer;
    // A is read twice, scaled once: not folded).
    equivalent("syrk.mlir", "syrk", "pack(L0.1, %arg3)");
    equivalent("syrk.mlir", "syrk", "pack(L0.1.0, %arg3); parallelize(L0)");
    // A convolution: the weights of one output channel, the input window of one output row.
    equivalent("conv2d.mlir", "conv2d", "pack(L0.0.0, %arg1); pack(L0.0.0.0, %arg0)");
    // A stencil under a time loop: the sweep that reads A and writes B, row by row.
    equivalent("jacobi-2d.mlir", "jacobi_2d", "pack(L0.0, %arg0)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "tile(L0.1:16); pack(L0.0.0, %arg0); pack(L0.1, %arg1)");
}

#[test]
fn reordered_copies_execute_equivalently() {
    // A transposed operand copied as [i][o] under a register tile over a partial last tile
    // (48 = 2 x 20 + 8), and with the columns' point loop outside, both inputs copied.
    equivalent(
        "transform-pack.mlir",
        "dense",
        "tile(L0:16, L0.0:20, L0.0.0:16); pack(L0, %arg2, [1, 0]); accumulate(L0.0.0); unroll(L0.0:4); unroll(L0:2); parallelize(L0.t)",
    );
    equivalent(
        "transform-pack.mlir",
        "dense",
        "tile(L0:16, L0.0:16, L0.0.0:12); interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg2, [1, 0]); pack(L0.0, %arg0); accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:6)",
    );
    // A triangular kernel's A whole, transposed before its nest, then jammed and parallel;
    // and under i (a box bounded by the buffer), scaled once by alpha: not folded.
    equivalent("transform-pack.mlir", "lower", "pack(L0, %arg1, [1, 0]); unroll(L0.0:4); parallelize(L0)");
    equivalent("syrk.mlir", "syrk", "pack(L0, %arg3, [1, 0]); parallelize(L0)");
    equivalent("syrk.mlir", "syrk", "pack(L0.1, %arg3, [1, 0])");
    // A convolution's 4-D weights with the output channel last, and the input window with
    // its channels last (orders of more than two dimensions).
    equivalent("conv2d.mlir", "conv2d", "pack(L0, %arg1, [1, 2, 3, 0]); pack(L0.0.0, %arg0, [0, 2, 3, 1])");
    // The gemm copy with the scale folded in, transposed.
    equivalent("transform-pack.mlir", "scaled", "tile(L0:16, L0.0:16, L0.0.0:16); pack(L0, %arg1, [1, 0]); pack(L0, %arg2, [1, 0])");
}

#[test]
fn register_tiles_around_deep_reductions_execute_equivalently() {
    // conv2d's f (rows) jammed over y into x (columns), x jammed through the reductions c
    // and r into s, which accumulates: x by 12 leaves a clean-up copy (32 = 2 x 12 + 8);
    // then the output channels parallel.
    equivalent("conv2d.mlir", "conv2d", "accumulate(L0.0.0.0.0.0.0); unroll(L0.0:8); unroll(L0.0.0.0:12); parallelize(L0.0)");
    equivalent("conv2d.mlir", "conv2d", "accumulate(L0.0.0.0.0.0.0); unroll(L0.0:4); unroll(L0.0.0.0:16); parallelize(L0)");
}

#[test]
fn two_levels_of_tiles_execute_equivalently() {
    // Partial tiles at both levels (64 = 2 x (3 x 8) + 16; 48 = 2 x (4 x 5) + 8), the outer
    // tiles parallel, a copy per outer tile, and a register tile inside.
    equivalent("transform-pack.mlir", "gemm", "tile(L0:8, L0.0:5); tile(L0.t:3, L0.0.t:4); parallelize(L0.t.t)");
    equivalent(
        "transform-pack.mlir",
        "gemm",
        "tile(L0:8, L0.0:8, L0.0.0:16); tile(L0.t:2, L0.0.t:3); pack(L0.0.t, %arg1); accumulate(L0.0.0); unroll(L0.0:4); unroll(L0:2)",
    );
    // A triangular kernel and a stencil's sweep under its time loop.
    equivalent("syrk.mlir", "syrk", "tile(L0:4); tile(L0.t:3)");
    equivalent("jacobi-2d.mlir", "jacobi_2d", "tile(L0.0:4, L0.0.0:4); tile(L0.0.t:3, L0.0.0.t:2)");
}

#[test]
fn fusion_executes_equivalently() {
    equivalent("transform-fuse.mlir", "producer_consumer", "fuse(L0, L1, 2)");
    equivalent("transform-fuse.mlir", "producer_consumer", "fuse(L0, L1, 1)");
    equivalent("2mm.mlir", "kernel_2mm", "fuse(L0, L1, 1)");
    equivalent("transform-fuse.mlir", "normalize", "fuse(L0, L1, 1)"); // a reduction into its consumer
}

#[test]
fn distribution_executes_equivalently() {
    equivalent("transform-distribute.mlir", "matmul", "distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1)");
    equivalent("transform-distribute.mlir", "forward", "distribute(L0)");
    equivalent(
        "2mm.mlir",
        "kernel_2mm",
        "distribute(L0.0); distribute(L0); distribute(L1.0); distribute(L1); interchange(L1.0.0, L1.0.d1); \
         tile(L1.d1:16, L1.0.0:16, L1.0.d1:16); parallelize(L0.d1); parallelize(L1.d1.t)",
    );
}

#[test]
fn combinations_execute_equivalently() {
    equivalent(
        GEMM.0,
        GEMM.1,
        "interchange(L0, L0.0.0, L0.0); tile(L0:16, L0.0.0:8, L0.0:16); unroll(L0.0.0:4); parallelize(L0.t); vectorize(L0.0:16)",
    );
    equivalent(
        "jacobi-2d.mlir",
        "jacobi_2d",
        "tile(L0.0:31, L0.0.0:8); parallelize(L0.0.t); unroll(L0.1:2); vectorize(L0.0.0:8)",
    );
    equivalent("transform-fuse.mlir", "producer_consumer", "fuse(L0, L1, 2); tile(L1:16, L1.0:16); parallelize(L1.t)");
}

fn variants(file: &str, function: &str, wrong: impl Fn(&str) -> String) -> (measure::Signature, Vec<Variant>) {
    let (original, sig) = measure::variant_from_file(&test_mlir(file), function, "original", None).unwrap();
    let broken = Variant { label: "broken".into(), mlir: wrong(&original.mlir) };
    (sig, vec![original, broken])
}

#[test]
fn a_wrong_program_is_caught() {
    // One subscript off by one in the stencil: exactly what a bad transformation does.
    let (sig, vs) = variants("jacobi-2d.mlir", "jacobi_2d", |m| m.replacen("%arg4 - 1]", "%arg4]", 1));
    assert_ne!(vs[0].mlir, vs[1].mlir);
    let m = measure::measure("jacobi_2d", &sig, &vs, &quick()).unwrap();
    assert!(!m.verdicts[0].equivalent);
    assert!(m.verdicts[0].detail.starts_with("MISMATCH in argument"), "{}", m.verdicts[0].detail);
}

#[test]
fn crashes_and_hangs_are_reported() {
    let dir = std::env::temp_dir().join(format!("autosched-eq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let crash = dir.join("crash.mlir");
    std::fs::write(
        &crash,
        "func.func @f(%A: memref<4xf32>) {\n  %z = arith.constant 1.0 : f32\n  affine.for %i = 0 to 4 {\n    \
         affine.store %z, %A[%i * 1099511627776] : memref<4xf32>\n  }\n  return\n}\n",
    )
    .unwrap();
    let (v, sig) = measure::variant_from_file(&crash, "f", "original", None).unwrap();
    match measure::measure("f", &sig, &[v], &quick()) {
        Err(MeasureError::Crashed { .. }) => {}
        other => panic!("expected a crash report, got {other:?}"),
    }
    let hang = dir.join("hang.mlir");
    std::fs::write(
        &hang,
        "func.func @f(%A: memref<4xf32>) {\n  affine.for %i = 0 to 1000000000 {\n    affine.for %j = 0 to 1000000000 {\n      \
         %a = affine.load %A[0] : memref<4xf32>\n      %b = arith.addf %a, %a : f32\n      \
         affine.store %b, %A[0] : memref<4xf32>\n    }\n  }\n  return\n}\n",
    )
    .unwrap();
    let (v, sig) = measure::variant_from_file(&hang, "f", "original", None).unwrap();
    let cfg = MeasureConfig { timeout: Duration::from_secs(3), ..quick() };
    match measure::measure("f", &sig, &[v], &cfg) {
        Err(MeasureError::Timeout(_)) => {}
        other => panic!("expected a timeout, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_variant_far_slower_than_the_reference_is_timed_once_with_a_cutoff() {
    // Same result, 40 times the work: with a cutoff of 3x its correctness-check run is its
    // only time (and shows it slow); without one it is timed like the others. The reference
    // runs milliseconds, not a fraction of one: a run of 0.1 ms preempted once under a
    // parallel test load took as long as the slow variant's, which then was not cut off.
    let dir = std::env::temp_dir().join(format!("autosched-cutoff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = |repeat: usize| {
        format!(
            "func.func @f(%A: memref<512x512xf32>) {{\n  %z = arith.constant 1.0 : f32\n  affine.for %r = 0 to {repeat} {{\n    \
             affine.for %i = 0 to 512 {{\n      affine.for %j = 0 to 512 {{\n        \
             affine.store %z, %A[%i, %j] : memref<512x512xf32>\n      }}\n    }}\n  }}\n  return\n}}\n"
        )
    };
    let (fast_path, slow_path) = (dir.join("fast.mlir"), dir.join("slow.mlir"));
    std::fs::write(&fast_path, body(20)).unwrap();
    std::fs::write(&slow_path, body(800)).unwrap();
    let (fast, sig) = measure::variant_from_file(&fast_path, "f", "original", None).unwrap();
    let (mut slow, _) = measure::variant_from_file(&slow_path, "f", "slow", None).unwrap();
    slow.label = "slow".into();
    let vs = [fast, slow];
    let cfg = MeasureConfig { warmup: 1, reps: 4, cutoff: Some(3.0), ..quick() };
    let m = measure::measure("f", &sig, &vs, &cfg).unwrap();
    assert!(m.verdicts[0].equivalent, "{}", m.verdicts[0].detail);
    assert_eq!(m.timings[0].times.len(), 4);
    assert_eq!(m.timings[1].times.len(), 1, "the slow variant is timed once");
    assert!(m.timings[1].cut_off && !m.timings[0].cut_off, "and says it was cut off");
    assert!(m.speedup(1) < 1.0 / 3.0, "{}", m.speedup(1));
    let m = measure::measure("f", &sig, &vs, &MeasureConfig { cutoff: None, ..cfg.clone() }).unwrap();
    assert_eq!(m.timings[1].times.len(), 4);
    assert!(!m.timings[1].cut_off);
    // Adaptive repetitions: a budget far below one run of both leaves the minimum; a large
    // one leaves `reps`.
    let adaptive = |budget: f64| MeasureConfig { cutoff: None, rep_budget: Some(Duration::from_secs_f64(budget)), min_reps: 2, reps: 6, ..cfg.clone() };
    let m = measure::measure("f", &sig, &vs, &adaptive(1e-6)).unwrap();
    assert_eq!((m.timings[0].times.len(), m.timings[1].times.len()), (2, 2));
    let m = measure::measure("f", &sig, &vs, &adaptive(1000.0)).unwrap();
    assert_eq!((m.timings[0].times.len(), m.timings[1].times.len()), (6, 6));
    // A variant thousands of times slower is not run to its end: its check run is stopped
    // (at STOP_FACTOR times the cutoff's time, here the STOP_MIN floor), and the others are
    // measured in a driver run without it.
    let hopeless_path = dir.join("hopeless.mlir");
    std::fs::write(&hopeless_path, body(200_000)).unwrap();
    let (mut hopeless, _) = measure::variant_from_file(&hopeless_path, "f", "hopeless", None).unwrap();
    hopeless.label = "hopeless".into();
    let vs = [vs[0].clone(), hopeless, vs[1].clone()];
    let started = std::time::Instant::now();
    let m = measure::measure("f", &sig, &vs, &cfg).unwrap();
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    let stop = m.timings[1].times[0];
    assert_eq!(m.timings[1].times.len(), 1);
    assert!(m.timings[1].cut_off, "a stopped variant is censored");
    assert!(stop >= measure::driver::STOP_MIN && stop < 1.0, "stopped at {stop} s");
    assert!(!m.verdicts[0].compared && m.verdicts[0].detail.contains("stopped"), "{:?}", m.verdicts[0]);
    assert_eq!(m.timings[0].times.len(), 4, "the reference is measured as before");
    assert_eq!(m.timings[2].label, "slow");
    assert!(m.timings[2].cut_off && m.verdicts[1].compared && m.verdicts[1].equivalent, "{:?}", m.verdicts[1]);
    // A reference over `reference_limit` in its first run fails the measurement at once.
    let started = std::time::Instant::now();
    let limited = MeasureConfig { reference_limit: Some(Duration::from_millis(300)), ..cfg.clone() };
    match measure::measure("f", &sig, &[vs[1].clone(), vs[0].clone()], &limited) {
        Err(MeasureError::ReferenceTooSlow(s)) => assert!((0.3..1.0).contains(&s), "{s}"),
        other => panic!("expected the reference to be stopped, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module from text, as the driver's C interface wants it.
fn variant_of(dir: &std::path::Path, name: &str, mlir: &str) -> (measure::Signature, Variant) {
    let path = dir.join(format!("{name}.mlir"));
    std::fs::write(&path, mlir).unwrap();
    let (mut v, sig) = measure::variant_from_file(&path, "f", name, None).unwrap();
    v.label = name.into();
    (sig, v)
}

#[test]
fn the_in_memory_check_restores_changed_buffers_and_catches_writes_to_inputs() {
    // The driver compares in memory and restores only the buffers some run changed. Three
    // variants that add 1 in place must agree (each starts from the initial contents, not
    // from the previous variant's result); one that also writes the buffer the others only
    // read is caught.
    let dir = std::env::temp_dir().join(format!("autosched-inmem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = |extra: &str| {
        format!(
            "func.func @f(%A: memref<64xf32>, %B: memref<64xf32>) {{\n  affine.for %i = 0 to 64 {{\n    \
             %a = affine.load %A[%i] : memref<64xf32>\n    %b = affine.load %B[%i] : memref<64xf32>\n    \
             %s = arith.addf %a, %b : f32\n    affine.store %s, %A[%i] : memref<64xf32>\n{extra}  }}\n  return\n}}\n"
        )
    };
    let (sig, v0) = variant_of(&dir, "v0", &body(""));
    let (_, v1) = variant_of(&dir, "v1", &body(""));
    let (_, v2) = variant_of(&dir, "v2", &body(""));
    let (_, bad) = variant_of(&dir, "bad", &body("    affine.store %s, %B[%i] : memref<64xf32>\n"));
    let cfg = MeasureConfig { reps: 2, ..quick() };
    let m = measure::measure("f", &sig, &[v0, v1, v2, bad], &cfg).unwrap();
    assert!(m.verdicts[0].equivalent && m.verdicts[1].equivalent, "{:?}", m.verdicts);
    assert_eq!(m.verdicts[0].detail, "equivalent: all buffers bitwise identical");
    assert!(!m.verdicts[2].equivalent);
    assert!(m.verdicts[2].detail.starts_with("MISMATCH in argument 1"), "{}", m.verdicts[2].detail);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_difference_within_the_tolerance_is_compared_from_the_written_buffers() {
    // Bitwise different, relatively 1e-7 apart: the driver writes both out and the
    // comparison with tolerance accepts it; the exact comparison does not.
    let dir = std::env::temp_dir().join(format!("autosched-tol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = |factor: &str| {
        format!(
            "func.func @f(%A: memref<64xf64>) {{\n  %c = arith.constant {factor} : f64\n  affine.for %i = 0 to 64 {{\n    \
             %a = affine.load %A[%i] : memref<64xf64>\n    %s = arith.mulf %a, %c : f64\n    \
             affine.store %s, %A[%i] : memref<64xf64>\n  }}\n  return\n}}\n"
        )
    };
    let (sig, reference) = variant_of(&dir, "reference", &body("3.0"));
    let (_, close) = variant_of(&dir, "close", &body("3.0000003"));
    let vs = [reference, close];
    let m = measure::measure("f", &sig, &vs, &MeasureConfig { comparison: measure::Comparison::Relative(1e-6), ..quick() }).unwrap();
    assert!(m.verdicts[0].equivalent, "{}", m.verdicts[0].detail);
    assert!(m.verdicts[0].detail.starts_with("equivalent within relative tolerance"), "{}", m.verdicts[0].detail);
    let m = measure::measure("f", &sig, &vs, &quick()).unwrap();
    assert!(!m.verdicts[0].equivalent, "{}", m.verdicts[0].detail);
    // Within the rounding of f64 (fp-contract's comparison): 1e-7 is far more than 1024
    // epsilons; 3.0 * (1 + 2^-44), 256 epsilons, is not.
    let rounding = MeasureConfig { comparison: measure::Comparison::Rounding(1024.0), ..quick() };
    let m = measure::measure("f", &sig, &vs, &rounding).unwrap();
    assert!(!m.verdicts[0].equivalent, "{}", m.verdicts[0].detail);
    let (_, last_bits) = variant_of(&dir, "last_bits", &body("3.0000000000001705"));
    let (sig, reference) = variant_of(&dir, "reference", &body("3.0"));
    let m = measure::measure("f", &sig, &[reference, last_bits], &rounding).unwrap();
    assert!(m.verdicts[0].equivalent, "{}", m.verdicts[0].detail);
    assert!(m.verdicts[0].detail.starts_with("equivalent within 1024 epsilons"), "{}", m.verdicts[0].detail);
    let _ = std::fs::remove_dir_all(&dir);
}
