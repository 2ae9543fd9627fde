//! `cost_model` with the shipped model: the Rust featurizer + ONNX Runtime reproduce the
//! predictions PyTorch made at export time (onnx/reference.json), one batch per program;
//! missing and corrupt models are typed errors.

use affine_autosched::cost_model::{self, CostModel, ModelError, NestCache};
use affine_autosched::features::{featurize, Featurized, Featurizer, Host};
use affine_autosched::ir;
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::Schedule;
use serde::Deserialize;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Deserialize)]
struct Reference {
    programs: Vec<RefProgram>,
}

#[derive(Deserialize)]
struct RefProgram {
    program_id: String,
    mlir: String,
    /// The caches of the host the points were measured on (none: this machine's).
    #[serde(default)]
    caches: Vec<affine_autosched::machine::Cache>,
    schedules: Vec<String>,
    predicted: Vec<f32>,
}

/// The reference programs (onnx/reference.json), each with its schedules featurized for the
/// host its points were measured on.
fn reference_points() -> Vec<(RefProgram, Vec<Featurized>)> {
    let text = std::fs::read_to_string(root().join("onnx/reference.json")).expect("onnx/reference.json");
    let reference: Reference = serde_json::from_str(&text).unwrap();
    reference
        .programs
        .into_iter()
        .map(|p| {
            let module = LoadedModule::from_source(&p.mlir).unwrap();
            let program = ir::analyze_function(module.functions()[0]).unwrap().program;
            let featurizer = Featurizer::for_host(&program, Host::recorded(&p.caches));
            let feats = p.schedules.iter().map(|s| featurizer.featurize(&s.parse::<Schedule>().unwrap()).unwrap()).collect();
            (p, feats)
        })
        .collect()
}

#[test]
fn shipped_model_matches_pytorch_on_the_reference_points() {
    let model = CostModel::load(&root().join("onnx/model.onnx")).unwrap_or_else(|e| panic!("{e}"));
    let reference = reference_points();
    assert!(reference.len() >= 3);
    let mut checked = 0;
    for (p, feats) in &reference {
        let refs: Vec<&Featurized> = feats.iter().collect();
        let got = model.predict(&refs).unwrap();
        for ((s, want), got) in p.schedules.iter().zip(&p.predicted).zip(&got) {
            let rel = (got - want).abs() / want.abs();
            assert!(rel <= 1e-4, "{} '{s}': Rust {got}, PyTorch {want} ({rel:.1e})", p.program_id);
            checked += 1;
        }
        // One candidate alone scores as in the batch (padding changes nothing).
        let alone = model.predict(&refs[..1]).unwrap();
        assert!((alone[0] - got[0]).abs() <= 1e-5 * got[0].abs());
    }
    assert!(checked >= 20, "only {checked} reference points");
}

#[test]
fn nests_known_from_earlier_calls_predict_what_summarizing_them_again_predicts() {
    // The shipped graph takes known nests (the cached form): a search's calls reuse the nests
    // earlier calls summarized. Half of each program's reference schedules first, then all of
    // them (the second call knows the nests the first summarized), then all again (it knows
    // every nest): the same predictions as a call that summarizes every nest.
    let model = CostModel::load(&root().join("onnx/model.onnx")).unwrap();
    let mut reused = 0;
    for (p, feats) in &reference_points() {
        let refs: Vec<&Featurized> = feats.iter().collect();
        let fresh = model.predict_members(&refs).unwrap();
        let mut cache = NestCache::default();
        let half: Vec<&Featurized> = refs.iter().step_by(2).copied().collect();
        let first = model.predict_members_cached(&half, &mut cache).unwrap();
        let summarized = cache.summarized;
        assert!(summarized > 0 && cache.reused == 0);
        let warm = model.predict_members_cached(&refs, &mut cache).unwrap();
        let known = cache.reused;
        assert!(known > 0, "{}: the second call knew no nest", p.program_id);
        let after_warm = cache.summarized;
        // All known now: the third call summarizes nothing.
        let again = model.predict_members_cached(&refs, &mut cache).unwrap();
        assert_eq!(cache.summarized, after_warm, "{}: every nest was known", p.program_id);
        assert!(cache.reused > known);
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5 * y.abs());
        for (k, f) in fresh.iter().enumerate() {
            for got in [&warm[k], &again[k]] {
                assert!(close(got, f), "{} '{}': {got:?} with known nests, {f:?} without", p.program_id, p.schedules[k]);
            }
        }
        for (k, f) in first.iter().enumerate() {
            assert!(close(f, &fresh[2 * k]));
        }
        reused += cache.reused;
    }
    assert!(reused > 0);
}

#[test]
fn the_shipped_model_is_found_and_shared() {
    let a = cost_model::load(None).unwrap_or_else(|e| panic!("{e}"));
    let b = CostModel::load(&root().join("onnx/model.onnx")).unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b), "one session per model file");
    assert!(cost_model::runtime_path().unwrap().to_string_lossy().contains("onnxruntime"));
}

#[test]
fn predictions_from_many_threads_agree() {
    let model = cost_model::load(None).unwrap();
    let module = LoadedModule::from_file(&root().join("test-mlir/gemm.mlir")).unwrap();
    let program = ir::analyze_function(module.functions()[0]).unwrap().program;
    let f = featurize(&program, &"parallelize(L0); unroll(L0.0.0:4)".parse().unwrap()).unwrap();
    let alone = model.predict(&[&f]).unwrap()[0];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..10).map(|_| model.predict(&[&f]).unwrap()[0]).collect::<Vec<f32>>()))
            .collect();
        for h in handles {
            assert!(h.join().unwrap().iter().all(|p| *p == alone));
        }
    });
}

#[test]
fn missing_and_corrupt_models_are_errors() {
    let dir = std::env::temp_dir().join(format!("autosched-cm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.onnx");
    assert!(matches!(CostModel::load(&missing), Err(ModelError::MissingModel(_))));
    let corrupt = dir.join("corrupt.onnx");
    std::fs::write(&corrupt, b"\x08\x07garbage").unwrap();
    let e = CostModel::load(&corrupt).unwrap_err();
    assert!(matches!(e, ModelError::BadModel { .. }), "{e}");
    assert!(e.to_string().contains("corrupt.onnx"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_model_is_asked_only_about_the_kinds_its_layout_has() {
    use affine_autosched::features::layout;
    use affine_autosched::schedule::Stage;
    use affine_autosched::search::{beam_search, SearchConfig};
    let model = CostModel::load(&root().join("onnx/model.onnx")).unwrap();
    // The shipped model knows every kind of step (layout 3 or later: layout 4 added the
    // working set, no kind), so every stage is scored, accumulate and pack included.
    assert!(model.layout_version() >= 3 && model.layout_version() <= layout::LAYOUT_VERSION);
    assert!(model.knows(Stage::Tile) && model.knows(Stage::Accumulate) && model.knows(Stage::Pack));
    // A model of layout 1 (the toy-size one shipped before) predates accumulate: the search
    // would skip that stage for it. (No layout-1 graph is kept in the tree to run it end to end.)
    assert!(Stage::Accumulate.since_layout() > 1 && Stage::Tile.since_layout() <= 1);
    let module = LoadedModule::from_file(&root().join("test-mlir/transform-interchange.mlir")).unwrap();
    let func = module.functions()[0];
    let program = ir::analyze_function(func).unwrap().program;
    let result = beam_search(func, &program, &model, SearchConfig { beam_width: 4, max_depth: 8 }).unwrap();
    assert!(result.ranked.len() > 10);
    // Every ranked schedule is one the model was asked about.
    assert!(result.ranked.iter().all(|s| s.schedule.steps.iter().all(|t| model.knows_step(t))));
}

/// Model mode with a model whose data predates partial-tile peeling (models that record no
/// `data_space`, as the one shipped until 2026-12-05) keeps peeling schedules out of its
/// beam; the point-estimate search that hybrid measures the finalists of keeps them, and so
/// does model mode with a model of newer data (the shipped one, of space 4).
#[test]
fn model_mode_leaves_out_the_peeling_its_model_never_saw() {
    use affine_autosched::datagen::sampler::SPACE_PEELING;
    use affine_autosched::schedule::peels_partial_tiles;
    use affine_autosched::search::{self, SearchConfig};
    let shipped = CostModel::load(&root().join("onnx/model.onnx")).unwrap();
    assert!(shipped.data_space() >= SPACE_PEELING);
    let m = LoadedModule::from_file(&root().join("benchmarks/polybench/gemm.mlir")).unwrap();
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let cfg = SearchConfig { beam_width: 8, max_depth: 12 };
    let (newer, _) = search::beam_search_with_members(f, &p, &shipped, cfg, 0.9).unwrap();
    assert!(newer.ranked.iter().any(|s| peels_partial_tiles(&p, &s.schedule)));
    let older = CostModel::load_assuming_data_space(&root().join("onnx/model.onnx"), SPACE_PEELING - 1).unwrap();
    let (pessimistic, _) = search::beam_search_with_members(f, &p, &older, cfg, 0.9).unwrap();
    assert!(pessimistic.ranked.len() > 100);
    assert!(pessimistic.ranked.iter().all(|s| !peels_partial_tiles(&p, &s.schedule)));
    let point = search::beam_search(f, &p, &older, cfg).unwrap();
    assert!(point.ranked.iter().any(|s| peels_partial_tiles(&p, &s.schedule)));
}
