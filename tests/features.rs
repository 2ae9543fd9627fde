//! `features`: the layout, padding, the log transform, the model's tree, and which fields
//! a transformation changes.

use affine_autosched::features::layout::{self, Kind, FEATURES};
use affine_autosched::features::tensors::{Batch, Shared};
use affine_autosched::features::{featurize, FeatureError, Featurized, Featurizer, Host, ModelNode};
use affine_autosched::ir::{self, Program};
use affine_autosched::limits::{MAX_ACCESSES, MAX_DEPTH};
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::Schedule;
use std::path::PathBuf;

fn programs(name: &str) -> Vec<Program> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-mlir").join(name);
    let m = LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    m.functions().into_iter().map(|f| ir::analyze_function(f).unwrap().program).collect()
}

fn gemm() -> Program {
    programs("gemm.mlir").remove(0)
}

fn feat(p: &Program, s: &str) -> Featurized {
    featurize(p, &s.parse::<Schedule>().unwrap()).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn log(x: f64) -> f32 {
    layout::log_transform(x)
}

/// Value of a loop field of computation `c` at `level`.
fn lf(f: &Featurized, c: usize, level: usize, name: &str) -> f32 {
    f.comps[c][layout::loop_field(level, name)]
}

/// Names of the fields that differ between two vectors, besides the working set's (which
/// most steps change: `working_set_follows_the_schedule_and_the_host` checks them).
fn changed(a: &[f32], b: &[f32]) -> Vec<String> {
    let fields = layout::fields();
    let working_set = |n: &str| layout::LOOP_WORKING_SET.iter().any(|(w, _)| n.ends_with(&format!(".{w}")));
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(i, (x, y))| x != y && !working_set(&fields[*i].0))
        .map(|(i, _)| fields[i].0.clone())
        .collect()
}

#[test]
fn layout_is_consistent_and_fingerprinted() {
    let fields = layout::fields();
    assert_eq!(fields.len(), FEATURES);
    assert_eq!(layout::kinds().len(), FEATURES);
    let spec = layout::spec();
    assert_eq!(spec.features, FEATURES);
    assert_eq!(spec.max_depth, MAX_DEPTH);
    // Parts tile the vector in order.
    let mut at = 0;
    for (_, lo, hi) in &spec.parts {
        assert_eq!(*lo, at);
        at = *hi;
    }
    assert_eq!(at, FEATURES);
    assert_eq!(spec.hash, layout::spec().hash, "stable");
    assert_eq!(spec.hash.len(), 16);
    assert_eq!(fields[layout::loop_field(2, "tile_size")].0, "loop2.tile_size");
    assert_eq!(fields[layout::matrix_entry(3, 1, MAX_DEPTH)].0, "access3.m1.const");
    assert_eq!(fields[layout::access_field(MAX_ACCESSES - 1, "present")].0, format!("access{}.present", MAX_ACCESSES - 1));
    assert_eq!(fields[layout::loop_field(0, "parallel")].1, Kind::Bool);
    // Every name is unique.
    let mut names: Vec<&String> = fields.iter().map(|(n, _)| n).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), FEATURES);
}

#[test]
fn log_transform_is_signed_log1p() {
    assert_eq!(log(0.0), 0.0);
    assert!((log(std::f64::consts::E - 1.0) - 1.0).abs() < 1e-6);
    assert_eq!(log(-3.0), -log(3.0));
    assert!((log(1023.0) - (1024f64).ln() as f32).abs() < 1e-5);
}

#[test]
fn identity_of_gemm_is_log_transformed_and_zero_padded() {
    let p = gemm();
    let f = feat(&p, "");
    assert_eq!(f.comps.len(), 2);
    assert!(f.comps.iter().all(|v| v.len() == FEATURES));
    let s1 = 1; // C[i][j] += alpha * A[i][k] * B[k][j], three loops deep
    assert_eq!(lf(&f, s1, 0, "present"), 1.0);
    assert_eq!(lf(&f, s1, 0, "upper"), log(200.0));
    assert_eq!(lf(&f, s1, 0, "extent"), log(200.0));
    assert_eq!(lf(&f, s1, 2, "extent"), log(240.0));
    assert_eq!(lf(&f, s1, 2, "reduction"), 1.0);
    assert_eq!(lf(&f, s1, 0, "reduction"), 0.0);
    assert_eq!(lf(&f, s1, 2, "final_depth"), log(2.0));
    assert_eq!(lf(&f, s1, 2, "innermost"), 1.0);
    // Levels past the computation's depth are all zero.
    for level in 3..MAX_DEPTH {
        for (name, _) in layout::loop_fields() {
            assert_eq!(lf(&f, s1, level, name), 0.0, "loop{level}.{name}");
        }
    }
    // S0 is two loops deep.
    assert_eq!(lf(&f, 0, 1, "present"), 1.0);
    assert_eq!(lf(&f, 0, 2, "present"), 0.0);
    // Accesses: the store, then 3 loads; the rest is zero.
    let v = &f.comps[s1];
    assert_eq!(v[layout::access_field(0, "is_store")], 1.0);
    assert_eq!(v[layout::access_field(1, "is_store")], 0.0);
    for a in 0..4 {
        assert_eq!(v[layout::access_field(a, "present")], 1.0);
    }
    for a in 4..MAX_ACCESSES {
        assert_eq!(v[layout::access_field(a, "present")], 0.0);
        assert_eq!(v[layout::matrix_entry(a, 0, 0)], 0.0);
    }
    // The store C[i][j]: rows (1 0 0 | 0), (0 1 0 | 0).
    assert_eq!(v[layout::matrix_entry(0, 0, 0)], log(1.0));
    assert_eq!(v[layout::matrix_entry(0, 1, 1)], log(1.0));
    assert_eq!(v[layout::matrix_entry(0, 0, 2)], 0.0);
    assert_eq!(v[layout::access_field(0, "buffer_elements")], log(200.0 * 220.0));
    assert_eq!(v[layout::scalar_field("iterations")], log(200.0 * 220.0 * 240.0));
    // f32 one-hot, op counts (1 add, 2 mul).
    assert_eq!(v[layout::TYPE_PART + 2], 1.0);
    assert_eq!(v[layout::OPS_PART], log(1.0));
    assert_eq!(v[layout::OPS_PART + 2], log(2.0));
}

#[test]
fn gemm_tree_has_one_root_and_an_inner_loop_under_j() {
    let f = feat(&gemm(), "");
    assert_eq!(f.tree.roots, vec![0]);
    assert_eq!(f.tree.levels.len(), 3);
    assert_eq!(f.tree.levels[0], vec![ModelNode { comps: vec![], loops: vec![0] }]);
    assert_eq!(f.tree.levels[1], vec![ModelNode { comps: vec![0], loops: vec![0] }]);
    assert_eq!(f.tree.levels[2], vec![ModelNode { comps: vec![1], loops: vec![] }]);
}

#[test]
fn parallelize_sets_only_the_parallel_tag_of_that_loop() {
    let p = gemm();
    let id = feat(&p, "");
    let f = feat(&p, "parallelize(L0)");
    for c in 0..2 {
        assert_eq!(changed(&id.comps[c], &f.comps[c]), vec!["loop0.parallel"]);
    }
    assert_eq!(f.tree, id.tree);
}

#[test]
fn tiling_tags_the_band_and_moves_the_loops_below_the_tile_loops() {
    let p = gemm();
    let id = feat(&p, "");
    let f = feat(&p, "tile(L0:32, L0.0:64)");
    let mut c = changed(&id.comps[1], &f.comps[1]);
    c.sort();
    // Tile loops at depths 0 and 1; the point loops i, j, k move to depths 2, 3, 4.
    let mut want = vec![
        "loop0.tiled", "loop0.tile_size", "loop0.final_depth", "loop1.tiled", "loop1.tile_size",
        "loop1.final_depth", "loop1.tile_loop_depth", "loop2.final_depth",
    ];
    want.sort();
    assert_eq!(c, want);
    assert_eq!(lf(&f, 1, 0, "tile_size"), log(32.0));
    assert_eq!(lf(&f, 1, 1, "tile_size"), log(64.0));
    assert_eq!(lf(&f, 1, 1, "tile_loop_depth"), log(1.0));
    assert_eq!(lf(&f, 1, 2, "final_depth"), log(4.0));
    // The model's tree does not show tile loops.
    assert_eq!(f.tree, id.tree);
    // A parallel tile loop is told apart from a parallel point loop.
    let t = feat(&p, "tile(L0:32, L0.0:64); parallelize(L0.t)");
    assert_eq!(lf(&t, 1, 0, "tile_loop_parallel"), 1.0);
    assert_eq!(lf(&t, 1, 0, "parallel"), 0.0);
}

#[test]
fn a_second_level_of_tiles_tags_the_tile_loops_and_moves_the_rest_down() {
    let p = gemm();
    let one = feat(&p, "tile(L0:32, L0.0:64)");
    let two = feat(&p, "tile(L0:32, L0.0:64); tile(L0.t:4, L0.0.t:2)");
    let mut c = changed(&one.comps[1], &two.comps[1]);
    c.sort();
    // Tile loops of tiles at depths 0 and 1; the first level moves to 2 and 3, the point
    // loops to 4, 5, 6.
    let mut want = vec![
        "loop0.tile2_size", "loop0.final_depth", "loop0.tile_loop_depth", "loop1.tile2_size", "loop1.tile2_loop_depth", "loop1.final_depth",
        "loop1.tile_loop_depth", "loop2.final_depth",
    ];
    want.sort();
    assert_eq!(c, want);
    // Sizes in iterations of the original loop: 4 tiles of 32, 2 tiles of 64.
    assert_eq!(lf(&two, 1, 0, "tile2_size"), log(128.0));
    assert_eq!(lf(&two, 1, 1, "tile2_size"), log(128.0));
    assert_eq!(lf(&two, 1, 0, "tile2_loop_depth"), 0.0);
    assert_eq!(lf(&two, 1, 1, "tile2_loop_depth"), log(1.0));
    assert_eq!(lf(&two, 1, 1, "tile_loop_depth"), log(3.0));
    assert_eq!(lf(&two, 1, 2, "final_depth"), log(6.0));
    assert_eq!(two.tree, one.tree, "tile loops of every level are looked through");
    // Parallel outer tiles count as a parallel tile loop.
    let par = feat(&p, "tile(L0:32, L0.0:64); tile(L0.t:4, L0.0.t:2); parallelize(L0.t.t)");
    assert_eq!(lf(&par, 1, 0, "tile_loop_parallel"), 1.0);
    assert_eq!(lf(&par, 1, 0, "parallel"), 0.0);
}

#[test]
fn interchange_unroll_and_vectorize_tag_their_loops() {
    let progs = programs("transform-interchange.mlir");
    let p = progs.iter().find(|p| p.loops.len() >= 3 && p.computations.len() == 1).expect("a 3-deep perfect nest");
    let inner = p.loops.iter().find(|l| l.depth == 2).unwrap().name.clone();
    let mid = p.loops.iter().find(|l| l.depth == 1).unwrap().name.clone();
    let f = feat(p, &format!("interchange(L0, {inner}, {mid})"));
    assert_eq!(lf(&f, 0, 0, "interchanged"), 0.0);
    assert_eq!(lf(&f, 0, 1, "interchanged"), 1.0);
    assert_eq!(lf(&f, 0, 2, "interchanged"), 1.0);
    assert_eq!(lf(&f, 0, 1, "final_depth"), log(2.0));
    assert_eq!(lf(&f, 0, 2, "final_depth"), log(1.0));
    assert_eq!(lf(&f, 0, 1, "innermost"), 1.0);
    assert_eq!(lf(&f, 0, 2, "innermost"), 0.0);
    let u = feat(p, &format!("unroll({inner}:4); vectorize({inner}:8)"));
    assert_eq!(lf(&u, 0, 2, "unrolled"), 1.0);
    assert_eq!(lf(&u, 0, 2, "unroll_factor"), log(4.0));
    assert_eq!(lf(&u, 0, 2, "vectorized"), 1.0);
    assert_eq!(lf(&u, 0, 2, "vector_width"), log(8.0));
    assert_eq!(lf(&u, 0, 1, "unrolled"), 0.0);
}

#[test]
fn accumulation_tags_its_loop_and_jams_tag_the_register_tile() {
    let progs = programs("transform-interchange.mlir");
    let p = progs.iter().find(|p| p.loops.len() >= 3 && p.computations.len() == 1).expect("a 3-deep perfect nest");
    let f = feat(p, "accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8)");
    assert_eq!(lf(&f, 0, 2, "accumulated"), 1.0);
    assert_eq!(lf(&f, 0, 1, "accumulated"), 0.0);
    assert_eq!(lf(&f, 0, 1, "unroll_factor"), log(16.0));
    assert_eq!(lf(&f, 0, 0, "unroll_factor"), log(8.0));
    // Without the step, the field is 0 (and a model of layout version 1 never sees it).
    assert_eq!(lf(&feat(p, ""), 0, 2, "accumulated"), 0.0);
}

#[test]
fn a_floating_point_reduction_innermost_is_a_chain_whose_jams_interleave() {
    // C[i][j] += A[i][k] * B[k][j] (f32), i-j-k: k (level 2) holds the sum innermost.
    let progs = programs("transform-interchange.mlir");
    let p = progs.iter().find(|p| p.loops.len() >= 3 && p.computations.len() == 1).expect("a 3-deep perfect nest");
    let chain = |f: &Featurized, level: usize| {
        [lf(f, 0, level, "chain"), lf(f, 0, level, "chain_length"), lf(f, 0, level, "chain_interleave")]
    };
    let id = feat(p, "");
    assert_eq!(chain(&id, 2), [1.0, log(32.0), log(1.0)]);
    assert_eq!(chain(&id, 1), [0.0; 3]);
    assert_eq!(chain(&id, 0), [0.0; 3]);
    // Interchanged with j, the sum is no longer innermost: no chain anywhere.
    let x = feat(p, "interchange(L0, L0.0.0, L0.0)");
    for level in 0..3 {
        assert_eq!(chain(&x, level), [0.0; 3], "level {level}");
    }
    // The register tile: jams of i and j run 8 x 16 chains at once; unrolling k itself
    // does not split its chain.
    let rt = feat(p, "accumulate(L0.0.0); unroll(L0.0:16); unroll(L0:8); unroll(L0.0.0:4)");
    assert_eq!(chain(&rt, 2), [1.0, log(32.0), log(128.0)]);
    // A tile of k: a chain per entry as long as the tile; k's own tile loop adds no chains.
    let t = feat(p, "tile(L0.0.0:8); unroll(L0.0.0.t:2)");
    assert_eq!(chain(&t, 2), [1.0, log(8.0), log(1.0)]);
    // The interchange's changes include the chain's (beside its own tags).
    assert!(changed(&id.comps[0], &x.comps[0]).iter().any(|n| n == "loop2.chain"));
}

#[test]
fn packing_counts_the_packed_loads_and_the_elements_of_their_copies() {
    let progs = programs("transform-interchange.mlir");
    let p = progs.iter().find(|p| p.loops.len() >= 3 && p.computations.len() == 1).expect("a 3-deep perfect nest");
    // 64 x 48 x 32: under L0 (i, one tile of 16), A[i][k] is 16 x 32 and B[k][j] over the j
    // tile of 20 is 32 x 20.
    let f = feat(p, "tile(L0:16, L0.0:20); pack(L0, %arg0); pack(L0, %arg1)");
    assert_eq!(lf(&f, 0, 0, "packed_loads"), log(2.0));
    assert_eq!(lf(&f, 0, 0, "packed_elements"), log(16.0 * 32.0 + 32.0 * 20.0));
    assert_eq!(lf(&f, 0, 1, "packed_loads"), 0.0);
    // Under j's point loop: i is fixed, j takes its tile.
    let g = feat(p, "tile(L0:16, L0.0:20); pack(L0.0, %arg1)");
    assert_eq!(lf(&g, 0, 1, "packed_loads"), log(1.0));
    assert_eq!(lf(&g, 0, 1, "packed_elements"), log(32.0 * 20.0));
    // Under the j tile loop: every j tile, so all of B.
    let h = feat(p, "tile(L0:16, L0.0:20); pack(L0.0.t, %arg1)");
    assert_eq!(lf(&h, 0, 1, "packed_elements"), log(32.0 * 48.0));
    assert_eq!(lf(&feat(p, ""), 0, 0, "packed_loads"), 0.0);
}

#[test]
fn fusion_merges_the_trees_and_tags_the_fused_loops() {
    let progs = programs("transform-fuse.mlir");
    let p = progs.iter().find(|p| p.function == "producer_consumer").unwrap();
    let id = feat(p, "");
    assert_eq!(id.tree.roots.len(), 2);
    let f = feat(p, "fuse(L0, L1, 2)");
    assert_eq!(f.tree.roots, vec![0]);
    assert_eq!(f.tree.levels[1], vec![ModelNode { comps: vec![0, 1], loops: vec![] }]);
    for c in 0..2 {
        assert_eq!(lf(&f, c, 0, "fused"), 1.0);
        assert_eq!(lf(&f, c, 1, "fused"), 1.0);
    }
    // Fusing one loop keeps two inner loops under one root.
    let f1 = feat(p, "fuse(L0, L1, 1); parallelize(L1)");
    assert_eq!(f1.tree.roots.len(), 1);
    assert_eq!(f1.tree.levels[0][0].loops.len(), 2);
    // A step on the merged loop tags the computations of both nests.
    assert_eq!(lf(&f1, 0, 0, "parallel"), 1.0);
    assert_eq!(lf(&f1, 1, 0, "parallel"), 1.0);
    assert_eq!(lf(&f1, 0, 1, "fused"), 0.0);
}

#[test]
fn triangular_bounds_are_marked_non_rectangular() {
    let p = programs("syrk.mlir").remove(0);
    let f = feat(&p, "");
    assert_eq!(lf(&f, 0, 1, "non_rectangular"), 1.0);
    assert_eq!(lf(&f, 0, 0, "non_rectangular"), 0.0);
    // j < i + 1 with i < 240: at most 240 iterations.
    assert_eq!(lf(&f, 0, 1, "extent"), log(240.0));
}

#[test]
fn unknown_loops_are_errors() {
    let p = gemm();
    let e = featurize(&p, &"parallelize(L7)".parse().unwrap()).unwrap_err();
    assert!(matches!(e, FeatureError::Schedule { step: 1, .. }), "{e}");
    let e = featurize(&p, &"tile(L0:4); tile(L0.t:2); tile(L0.t.t:2)".parse().unwrap()).unwrap_err();
    assert!(e.to_string().contains("levels of tiles"), "{e}");
}

#[test]
fn batches_pad_to_their_own_maxima() {
    let p = gemm();
    let a = feat(&p, "");
    let fuse = programs("transform-fuse.mlir").into_iter().find(|p| p.function == "producer_consumer").unwrap();
    let b = feat(&fuse, "");
    let batch = Batch::encode(&[&a, &b]);
    // Two slots for the two roots of the second program; one child per node at most.
    assert_eq!((batch.b, batch.k, batch.s, batch.c), (2, 2, 2, 1));
    let shapes = batch.shapes();
    assert_eq!(shapes[0], vec![2, 2, FEATURES]);
    assert_eq!(shapes[1], vec![2, MAX_DEPTH, 2, 1]);
    assert_eq!(batch.root_counts, vec![1, 2]);
    assert_eq!(&batch.root_children[2..4], &[0, 1]);
    // gemm, level 1, slot 0: one computation (S0) and one loop child.
    let node = 2; // (candidate 0 · D + level 1) · S + slot 0
    assert_eq!(batch.comp_counts[node], 1);
    assert_eq!(batch.loop_counts[node], 1);
    // Candidate 0 has nothing at level 3 and beyond.
    assert!(batch.comp_counts[3 * 2..MAX_DEPTH * 2].iter().all(|c| *c == 0));
    // Computation vectors are copied whole, padding rows are zero.
    assert_eq!(&batch.comps[..FEATURES], &a.comps[0][..]);
    let one = Batch::encode(&[&a]);
    assert_eq!((one.k, one.s, one.c), (2, 1, 1));
}

#[test]
fn the_shared_form_holds_each_distinct_node_once() {
    // 2mm: two nests. A step on the second leaves the first nest's nodes as they were.
    let p = programs("2mm.mlir").remove(0);
    let id = feat(&p, "");
    let par = feat(&p, "parallelize(L1)");
    let one = Shared::encode(&[&id]);
    let both = Shared::encode(&[&id, &par]);
    let twice = Shared::encode(&[&id, &id]);
    // The same candidate twice: the tables of one, two roots naming the same nodes.
    assert_eq!((twice.u, twice.n, twice.c), (one.u, one.n, one.c));
    assert_eq!(twice.node_comps, one.node_comps);
    assert_eq!(twice.node_loops, one.node_loops);
    assert_eq!(&twice.root_children[..twice.s], &twice.root_children[twice.s..]);
    // Nodes per level: the identity's, plus only the second nest's (changed) ones.
    let nodes = |s: &Shared| (s.node_comp_counts.iter().zip(&s.node_loop_counts)).filter(|(c, l)| **c + **l > 0).count();
    let per_tree = |f: &Featurized| f.tree.levels.iter().map(Vec::len).sum::<usize>();
    assert_eq!(nodes(&one), per_tree(&id));
    assert!(nodes(&both) < per_tree(&id) + per_tree(&par), "{} nodes", nodes(&both));
    assert!(nodes(&both) > nodes(&one));
    // The first root is shared, the second is not.
    assert_eq!(both.root_counts, vec![2, 2]);
    assert_eq!(both.root_children[0], both.root_children[both.s]);
    assert_ne!(both.root_children[1], both.root_children[both.s + 1]);
    // Every child index points at a real row or node.
    let (d, n, c) = (MAX_DEPTH, both.n, both.c);
    for level in 0..d {
        for j in 0..n {
            let at = level * n + j;
            for x in 0..both.node_comp_counts[at] as usize {
                assert!((both.node_comps[at * c + x] as usize) < both.u);
            }
            for x in 0..both.node_loop_counts[at] as usize {
                let child = both.node_loops[at * c + x] as usize;
                let below = (level + 1) * n + child;
                assert!(level + 1 < d && both.node_comp_counts[below] + both.node_loop_counts[below] > 0);
            }
        }
    }
}

#[test]
fn distribution_splits_the_tree_and_each_part_has_its_own_tags() {
    // 2mm's first nest: i { j { S0; k { S1 } } }.
    let p = programs("2mm.mlir").remove(0);
    let id = feat(&p, "");
    assert_eq!(id.tree.roots.len(), 2);
    let d = feat(&p, "distribute(L0.0); distribute(L0)");
    // Two nests of the first product now: i { j { S0 } } and i { j { k { S1 } } }.
    assert_eq!(d.tree.roots.len(), 3);
    assert_eq!(d.tree.levels[1][0], ModelNode { comps: vec![0], loops: vec![] });
    // The same loops and accesses: only S0's j loop is now innermost.
    assert_eq!(changed(&id.comps[0], &d.comps[0]), ["loop1.innermost"]);
    for c in 1..4 {
        assert!(changed(&id.comps[c], &d.comps[c]).is_empty(), "S{c}");
    }
    // A step on one part tags the computations of that part only.
    let i = feat(&p, "distribute(L0.0); distribute(L0); interchange(L0.0.0, L0.0.d1); parallelize(L0.d1)");
    assert_eq!(lf(&i, 1, 0, "parallel"), 1.0);
    assert_eq!(lf(&i, 0, 0, "parallel"), 0.0);
    assert_eq!(lf(&i, 1, 1, "interchanged"), 1.0);
    assert_eq!(lf(&i, 1, 2, "interchanged"), 1.0);
    assert_eq!(lf(&i, 0, 1, "interchanged"), 0.0);
    assert_eq!(lf(&i, 1, 2, "final_depth"), log(1.0));
    // A loop with one child has nothing to distribute.
    let e = featurize(&p, &"distribute(L0)".parse::<Schedule>().unwrap()).unwrap_err();
    assert!(e.to_string().contains("nothing to distribute"), "{e}");
}

#[test]
fn a_tiles_point_loop_has_the_tiles_extent() {
    // `ii to min(ii + 32, 100)`: 32 iterations, not the 100 its range spans; the clamped
    // window `max(i - 2, 0) to min(i + 3, 30)` has at most 5.
    let ps = programs("minmax-bounds.mlir");
    let f = feat(&ps[0], "");
    assert_eq!(lf(&f, 0, 1, "extent"), log(32.0));
    assert_eq!(lf(&f, 0, 1, "non_rectangular"), 1.0);
    let f = feat(&ps[1], "");
    assert_eq!(lf(&f, 0, 0, "extent"), log(28.0));
    assert_eq!(lf(&f, 0, 1, "extent"), log(5.0));
}

#[test]
fn work_counts_the_iterations_of_every_computation() {
    // gemm.mlir: C[i][j] *= beta over 200x220, then the update over 200x220x240.
    assert_eq!(affine_autosched::features::work(&gemm()), (200 * 220 + 200 * 220 * 240) as f64);
    // It is the sum of the computations' `iterations` feature (before the log transform),
    // and no schedule changes it.
    let f = feat(&gemm(), "tile(L0:32, L0.0:32); parallelize(L0)");
    let col = layout::scalar_field("iterations");
    let sum: f64 = f.comps.iter().map(|v| (v[col] as f64).exp_m1()).sum();
    assert!((sum / affine_autosched::features::work(&gemm()) - 1.0).abs() < 1e-4, "{sum}");
}

#[test]
fn the_log_transform_is_sign_times_ln_1p_bit_for_bit() {
    let mut xs: Vec<f64> = (-300..300).map(|k| k as f64).collect();
    xs.extend([0.5, -0.5, 255.5, 1e9, -1e9, 3.25, 0.0, -0.0, 1e-7]);
    for x in xs {
        let want = (x.signum() * x.abs().ln_1p()) as f32;
        assert_eq!(layout::log_transform(x).to_bits(), want.to_bits(), "{x}");
    }
}

#[test]
fn working_set_follows_the_schedule_and_the_host() {
    // gemm's update S1: C[i][j] += A[i][k] * B[k][j], 200x220x240 f32.
    let p = gemm();
    let on = |l2: f64, s: &str| {
        let host = Host::from_sizes([32768.0, l2, 32.0 * 1048576.0]);
        Featurizer::for_host(&p, host).featurize(&s.parse::<Schedule>().unwrap()).unwrap()
    };
    let id = on(524288.0, "");
    // One run of i: all of C, A and B; of j (i fixed): a row of C and of A, all of B; of k:
    // one element of C, a row of A, a column of B.
    let bytes = [(200 * 220 + 200 * 240 + 240 * 220) * 4, (220 + 240 + 240 * 220) * 4, (1 + 240 + 240) * 4];
    for (level, b) in bytes.iter().enumerate() {
        assert_eq!(lf(&id, 1, level, "working_set_bytes"), log(*b as f64), "level {level}");
        assert_eq!(lf(&id, 1, level, "tile_working_set_bytes"), 0.0);
    }
    // 579,200 bytes exceed L1 and an L2 of 512 KiB, not one of 1 MiB.
    assert_eq!(lf(&id, 1, 0, "caches_exceeded"), log(2.0));
    assert_eq!(lf(&on(1048576.0, ""), 1, 0, "caches_exceeded"), log(1.0));
    assert_eq!(lf(&id, 1, 1, "caches_exceeded"), log(1.0));
    assert_eq!(lf(&id, 1, 2, "caches_exceeded"), 0.0);
    // The host itself, in every computation's vector (layout 6).
    for comp in 0..id.comps.len() {
        let host: Vec<f32> = layout::HOST_SCALARS.iter().map(|(n, _)| id.comps[comp][layout::scalar_field(n)]).collect();
        assert_eq!(host, [log(32768.0), log(524288.0), log(32.0 * 1048576.0)]);
    }
    assert_eq!(on(1048576.0, "").comps[0][layout::scalar_field("host_l2_bytes")], log(1048576.0));
    // Tiles of 32 x 64: a run of the point loop i covers one tile of C, 32 rows of A and 64
    // columns of B; a run of j's tile loop (inside i's, outside the point loops) covers
    // 32 whole rows of C and A, and all of B.
    let t = on(524288.0, "tile(L0:32, L0.0:64)");
    assert_eq!(lf(&t, 1, 0, "working_set_bytes"), log(((32 * 64 + 32 * 240 + 240 * 64) * 4) as f64));
    assert_eq!(lf(&t, 1, 0, "tile_working_set_bytes"), log(bytes[0] as f64));
    assert_eq!(lf(&t, 1, 0, "tile_caches_exceeded"), log(2.0));
    assert_eq!(lf(&t, 1, 1, "working_set_bytes"), log(((64 + 240 + 240 * 64) * 4) as f64));
    assert_eq!(lf(&t, 1, 1, "tile_working_set_bytes"), log(((32 * 220 + 32 * 240 + 240 * 220) * 4) as f64));
    assert_eq!(lf(&t, 1, 0, "caches_exceeded"), log(1.0));
    // j outermost: a run of j covers everything; of i (j fixed), a column of C, all of A, a
    // column of B.
    let x = on(524288.0, "interchange(L0.0, L0)");
    assert_eq!(lf(&x, 1, 1, "working_set_bytes"), log(bytes[0] as f64));
    assert_eq!(lf(&x, 1, 0, "working_set_bytes"), log(((200 + 200 * 240 + 240) * 4) as f64));
    // The pass's own featurizer uses this machine's caches.
    assert_eq!(featurize(&p, &Schedule::default()).unwrap().comps, Featurizer::for_host(&p, Host::this_machine().clone()).featurize(&Schedule::default()).unwrap().comps);
}

#[test]
fn strides_count_how_each_loop_walks_the_accesses() {
    // gemm's update S1: C[i][j] = C[i][j] + A[i][k] * B[k][j] (store C, loads A, B, C), f32,
    // C 200x220, A 200x240, B 240x220, row-major.
    let mut p = gemm();
    let strides = |p: &Program, s: &str, level: usize| -> [f32; 5] {
        let f = feat(p, s);
        ["stride_invariant", "stride_unit", "stride_in_line", "stride_new_line", "stride_max_bytes"].map(|n| lf(&f, 1, level, n))
    };
    let want = |counts: [f64; 4], bytes: f64| [counts[0], counts[1], counts[2], counts[3], bytes].map(log);
    // i: B stays, C (twice) and A move a row (220 and 240 elements).
    assert_eq!(strides(&p, "", 0), want([1.0, 0.0, 0.0, 3.0], 960.0));
    // j: A stays, C (twice) and B move one element.
    assert_eq!(strides(&p, "", 1), want([1.0, 3.0, 0.0, 0.0], 4.0));
    // k: C stays, A moves one element, B a row of 220.
    assert_eq!(strides(&p, "", 2), want([2.0, 1.0, 0.0, 1.0], 880.0));
    // They describe the original loop wherever the schedule puts it (its placement says
    // where): interchanging i and j changes placement, not strides.
    let x = feat(&p, "interchange(L0.0, L0)");
    assert_eq!(strides(&p, "interchange(L0.0, L0)", 0), want([1.0, 0.0, 0.0, 3.0], 960.0));
    assert_ne!(lf(&x, 1, 0, "final_depth"), lf(&feat(&p, ""), 1, 0, "final_depth"));
    // A step of 2 on k: A moves 8 bytes (within a line), B 440 elements.
    let k = p.computations[1].iterators[2];
    p.loops[k].step = 2;
    assert_eq!(strides(&p, "", 2), want([2.0, 0.0, 1.0, 1.0], 1760.0));
}

#[test]
fn hosts_read_from_recorded_caches_count_a_shared_l2_per_core() {
    use affine_autosched::machine::Cache;
    let c = |level, bytes, shared_by| Cache { level, bytes, shared_by };
    // Data from before 2026-11-26 records no sharing: taken as private.
    assert_eq!(Host::from_caches(&[c(1, 32768, 0), c(2, 1 << 20, 0), c(3, 32 << 20, 0)]).levels, vec![32768.0, 1048576.0, 33554432.0]);
    // An L2 shared by two CPUs counts half per core; the L3 counts whole.
    assert_eq!(Host::from_caches(&[c(1, 49152, 1), c(2, 4 << 20, 2), c(3, 300 << 20, 2)]).levels, vec![49152.0, 2097152.0, 314572800.0]);
    assert!(Host::from_caches(&[]).levels.is_empty());
}
