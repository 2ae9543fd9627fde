//! `search`: candidates per stage, and the beam search with the shipped model: ranked
//! best first, deterministic, every result legal, `max_depth` respected.

use affine_autosched::cost_model;
use affine_autosched::ir::{self, Program};
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::{Schedule, Transform};
use affine_autosched::search::candidates::{candidates, Stage};
use affine_autosched::search::{beam_search, SearchConfig};
use affine_autosched::transform;
use std::path::PathBuf;

fn module(name: &str) -> LoadedModule {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-mlir").join(name);
    LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn program_of(m: &LoadedModule, function: &str) -> Program {
    let f = m.functions().into_iter().find(|f| f.string_attr("sym_name").as_deref() == Some(function)).unwrap();
    ir::analyze_function(f).unwrap().program
}

#[test]
fn candidates_follow_the_tree_and_the_schedule_so_far() {
    let m = module("transform-fuse.mlir");
    let p = program_of(&m, "producer_consumer");
    let fuse = candidates(&p, &Schedule::default(), Stage::Fusion);
    assert!(fuse.iter().any(|t| t.to_string() == "fuse(L0, L1, 2)"), "{fuse:?}");
    // After fusing, there is nothing left to fuse.
    let fused: Schedule = "fuse(L0, L1, 2)".parse().unwrap();
    assert!(candidates(&p, &fused, Stage::Fusion).is_empty());
    // gemm's perfect chain is (i, j) (j also holds S0 and k): one interchange.
    let g = module("gemm.mlir");
    let gemm = program_of(&g, "gemm");
    let inter: Vec<String> = candidates(&gemm, &Schedule::default(), Stage::Interchange).iter().map(|t| t.to_string()).collect();
    assert_eq!(inter, vec!["interchange(L0.0, L0)"]);
    // Tiling proposes bands of 1 and 2 loops.
    let tiles = candidates(&p, &Schedule::default(), Stage::Tiling);
    assert!(tiles.iter().any(|t| t.to_string() == "tile(L0:16, L0.0:16)"), "{tiles:?}");
    // After tiling, parallelization is offered on the tile loop.
    let tiled: Schedule = "tile(L0:16, L0.0:16)".parse().unwrap();
    let par = candidates(&p, &tiled, Stage::Parallelization);
    assert!(par.contains(&Transform::Parallelize { target: "L0.t".parse().unwrap() }), "{par:?}");
}

#[test]
fn beam_search_ranks_legal_schedules_deterministically() {
    let model = cost_model::load(None).unwrap_or_else(|e| panic!("{e}"));
    let m = module("transform-fuse.mlir");
    let f = m.functions().into_iter().find(|f| f.string_attr("sym_name").as_deref() == Some("producer_consumer")).unwrap();
    let p = ir::analyze_function(f).unwrap().program;
    let before = m.operation().to_text();
    let cfg = SearchConfig { beam_width: 4, max_depth: 6 };
    let a = beam_search(f, &p, &model, cfg).unwrap();
    let b = beam_search(f, &p, &model, cfg).unwrap();
    assert_eq!(m.operation().to_text(), before, "the search does not change the function");
    let text = |r: &affine_autosched::search::SearchResult| -> Vec<String> {
        r.ranked.iter().map(|s| format!("{} {}", s.schedule, s.predicted)).collect()
    };
    assert_eq!(text(&a), text(&b), "deterministic");
    assert!(a.ranked.windows(2).all(|w| w[0].predicted >= w[1].predicted), "best first");
    assert!(a.ranked.iter().any(|s| s.schedule.is_identity()));
    assert_eq!(a.scored, a.ranked.len());
    assert!(a.scored > 10, "{} scored", a.scored);
    for s in &a.ranked {
        assert!(s.schedule.steps.len() <= 6);
        transform::check(f, &s.schedule).unwrap_or_else(|e| panic!("{}: {e}", s.schedule));
    }
    // The best one applies for real.
    transform::apply(f, &a.best().schedule).unwrap();
}

#[test]
fn max_depth_bounds_the_schedules() {
    let model = cost_model::load(None).unwrap();
    let m = module("gemm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let zero = beam_search(f, &p, &model, SearchConfig { beam_width: 4, max_depth: 0 }).unwrap();
    assert_eq!(zero.ranked.len(), 1);
    assert!(zero.best().schedule.is_identity());
    let one = beam_search(f, &p, &model, SearchConfig { beam_width: 4, max_depth: 1 }).unwrap();
    assert!(one.ranked.iter().all(|s| s.schedule.steps.len() <= 1));
    assert!(one.ranked.len() > 1);
}
