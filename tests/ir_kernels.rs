//! `ir` on the same inputs as the lit tests (test-mlir/): structure, access matrices,
//! reductions, and the reasons for what is not modeled.

use affine_autosched::ir::{self, BufferOrigin, Child, OpKind, Program, Term};
use affine_autosched::mlir::LoadedModule;
use std::path::PathBuf;

fn load(name: &str) -> LoadedModule {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-mlir").join(name);
    LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn programs(name: &str) -> Vec<Program> {
    let m = load(name);
    m.functions().into_iter().map(|f| ir::analyze_function(f).unwrap().program).collect()
}

fn program(name: &str) -> Program {
    let mut ps = programs(name);
    assert_eq!(ps.len(), 1, "{name} has one function");
    ps.remove(0)
}

fn loop_id(p: &Program, name: &str) -> usize {
    p.loops.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no loop {name}")).id
}

#[test]
fn gemm_is_an_imperfect_nest_with_a_reduction() {
    let p = program("gemm.mlir");
    assert_eq!((p.nests.len(), p.loops.len(), p.computations.len()), (1, 3, 2));
    let k = loop_id(&p, "L0.0.0");
    assert!(p.loops[k].is_reduction);
    assert!(!p.loops[0].is_reduction);
    let s1 = &p.computations[1];
    assert_eq!(s1.iterators, vec![0, 1, 2]);
    assert_eq!(s1.reduction_loops, vec![k]);
    assert_eq!(s1.store.matrix, vec![vec![1, 0, 0, 0], vec![0, 1, 0, 0]]);
    // A[i][k] and B[k][j]
    let a = s1.loads.iter().find(|l| p.buffers[l.buffer].origin == BufferOrigin::Argument(3)).unwrap();
    assert_eq!(a.matrix, vec![vec![1, 0, 0, 0], vec![0, 0, 1, 0]]);
    let b = s1.loads.iter().find(|l| p.buffers[l.buffer].origin == BufferOrigin::Argument(4)).unwrap();
    assert_eq!(b.matrix, vec![vec![0, 0, 1, 0], vec![0, 1, 0, 0]]);
    assert_eq!(s1.invariant_inputs, 1, "alpha");
    let count = |k: OpKind| s1.ops.iter().filter(|o| o.kind == k).map(|o| o.count).sum::<u32>();
    assert_eq!((count(OpKind::Mul), count(OpKind::Add)), (2, 1));
    // S0 (C *= beta) comes before the k loop among the children of j.
    assert_eq!(p.loops[1].children, vec![Child::Computation(0), Child::Loop(k)]);
    assert!(p.computations[0].reduction_loops.is_empty());
}

#[test]
fn two_mm_nests_share_buffers_and_number_on() {
    let p = program("2mm.mlir");
    assert_eq!(p.nests.len(), 2);
    assert_eq!(p.nests[1].root, 3);
    assert_eq!(p.loops[3].name, "L1");
    let tmp = p.computations[1].store.buffer;
    assert!(p.computations[3].loads.iter().any(|l| l.buffer == tmp), "tmp links the nests");
    assert_eq!(p.computations.iter().map(|c| c.id).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert!(p.nests[0].position < p.nests[1].position);
}

#[test]
fn conv2d_has_seven_loops_and_sums_of_ivs() {
    let p = program("conv2d.mlir");
    assert_eq!(p.loops.iter().map(|l| l.depth).max(), Some(6));
    let s = &p.computations[0];
    assert_eq!(s.reduction_loops, vec![4, 5, 6]);
    let input = s.loads.iter().find(|l| p.buffers[l.buffer].shape == vec![4, 16, 34, 34]).unwrap();
    assert_eq!(input.matrix[2], vec![0, 0, 1, 0, 0, 1, 0, 0], "y + r");
    assert_eq!(input.matrix[3], vec![0, 0, 0, 1, 0, 0, 1, 0], "x + s");
}

#[test]
fn jacobi_2d_time_loop_holds_two_ordered_nests() {
    let p = program("jacobi-2d.mlir");
    assert_eq!(p.loops[0].children, vec![Child::Loop(1), Child::Loop(3)]);
    assert_eq!(p.loops[1].lower.as_constant(), Some(1));
    assert_eq!(p.loops[1].trip_count, Some(248));
    let s0 = &p.computations[0];
    assert_eq!(s0.loads.len(), 5);
    assert!(s0.loads.iter().any(|l| l.matrix == vec![vec![0, 1, 0, 0], vec![0, 0, 1, -1]]));
    assert!(s0.reduction_loops.is_empty());
}

#[test]
fn seidel_2d_reduces_along_time() {
    let p = program("seidel-2d.mlir");
    let s = &p.computations[0];
    assert_eq!(s.loads.len(), 9);
    assert_eq!(s.reduction_loops, vec![0]);
    let count = |k: OpKind| s.ops.iter().filter(|o| o.kind == k).map(|o| o.count).sum::<u32>();
    assert_eq!((count(OpKind::Add), count(OpKind::Div)), (8, 1));
    assert_eq!(s.constants, 1);
}

#[test]
fn syrk_bounds_are_affine_in_outer_ivs() {
    let p = program("syrk.mlir");
    let j = &p.loops[loop_id(&p, "L0.0")];
    assert_eq!(j.upper.constant, 1);
    assert_eq!(j.upper.loops, vec![Term { of: 0, coeff: 1 }]);
    assert_eq!(j.trip_count, None);
    let inner = &p.loops[loop_id(&p, "L0.1.0")];
    assert_eq!(inner.upper.loops, vec![Term { of: 0, coeff: 1 }]);
    assert_eq!(p.computations[1].reduction_loops, vec![loop_id(&p, "L0.1")]);
}

#[test]
fn reductions_into_scalars_and_integers() {
    let ps = programs("reduction.mlir");
    let sum = &ps[0];
    assert_eq!(sum.computations[0].store.matrix, Vec::<Vec<i64>>::new());
    assert_eq!(sum.computations[0].reduction_loops, vec![0, 1]);
    let rowsum = &ps[1];
    assert_eq!(rowsum.computations[0].element_type, ir::ElemType::I32);
    assert_eq!(rowsum.computations[0].reduction_loops, vec![1]);
    let last = &ps[2];
    assert!(last.computations[0].reduction_loops.is_empty(), "no read of the stored location");
}

#[test]
fn imperfect_nest_keeps_program_order() {
    let p = program("imperfect.mlir");
    assert_eq!(p.loops[0].children, vec![Child::Computation(0), Child::Loop(1), Child::Computation(3)]);
    assert_eq!(p.computations[2].reduction_loops, vec![1, 2]);
    let s1 = &p.computations[1];
    assert!(s1.ops.iter().any(|o| o.kind == OpKind::Exp));
    assert_eq!(s1.loads.len(), 2, "the hoisted load of v[i] and W[j][i]");
}

#[test]
fn siblings_and_symbols() {
    let p = program("siblings.mlir");
    assert_eq!(p.nests.iter().map(|n| n.position).collect::<Vec<_>>(), vec![2, 3, 5]);
    assert!(matches!(p.buffers[0].origin, BufferOrigin::Local(ref s) if s.starts_with("memref.alloc")));
    let ps = programs("two-buffers.mlir");
    let p = &ps[0];
    assert_eq!(p.symbols.len(), 1);
    assert_eq!(p.symbols[0].argument, 2);
    assert_eq!(p.loops[0].upper.symbols, vec![Term { of: 0, coeff: 1 }]);
    let strided = &p.loops[2];
    assert_eq!((strided.step, strided.trip_count), (2, Some(255)));
}

#[test]
fn unsupported_constructs_are_explained() {
    let cases = [
        ("unsupported-if.mlir", "'affine.if'"),
        ("unsupported-call.mlir", "call to @g"),
        ("unsupported-memref-load.mlir", "non-affine access 'memref.load'"),
        ("unsupported-scf.mlir", "'scf.for' loop"),
        ("iter-args.mlir", "nested reductions are not modeled"),
        ("unsupported-dynamic.mlir", "dynamic shape memref<?x64xf32>"),
        ("unsupported-view.mlir", "'memref.subview'"),
        ("unsupported-enclosed.mlir", "nested inside 'scf.if'"),
        ("unsupported-bounds.mlir", "'mod' of a non-constant"),
    ];
    for (file, reason) in cases {
        let ps = programs(file);
        let p = ps.iter().find(|p| !p.not_modeled.is_empty()).unwrap();
        assert!(
            p.not_modeled.iter().any(|n| n.reason.contains(reason)),
            "{file}: {:?} lacks {reason}",
            p.not_modeled
        );
    }
    // A refused nest leaves nothing behind, and its modeled sibling is intact.
    let p = &programs("unsupported-call.mlir")[0];
    assert_eq!((p.nests.len(), p.loops.len(), p.computations.len(), p.buffers.len()), (1, 1, 1, 1));
    assert_eq!(p.nests[0].root, 0);
}

#[test]
fn max_and_min_bounds_are_modeled() {
    let ps = programs("minmax-bounds.mlir");
    let tiled = &ps[0];
    let point = &tiled.loops[1];
    assert_eq!(point.lower.loops, vec![Term { of: 0, coeff: 1 }]);
    assert_eq!((point.upper.constant, point.upper_min.len()), (32, 1));
    assert_eq!(point.upper_min[0].as_constant(), Some(100));
    assert_eq!(point.trip_count, None);
    assert!(point.is_non_rectangular());
    let clamped = &ps[1];
    // max(0, 2) to min(30, 40): a constant trip count.
    assert_eq!((clamped.loops[0].lower_max.len(), clamped.loops[0].trip_count), (1, Some(28)));
    assert_eq!(clamped.loops[1].bound_loops().collect::<Vec<_>>(), vec![0, 0]);
}

#[test]
fn reductions_through_iter_args_are_modeled() {
    let ps = programs("iter-args.mlir");
    let rows = &ps[0];
    assert!(rows.not_modeled.is_empty(), "{:?}", rows.not_modeled);
    let c = &rows.computations[0];
    // In the loop that carries it, reading and writing the stored element.
    assert_eq!((c.parent, c.iterators.clone(), c.reduction_loops.clone()), (1, vec![0, 1], vec![1]));
    assert_eq!(c.store.matrix, vec![vec![1, 0, 0]]);
    assert_eq!(c.loads[0], c.store);
    assert_eq!(c.loads[1].matrix, vec![vec![1, 0, 0], vec![0, 1, 0]]);
    assert_eq!(rows.loops[0].children, vec![Child::Loop(1)]);
    // A reduction that is the whole nest, stored after it.
    let total = &ps[1];
    assert_eq!(total.computations[0].reduction_loops, vec![0]);
    assert!(total.computations[0].store.matrix.is_empty(), "a rank-0 element");
    for p in &ps[2..] {
        assert!(p.nests.is_empty() && p.not_modeled.len() == 1, "{:?}", p.not_modeled);
    }
}

#[test]
fn json_round_trips() {
    for name in ["gemm.mlir", "2mm.mlir", "syrk.mlir", "two-buffers.mlir", "minmax-bounds.mlir", "iter-args.mlir"] {
        for p in programs(name) {
            let text = serde_json::to_string(&p).unwrap();
            let back: Program = serde_json::from_str(&text).unwrap();
            assert_eq!(back, p);
            let report = p.nests.first().map(|n| p.nest_report(n.index));
            if let Some(r) = report {
                assert_eq!(r.computations.len(), p.nest_computations(r.nest.index).count());
            }
        }
    }
}

#[test]
fn not_a_function_is_an_error() {
    let m = load("gemm.mlir");
    let err = ir::analyze_function(m.operation()).unwrap_err();
    assert!(err.to_string().contains("builtin.module"));
}

/// mlir-opt analyses functions on several threads at once; so does this test.
#[test]
fn analysis_is_thread_safe() {
    struct SendOp(ir::mlir::Op);
    // SAFETY: the IR is only read while the threads run, and the module outlives them.
    unsafe impl Send for SendOp {}
    let m = load("many-functions.mlir");
    let funcs: Vec<SendOp> = m.functions().into_iter().map(SendOp).collect();
    assert_eq!(funcs.len(), 20);
    let serial: Vec<Program> = funcs.iter().map(|f| ir::analyze_function(f.0).unwrap().program).collect();
    let parallel: Vec<Program> = std::thread::scope(|s| {
        let handles: Vec<_> = funcs
            .into_iter()
            .map(|f| s.spawn(move || ir::analyze_function({ f }.0).unwrap().program))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(serial, parallel);
}

#[test]
fn parse_errors_are_reported() {
    let err = LoadedModule::from_source("func.func @f( {").err().unwrap();
    assert!(err.to_string().contains("cannot parse"), "{err}");
    let err = LoadedModule::from_file(std::path::Path::new("/nonexistent.mlir")).err().unwrap();
    assert!(err.to_string().contains("cannot read"), "{err}");
}
