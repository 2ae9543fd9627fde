//! `search`: candidates per stage, and the beam search with the shipped model: ranked
//! best first, deterministic, every result legal, `max_depth` respected.

use affine_autosched::cost_model;
use affine_autosched::ir::{self, Program};
use affine_autosched::mlir::LoadedModule;
use affine_autosched::schedule::{Parallelize, Schedule, Transform};
use affine_autosched::search::candidates::{candidates, combinations, Stage, STAGES};
use affine_autosched::search::{beam_search, decided_at_base, unroll_base, Base, SearchConfig, StateCheck};
use affine_autosched::transform;
use std::collections::{BTreeSet, HashMap};
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
    let fuse = candidates(&p, &Schedule::default(), Stage::Fuse);
    assert!(fuse.iter().any(|t| t.to_string() == "fuse(L0, L1, 2)"), "{fuse:?}");
    // After fusing, there is nothing left to fuse.
    let fused: Schedule = "fuse(L0, L1, 2)".parse().unwrap();
    assert!(candidates(&p, &fused, Stage::Fuse).is_empty());
    // gemm's perfect chain is (i, j) (j also holds S0 and k): one interchange.
    let g = module("gemm.mlir");
    let gemm = program_of(&g, "gemm");
    let inter: Vec<String> = candidates(&gemm, &Schedule::default(), Stage::Interchange).iter().map(|t| t.to_string()).collect();
    assert_eq!(inter, vec!["interchange(L0.0, L0)"]);
    // Tiling proposes bands of 1 and 2 loops.
    let tiles = candidates(&p, &Schedule::default(), Stage::Tile);
    assert!(tiles.iter().any(|t| t.to_string() == "tile(L0:16, L0.0:16)"), "{tiles:?}");
    // After tiling, parallelization is offered on the tile loop.
    let tiled: Schedule = "tile(L0:16, L0.0:16)".parse().unwrap();
    let par = candidates(&p, &tiled, Stage::Parallelize);
    assert!(par.contains(&Transform::Parallelize(Parallelize { target: "L0.t".parse().unwrap() })), "{par:?}");
}

fn benchmark(name: &str) -> LoadedModule {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/polybench").join(name);
    LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn texts(ts: &[Transform]) -> Vec<String> {
    ts.iter().map(|t| t.to_string()).collect()
}

/// A loop that runs once (a batch of one) is not offered for parallelization: the two
/// outermost loops that may run more than once are.
#[test]
fn loops_that_run_once_are_not_parallelized() {
    let m = LoadedModule::from_source(
        "func.func @k(%a: memref<1x64x32xf32>, %b: memref<1x64x32xf32>) {
           affine.for %n = 0 to 1 {
             affine.for %c = 0 to 64 {
               affine.for %w = 0 to 32 {
                 %v = affine.load %a[%n, %c, %w] : memref<1x64x32xf32>
                 %r = arith.addf %v, %v : f32
                 affine.store %r, %b[%n, %c, %w] : memref<1x64x32xf32>
               }
             }
           }
           return
         }",
    )
    .unwrap();
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let par = candidates(&p, &Schedule::default(), Stage::Parallelize);
    assert_eq!(texts(&par), ["parallelize(L0.0)", "parallelize(L0.0.0)"]);
}

#[test]
fn inner_nests_get_their_own_candidates_and_one_step_each_at_once() {
    // jacobi-2d: a time loop L0 over two sweeps L0.0 (i, j) and L0.1 (i, j).
    let m = benchmark("jacobi-2d.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let id = Schedule::default();
    let par = candidates(&p, &id, Stage::Parallelize);
    assert_eq!(
        texts(&par),
        ["parallelize(L0)", "parallelize(L0.0)", "parallelize(L0.0.0)", "parallelize(L0.1)", "parallelize(L0.1.0)"]
    );
    let legal: Vec<Transform> =
        par.into_iter().filter(|t| transform::check(f, &Schedule { steps: vec![t.clone()] }).is_ok()).collect();
    assert!(!texts(&legal).contains(&"parallelize(L0)".to_string()), "the time loop carries a dependence");
    // One parallel loop per sweep, the outermost legal one, never one inside another.
    let combos = combinations(&p, &id, Stage::Parallelize, &legal);
    assert_eq!(combos.iter().map(|c| texts(c)).collect::<Vec<_>>(), [["parallelize(L0.0)", "parallelize(L0.1)"]]);
    transform::check(f, &Schedule { steps: combos[0].clone() }).unwrap();
    // Interchange and tiling reach into the sweeps too.
    let inter = texts(&candidates(&p, &id, Stage::Interchange));
    assert_eq!(inter, ["interchange(L0.0.0, L0.0)", "interchange(L0.1.0, L0.1)"]);
    // Unrolling by one factor everywhere: the innermost loops only (not their parents).
    let unroll = candidates(&p, &id, Stage::Unroll);
    let combos = combinations(&p, &id, Stage::Unroll, &unroll);
    assert!(combos.iter().any(|c| texts(c) == ["unroll(L0.0.0:2)", "unroll(L0.1.0:2)"]), "{combos:?}");
    assert!(combos.iter().all(|c| c.len() == 2), "{combos:?}");
    // Nothing is combined from a single nest's steps.
    let g = module("gemm.mlir");
    let gemm = program_of(&g, "gemm");
    let par = candidates(&gemm, &id, Stage::Parallelize);
    assert!(combinations(&gemm, &id, Stage::Parallelize, &par).is_empty());
}

#[test]
fn distribution_splits_imperfect_nests_into_perfect_ones() {
    // 2mm: i { j { C = 0; k { C += A * B } } }, twice.
    let m = benchmark("2mm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let id = Schedule::default();
    let single = candidates(&p, &id, Stage::Distribute);
    assert_eq!(texts(&single), ["distribute(L0.0)", "distribute(L1.0)"]);
    for t in &single {
        transform::check(f, &Schedule { steps: vec![t.clone()] }).unwrap();
    }
    // Each loop, then the loops around it up to the top; and everything at once, innermost
    // first.
    let combos: Vec<Vec<String>> = combinations(&p, &id, Stage::Distribute, &single).iter().map(|c| texts(c)).collect();
    assert_eq!(
        combos,
        [
            vec!["distribute(L0.0)", "distribute(L0)"],
            vec!["distribute(L1.0)", "distribute(L1)"],
            vec!["distribute(L0.0)", "distribute(L1.0)", "distribute(L0)", "distribute(L1)"],
        ]
    );
    // The k loop can then go outside j: i-k-j, with the contiguous j innermost.
    let split: Schedule = "distribute(L0.0); distribute(L0)".parse().unwrap();
    let inter = texts(&candidates(&p, &split, Stage::Interchange));
    assert!(inter.contains(&"interchange(L0.0.0, L0.0.d1)".to_string()), "{inter:?}");
    assert!(inter.contains(&"interchange(L0.0.d1, L0.d1)".to_string()), "{inter:?}");
    // Parts of one loop are not fused back together.
    let fuse = texts(&candidates(&p, &split, Stage::Fuse));
    assert!(fuse.iter().all(|t| !t.starts_with("fuse(L0.d0, L0.d1")), "{fuse:?}");
    // Distributed schedules are in the structures the hybrid evaluator tries.
    assert_eq!(affine_autosched::search::structure(&"distribute(L0.0); tile(L0.0.0:8)".parse().unwrap()), "distribute(L0.0)");
}

#[test]
fn long_chains_get_rotations() {
    // conv2d's second nest is 7 loops deep (n, k, h, w, c, r, s): windows of 4 or more loops
    // get the two rotations, so that w can go innermost under c, r, s.
    let m = benchmark("conv2d.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let inter = texts(&candidates(&p, &Schedule::default(), Stage::Interchange));
    let sink_w = "interchange(L1.0.0.0.0, L1.0.0.0.0.0, L1.0.0.0.0.0.0, L1.0.0.0)";
    assert!(inter.contains(&sink_w.to_string()), "{inter:?}");
    let hoist_s = "interchange(L1.0.0.0.0.0.0, L1.0.0.0, L1.0.0.0.0, L1.0.0.0.0.0)";
    assert!(inter.contains(&hoist_s.to_string()), "{inter:?}");
    // Windows of 2 and 3 loops keep every order; longer ones only the two rotations.
    let long = inter.iter().filter(|t| t.matches(", ").count() >= 3).count();
    // (the zeroing nest L0 is 4 deep: one such window; the 7-deep nest has 4 + 3 + 2 + 1)
    let windows = |depth: usize| -> usize { (4..=depth).map(|len| depth - len + 1).sum() };
    assert_eq!(long, 2 * (windows(4) + windows(7)));
    transform::check(f, &sink_w.parse().unwrap()).unwrap();
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
        r.ranked.iter().map(|s| format!("{} {}", s.schedule, s.score)).collect()
    };
    assert_eq!(text(&a), text(&b), "deterministic");
    assert!(a.ranked.windows(2).all(|w| w[0].score >= w[1].score), "best first");
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

/// Scores by a rule the test knows: tiling is worth 2x, parallelization 1.5x on top, and any
/// schedule with an unroll is dropped (as an evaluator may drop what it cannot score).
struct Rule {
    calls: usize,
}

impl affine_autosched::search::Evaluator for Rule {
    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, affine_autosched::search::SearchError> {
        self.calls += 1;
        Ok(schedules
            .iter()
            .map(|s| {
                let kinds: Vec<&str> = s.steps.iter().map(|t| t.kind()).collect();
                if kinds.contains(&"unroll") {
                    return None;
                }
                let mut score = 1.0;
                if kinds.contains(&"tile") {
                    score *= 2.0;
                }
                if kinds.contains(&"parallelize") {
                    score *= 1.5;
                }
                // Ties broken by length: shorter first.
                Some(score - 0.001 * s.steps.len() as f32)
            })
            .collect())
    }
}

#[test]
fn the_beam_keeps_the_best_and_drops_what_the_evaluator_drops() {
    let m = module("gemm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    for width in [1, 4] {
        let mut rule = Rule { calls: 0 };
        let r = affine_autosched::search::search(f, &p, &mut rule, SearchConfig { beam_width: width, max_depth: 6 }).unwrap();
        let best = &r.best().schedule;
        let kinds: Vec<&str> = best.steps.iter().map(|t| t.kind()).collect();
        assert!(kinds.contains(&"tile") && kinds.contains(&"parallelize"), "width {width}: best {best}");
        assert_eq!(best.steps.len(), 2, "width {width}: the shortest of the best: {best}");
        assert!(r.ranked.iter().all(|s| !s.schedule.to_string().contains("unroll")));
        // One call for the identity and at most one per stage.
        let stages = affine_autosched::schedule::STAGES.len();
        assert!(rule.calls <= 1 + stages, "{} calls for {stages} stages", rule.calls);
        for s in &r.ranked {
            transform::check(f, &s.schedule).unwrap_or_else(|e| panic!("{}: {e}", s.schedule));
        }
    }
}

/// Scores as a model might see mvt: swapping the second nest's loops alone costs 10% (the
/// first's, which walks A by columns then, 20%), any tiling gains 1%, and only once the
/// second nest's now-innermost parallel loop is vectorized does its swap pay (3x). Tiles
/// fill a score-ranked beam at the Tile stage.
struct PaysLater;

impl affine_autosched::search::Evaluator for PaysLater {
    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, affine_autosched::search::SearchError> {
        Ok(schedules
            .iter()
            .map(|s| {
                let kinds: Vec<&str> = s.steps.iter().map(|t| t.kind()).collect();
                let mut score = if kinds.contains(&"tile") { 1.01 } else { 1.0 };
                let text = s.to_string();
                if text.contains("interchange(L0") {
                    score *= 0.8;
                }
                if text.contains("interchange(L1") {
                    score *= if kinds.contains(&"vectorize") { 3.0 } else { 0.9 };
                }
                Some(score - 0.0001 * s.steps.len() as f32)
            })
            .collect())
    }
}

/// The beam keeps the best state of each loop structure for half its places: an interchange
/// that pays only after the Vectorize stage survives the Tile stage's hundreds of tilings
/// of the original structure (a beam ranked by score alone loses it there).
#[test]
fn the_beam_keeps_loop_structures_whose_worth_shows_later() {
    let m = benchmark("mvt.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let r = affine_autosched::search::search(f, &p, &mut PaysLater, SearchConfig { beam_width: 4, max_depth: 6 }).unwrap();
    let best = &r.best().schedule;
    let kinds: Vec<&str> = best.steps.iter().map(|t| t.kind()).collect();
    assert!(kinds.contains(&"interchange") && kinds.contains(&"vectorize"), "best {best}");
    // With one place, the beam is the best state alone: the swap is lost at the Tile stage.
    let narrow = affine_autosched::search::search(f, &p, &mut PaysLater, SearchConfig { beam_width: 1, max_depth: 6 }).unwrap();
    assert!(!narrow.best().schedule.to_string().contains("interchange"), "best {}", narrow.best().schedule);
    transform::check(f, best).unwrap_or_else(|e| panic!("{best}: {e}"));
}

#[test]
fn model_decisions_need_a_clear_predicted_gain() {
    use affine_autosched::options::Evaluator;
    use affine_autosched::search::{optimize, OptimizeConfig, MIN_PREDICTED_GAIN};
    let model = cost_model::load(None).unwrap();
    let m = module("gemm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let cfg = OptimizeConfig::new(SearchConfig { beam_width: 4, max_depth: 6 }, Evaluator::Model, 3);
    let a = optimize(f, &p, Some(&model), &cfg).unwrap();
    let b = optimize(f, &p, Some(&model), &cfg).unwrap();
    assert_eq!(a.schedule, b.schedule, "deterministic");
    match a.predicted {
        Some(x) => assert!(x > MIN_PREDICTED_GAIN && !a.schedule.is_identity()),
        None => assert!(a.schedule.is_identity() && a.kept.is_some()),
    }
    assert!(a.measured.is_none() && a.measurements == 0);
    // Nothing to search: the original is kept, with the reason.
    let none = OptimizeConfig::new(SearchConfig { beam_width: 4, max_depth: 0 }, Evaluator::Model, 3);
    let d = optimize(f, &p, Some(&model), &none).unwrap();
    assert!(d.schedule.is_identity());
    assert!(d.summary("gemm", Evaluator::Model).contains("kept the original"));
}

/// The measuring evaluators compile and run candidates (LLVM 22 tools, as the rest of
/// `measure`): every candidate measured against the original, the decision never slower
/// than the original on what was measured.
#[test]
fn execution_and_hybrid_decisions_are_measured() {
    use affine_autosched::options::Evaluator;
    use affine_autosched::search::{optimize, OptimizeConfig, MIN_MEASURED_GAIN};
    let model = cost_model::load(None).unwrap();
    let m = module("transform-fuse.mlir");
    let f = m.functions().into_iter().find(|f| f.string_attr("sym_name").as_deref() == Some("producer_consumer")).unwrap();
    let p = ir::analyze_function(f).unwrap().program;
    let before = m.operation().to_text();
    for evaluator in [Evaluator::Hybrid, Evaluator::Execution] {
        let mut cfg = OptimizeConfig::new(SearchConfig { beam_width: 2, max_depth: 2 }, evaluator, 2);
        cfg.search_measure.reps = 1;
        cfg.final_measure.reps = 3;
        let d = optimize(f, &p, Some(&model), &cfg).unwrap_or_else(|e| panic!("{evaluator:?}: {e}"));
        assert!(d.measurements > 0, "{evaluator:?} measured nothing");
        assert!(d.warnings.is_empty(), "{evaluator:?}: {:?}", d.warnings);
        if d.schedule.is_identity() {
            assert!(d.kept.is_some());
        } else {
            assert!(d.measured.unwrap() > MIN_MEASURED_GAIN, "{evaluator:?}: {}", d.summary("f", evaluator));
            transform::check(f, &d.schedule).unwrap();
        }
        if evaluator == Evaluator::Execution {
            assert!(d.measurements >= d.scored - 1, "every scored candidate was measured");
        }
    }
    assert_eq!(m.operation().to_text(), before, "measuring does not change the function");
}

#[test]
fn hybrid_measures_model_modes_choice_among_its_finalists() {
    // Model mode ranks by the pessimistic end of the model's interval, hybrid's search by its
    // point estimate: their beams part ways, and on batched-matmul hybrid's finalists all
    // fused its two nests (7-15x measured) while model mode's unfused choice ran 54x. Hybrid
    // measures model mode's choice too, so it never ends behind the model alone.
    use affine_autosched::options::{Evaluator, DEFAULT_BEAM_WIDTH, DEFAULT_MAX_DEPTH, DEFAULT_MEASURE_TOP_K};
    use affine_autosched::search::{optimize, OptimizeConfig};
    let model = cost_model::load(None).unwrap();
    let m = benchmark("batched-matmul.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let search = SearchConfig { beam_width: DEFAULT_BEAM_WIDTH as usize, max_depth: DEFAULT_MAX_DEPTH as usize };
    let by_model = optimize(f, &p, Some(&model), &OptimizeConfig::new(search, Evaluator::Model, 1)).unwrap();
    assert!(!by_model.schedule.is_identity(), "{}", by_model.summary("f", Evaluator::Model));
    let mut cfg = OptimizeConfig::new(search, Evaluator::Hybrid, DEFAULT_MEASURE_TOP_K as usize);
    cfg.final_measure.reps = 1;
    let hybrid = optimize(f, &p, Some(&model), &cfg).unwrap();
    let measured: Vec<String> = hybrid.finalists.iter().map(|(s, _)| s.to_string()).collect();
    assert!(measured.contains(&by_model.schedule.to_string()), "{} not among {measured:?}", by_model.schedule);
}

#[test]
fn contracted_functions_are_compared_within_their_rounding() {
    // With fp-contract=true, LLVM fuses a multiply into an add where it sees the pattern,
    // which differs between syrk's nest and its register-accumulating copy: their outputs
    // differ in the last bits (on a CPU with FMA) and a bit-for-bit comparison rejected a
    // legal schedule. The comparison is within the rounding there, and still exact without.
    use affine_autosched::measure::MeasureConfig;
    use affine_autosched::search::{Evaluator, ExecutionEvaluator};
    let m = module("syrk.mlir");
    let f = m.functions().into_iter().find(|f| f.string_attr("sym_name").as_deref() == Some("syrk")).unwrap();
    let schedule: Schedule = "interchange(L0.1.0, L0.1); accumulate(L0.1); unroll(L0.1:8)".parse().unwrap();
    let cfg = MeasureConfig { reps: 1, warmup: 0, threads: 2, ..Default::default() };
    assert!(!transform::rounding_may_change(f));
    let mut exact = ExecutionEvaluator::new(f, cfg.clone()).unwrap();
    assert!(exact.evaluate(std::slice::from_ref(&schedule)).unwrap()[0].is_some(), "{:?}", exact.warnings);
    assert_eq!(transform::allow_contraction(f), 4);
    assert!(transform::rounding_may_change(f));
    let mut contracted = ExecutionEvaluator::new(f, cfg).unwrap();
    let speedup = contracted.evaluate(std::slice::from_ref(&schedule)).unwrap()[0];
    assert!(speedup.is_some() && contracted.warnings.is_empty(), "{:?}", contracted.warnings);
    // Ops whose fast-math attribute is optional (extf, truncf) carry none when it is absent:
    // read as no flags (reading it crashed the fuzz smoke campaign's hybrid runs).
    let m = LoadedModule::from_source(
        "func.func @f(%a: memref<4xf32>, %b: memref<4xf64>) {\n  affine.for %i = 0 to 4 {\n    \
         %x = affine.load %a[%i] : memref<4xf32>\n    %y = arith.extf %x : f32 to f64\n    \
         %z = arith.truncf %y : f64 to f32\n    %w = arith.extf %z : f32 to f64\n    \
         affine.store %w, %b[%i] : memref<4xf64>\n  }\n  return\n}\n",
    )
    .unwrap();
    let f = m.functions()[0];
    assert!(!transform::rounding_may_change(f));
    assert_eq!(transform::allow_contraction(f), 0);
    assert!(!transform::rounding_may_change(f));
}

#[test]
fn finalists_cover_distinct_loop_structures_first() {
    use affine_autosched::search::{finalists, structure, Scored};
    let s = |text: &str, score: f32| Scored { schedule: text.parse().unwrap(), score };
    let ranked = vec![
        s("fuse(L0, L1, 2); tile(L1:16)", 3.0),
        s("fuse(L0, L1, 2); tile(L1:32)", 2.9),
        Scored { schedule: Schedule::default(), score: 2.5 },
        s("interchange(L1.0, L1); parallelize(L1.0)", 2.0),
        s("tile(L1:16)", 1.5),
        s("fuse(L0, L1, 2)", 1.2),
    ];
    assert_eq!(structure(&ranked[0].schedule), "fuse(L0, L1, 2)");
    assert_eq!(structure(&ranked[4].schedule), "");
    let pick = |k| finalists(&ranked, k).iter().map(|f| f.schedule.to_string()).collect::<Vec<_>>();
    // The best of each structure (the identity is never a finalist), then the next best.
    assert_eq!(
        pick(3),
        vec!["fuse(L0, L1, 2); tile(L1:16)", "interchange(L1.0, L1); parallelize(L1.0)", "tile(L1:16)"]
    );
    assert_eq!(pick(4)[3], "fuse(L0, L1, 2); tile(L1:32)");
    assert_eq!(pick(1), vec!["fuse(L0, L1, 2); tile(L1:16)"]);
    assert_eq!(pick(10).len(), 5);
    // One structure, all serial at the top: the best parallel schedule is measured too.
    let ranked = vec![
        s("tile(L0.0:16)", 1.2),
        s("tile(L0.0:32)", 1.19),
        s("tile(L0.0:64)", 1.18),
        s("tile(L0:128); parallelize(L0.t)", 1.1),
        Scored { schedule: Schedule::default(), score: 1.0 },
    ];
    let pick = |k| finalists(&ranked, k).iter().map(|f| f.schedule.to_string()).collect::<Vec<_>>();
    assert_eq!(pick(3), vec!["tile(L0.0:16)", "tile(L0:128); parallelize(L0.t)", "tile(L0.0:32)"]);
    assert_eq!(pick(1), vec!["tile(L0.0:16)"]);
    // ... and the other way round.
    let flipped: Vec<Scored> = ranked
        .iter()
        .map(|x| Scored { score: if x.schedule.to_string().contains("parallel") { 2.0 } else { x.score }, ..x.clone() })
        .collect();
    let mut flipped = flipped;
    flipped.sort_by(|a, b| b.score.total_cmp(&a.score));
    let picked: Vec<String> = finalists(&flipped, 2).iter().map(|f| f.schedule.to_string()).collect();
    assert_eq!(picked, vec!["tile(L0:128); parallelize(L0.t)", "tile(L0.0:16)"]);
}

#[test]
fn parallel_verdicts_from_the_state_without_its_unrolls_are_sound() {
    // The search decides a parallelize after unrolls on the state without them
    // (search::unroll_base, search::StateCheck): a loop inside an unroll-and-jammed one
    // when the jammed loops carry nothing there. It must never accept what a check of the
    // whole schedule refuses, and refuse a legal step only where the unrolled loop itself is
    // the one parallelized (a block of its iterations may hold a dependence that a plain
    // iteration did not).
    let (mut compared, mut refused, mut conservative, mut jammed) = (0, 0, 0, 0);
    for (file, prefix) in [
        ("jacobi-2d.mlir", ""),
        ("seidel-2d.mlir", ""),
        ("gemm.mlir", "accumulate(L0.1)"),
        ("gemm.mlir", "tile(L0:32, L0.1:32)"),
        ("2mm.mlir", "distribute(L0.0); distribute(L0)"),
        ("correlation.mlir", "distribute(L2.0); distribute(L2); accumulate(L3.0.0)"),
        ("trmm.mlir", ""),
    ] {
        let m = benchmark(file);
        let f = m.functions()[0];
        let p = ir::analyze_function(f).unwrap().program;
        let prefix: Schedule = prefix.parse().unwrap();
        for unroll in candidates(&p, &prefix, Stage::Unroll) {
            let mut state = prefix.clone();
            state.steps.push(unroll);
            if transform::check(f, &state).is_err() {
                continue;
            }
            let Base { schedule: base, tree, unrolled } = unroll_base(&p, &state).expect("the state ends in an unroll");
            assert_eq!(base, prefix);
            let from = transform::Prefix::new(f, &state).unwrap();
            let at_base = transform::Prefix::new(f, &base).unwrap();
            let state_check = StateCheck::new(f, &p, &from, &state);
            let mut bases = HashMap::new();
            let mut legal = Vec::new();
            for step in candidates(&p, &state, Stage::Parallelize) {
                let mut whole = state.clone();
                whole.steps.push(step.clone());
                let exact = transform::check_exact(f, &whole);
                // The pass's own application (transform::check, as apply) accepts what the
                // search accepts, and beyond it only what the exact check accepts.
                let applied = transform::check(f, &whole);
                let searched = state_check.check(std::slice::from_ref(&step), &mut bases);
                match (&applied, &searched) {
                    (Err(e), Ok(())) => panic!("{whole}: accepted by the search, refused by apply: {e}"),
                    (Ok(()), Err(e)) => assert!(exact.is_ok(), "{whole}: accepted by apply only (search: {e})"),
                    _ => {}
                }
                if exact.is_ok() {
                    legal.push(step.clone());
                }
                let Some(around) = decided_at_base(&p, &tree, &step, &unrolled) else { continue };
                jammed += !around.is_empty() as usize;
                let got = &searched;
                // The base's own verdict, where nothing jammed surrounds the loop.
                if around.is_empty() {
                    let direct = from.check_from_base(&at_base, std::slice::from_ref(&step)).expect("parallelize splits its check");
                    assert_eq!(direct.is_ok(), got.is_ok(), "{whole}");
                }
                compared += 1;
                refused += exact.is_err() as usize;
                match (got, &exact) {
                    (Ok(()), Err(e)) => panic!("{whole}: accepted from the base, refused whole: {e}"),
                    (Err(_), Ok(())) => {
                        let Transform::Parallelize(par) = &step else { unreachable!() };
                        assert!(unrolled.contains(&par.target), "{whole}: refused from the base");
                        conservative += 1;
                    }
                    _ => {}
                }
            }
            for combo in combinations(&p, &state, Stage::Parallelize, &legal) {
                if !combo.iter().all(|t| decided_at_base(&p, &tree, t, &unrolled).is_some()) {
                    continue;
                }
                let mut whole = state.clone();
                whole.steps.extend(combo.iter().cloned());
                if state_check.check(&combo, &mut bases).is_ok() {
                    transform::check_exact(f, &whole).unwrap_or_else(|e| panic!("{whole}: accepted from the base: {e}"));
                }
                compared += 1;
            }
        }
    }
    eprintln!("{compared} compared, {refused} refused whole, {conservative} refused from the base only, {jammed} inside jammed loops");
    // Refusals (time loops of the stencils, gemm's reduction loop) were among them, and
    // loops inside jammed ones.
    assert!(compared > 100 && refused > 10 && jammed > 10, "{compared} compared, {refused} refused, {jammed} jammed");
    assert!(conservative * 10 < compared, "{conservative} of {compared} refused from the base only");
    // A loop inside an unroll-and-jammed one is decided on the base given that the jammed
    // loop carries nothing there.
    let m = benchmark("gemm.mlir");
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let Base { tree, unrolled, .. } = unroll_base(&p, &"unroll(L0:2)".parse().unwrap()).unwrap();
    for (step, decided) in [("parallelize(L0)", Some(vec![])), ("parallelize(L0.0)", Some(vec!["L0"])), ("tile(L0:32)", None)] {
        let step: Schedule = step.parse().unwrap();
        let got = decided_at_base(&p, &tree, &step.steps[0], &unrolled);
        assert_eq!(got.map(|v| v.iter().map(|l| l.to_string()).collect::<Vec<_>>()), decided.map(|v| v.iter().map(|s| s.to_string()).collect()), "{step}");
    }
}

#[test]
fn checking_from_a_prefix_agrees_with_checking_the_whole_schedule() {
    // The search checks each child of a beam state from the state's transformed clone
    // (transform::Prefix), deciding some kinds' steps without applying them (tile: from the
    // band's dependences and trip counts); it must accept and refuse exactly what a check
    // from scratch does, with the same reasons (step numbers included).
    let (mut tiles, mut unrolls, mut combos, mut built, mut inters) = ((0, 0), (0, 0), 0, 0, (0, 0));
    for (file, prefix) in [
        ("jacobi-2d.mlir", "tile(L0.0:32, L0.0.0:32)"),
        ("jacobi-2d.mlir", ""),
        ("seidel-2d.mlir", ""),
        ("trmm.mlir", ""),
        ("gemm.mlir", "interchange(L0.1.0, L0.1)"),
        ("2mm.mlir", "fuse(L0, L1, 1)"),
        ("2mm.mlir", "distribute(L0.0); distribute(L0)"),
        ("conv2d.mlir", "fuse(L0, L1, 2)"),
    ] {
        let m = benchmark(file);
        let f = m.functions()[0];
        let p = ir::analyze_function(f).unwrap().program;
        let prefix: Schedule = prefix.parse().unwrap();
        let from = transform::Prefix::new(f, &prefix).unwrap();
        let mut compared = 0;
        for &stage in STAGES {
            let mut legal = Vec::new();
            for step in candidates(&p, &prefix, stage) {
                let mut whole = prefix.clone();
                whole.steps.push(step.clone());
                let kept = from.check_keeping(std::slice::from_ref(&step));
                let a = kept.as_ref().map(|_| ()).map_err(|e| e.to_string());
                let b = transform::check(f, &whole).map_err(|e| e.to_string());
                assert_eq!(a, b, "{whole}");
                compared += 1;
                // What a check built is the state the search then keeps: as extending gives.
                if let Ok(Some(kept)) = &kept {
                    assert_eq!(kept.text(), from.extend_checked(std::slice::from_ref(&step)).unwrap().text(), "{whole}");
                    built += 1;
                }
                if stage == Stage::Tile {
                    tiles.0 += 1;
                    tiles.1 += a.as_ref().is_err_and(|e| e.contains("would reverse a dependence")) as usize;
                }
                if stage == Stage::Interchange {
                    inters.0 += 1;
                    inters.1 += a.as_ref().is_err_and(|e| e.contains("would reverse a dependence")) as usize;
                }
                if stage == Stage::Unroll {
                    unrolls.0 += 1;
                    unrolls.1 += a.is_err() as usize;
                }
                if a.is_ok() {
                    legal.push(step);
                }
            }
            // Combinations are checked from the prefix extended by their first step.
            for combo in combinations(&p, &prefix, stage, &legal) {
                let mut whole = prefix.clone();
                whole.steps.extend(combo.iter().cloned());
                let kept = from.check_keeping(&combo);
                let a = kept.as_ref().map(|_| ()).map_err(|e| e.to_string());
                assert_eq!(a, transform::check(f, &whole).map_err(|e| e.to_string()), "{whole}");
                if let Ok(Some(kept)) = &kept {
                    assert_eq!(kept.text(), from.extend_checked(&combo).unwrap().text(), "{whole}");
                    built += 1;
                }
                compared += 1;
                combos += 1;
            }
        }
        assert!(compared > 20, "{file}: {compared}");
    }
    // Tilings accepted and refused for a dependence (the stencils' time loops) were compared.
    assert!(tiles.0 > 100 && tiles.1 > 5, "{tiles:?}");
    // Unrolls accepted and refused (too few iterations, a jam reversing a dependence).
    assert!(unrolls.0 > 20 && unrolls.1 > 2, "{unrolls:?}");
    assert!(combos > 20, "{combos}");
    assert!(built > 20, "{built}");
    // Interchanges decided from their band's dependences, legal and not.
    assert!(inters.0 > 50 && inters.1 > 5, "{inters:?}");
    // Sizes at and around the trip counts (seidel-2d: 30 x 1998 x 1998, not fully
    // permutable): the innermost loops a tile covers whole are not tiled in effect.
    let m = benchmark("seidel-2d.mlir");
    let f = m.functions()[0];
    let from = transform::Prefix::new(f, &Schedule::default()).unwrap();
    for (step, legal) in [
        ("tile(L0:2, L0.0:1998, L0.0.0:1998)", true),
        ("tile(L0:2, L0.0:2000, L0.0.0:4000)", true),
        ("tile(L0:2, L0.0:1998, L0.0.0:1997)", false),
        ("tile(L0:2, L0.0:1997, L0.0.0:1998)", false),
        ("tile(L0.0:8, L0.0.0:1998)", true),
        ("tile(L0.0:8, L0.0.0:8)", false),
    ] {
        let whole: Schedule = step.parse().unwrap();
        let a = from.check(&whole.steps).map_err(|e| e.to_string());
        assert_eq!(a, transform::check(f, &whole).map_err(|e| e.to_string()), "{step}");
        assert_eq!(a.is_ok(), legal, "{step}: {a:?}");
    }
}

/// A vectorization checked in a search state uses the loop's dependence verdicts learned
/// once for every width (`apply_in_check`): the same verdicts and reasons as a check from
/// scratch, width by width, also where widths differ (a distance of 8 stops 16 lanes only)
/// and where several loops carry the name (an unroll's clean-up loop).
#[test]
fn vectorize_verdicts_learned_once_per_loop_are_those_of_each_width() {
    let m = LoadedModule::from_source(
        "func.func @k(%a: memref<64x1024xf32>, %b: memref<64x1024xf32>, %c: memref<64x1024xf32>) {
           affine.for %i = 0 to 64 {
             affine.for %j = 0 to 1000 {
               %v = affine.load %a[%i, %j] : memref<64x1024xf32>
               %r = arith.mulf %v, %v : f32
               affine.store %r, %a[%i, %j + 8] : memref<64x1024xf32>
             }
             affine.for %j = 1 to 1003 {
               %v = affine.load %b[%i, %j - 1] : memref<64x1024xf32>
               %r = arith.addf %v, %v : f32
               affine.store %r, %b[%i, %j] : memref<64x1024xf32>
             }
             affine.for %j = 0 to 1000 {
               %v = affine.load %a[%i, %j] : memref<64x1024xf32>
               affine.store %v, %c[%i, %j] : memref<64x1024xf32>
             }
           }
           return
         }",
    )
    .unwrap();
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let mut verdicts = HashMap::new();
    for prefix in ["", "tile(L0.0:100)", "unroll(L0.2:3)"] {
        let prefix: Schedule = prefix.parse().unwrap();
        let from = transform::Prefix::new(f, &prefix).unwrap();
        let steps = candidates(&p, &prefix, Stage::Vectorize);
        let mut legal = Vec::new();
        for step in &steps {
            let mut whole = prefix.clone();
            whole.steps.push(step.clone());
            let a = from.check(std::slice::from_ref(step)).map_err(|e| e.to_string());
            assert_eq!(a, transform::check(f, &whole).map_err(|e| e.to_string()), "{whole}");
            if a.is_ok() {
                legal.push(step.clone());
            }
            verdicts.insert(whole.to_string(), a.is_ok());
        }
        for combo in combinations(&p, &prefix, Stage::Vectorize, &legal) {
            let mut whole = prefix.clone();
            whole.steps.extend(combo.iter().cloned());
            assert_eq!(
                from.check(&combo).map_err(|e| e.to_string()),
                transform::check(f, &whole).map_err(|e| e.to_string()),
                "{whole}"
            );
        }
    }
    // Distance 8: 4 and 8 lanes keep it, 16 do not; distance 1 stops every width; none: all.
    for (schedule, legal) in [
        ("vectorize(L0.0:4)", true),
        ("vectorize(L0.0:8)", true),
        ("vectorize(L0.0:16)", false),
        ("vectorize(L0.1:4)", false),
        ("vectorize(L0.2:16)", true),
        ("tile(L0.0:100); vectorize(L0.0:8)", true),
        ("tile(L0.0:100); vectorize(L0.0:16)", false),
    ] {
        assert_eq!(verdicts.get(schedule), Some(&legal), "{schedule}: {verdicts:?}");
    }
}

#[test]
fn accumulation_is_proposed_and_then_register_tiles_around_it() {
    let m = module("transform-interchange.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let id = Schedule::default();
    // The k loop holds the reduction C[i][j] += ..: it accumulates; i and j do not.
    let acc: Vec<String> = candidates(&p, &id, Stage::Accumulate).iter().map(|t| t.to_string()).collect();
    assert_eq!(acc, ["accumulate(L0.0.0)"]);
    // Without accumulation, no register tile is proposed; after it, i then j jammed.
    let unroll = candidates(&p, &id, Stage::Unroll);
    assert!(combinations(&p, &id, Stage::Unroll, &unroll).iter().all(|c| c.len() == 2 && c[0].to_string().starts_with("unroll(L0.0.0")));
    let accumulated: Schedule = "accumulate(L0.0.0)".parse().unwrap();
    let unroll = candidates(&p, &accumulated, Stage::Unroll);
    let tiles: Vec<Vec<String>> =
        combinations(&p, &accumulated, Stage::Unroll, &unroll).iter().map(|c| c.iter().map(|t| t.to_string()).collect()).collect();
    assert!(tiles.contains(&vec!["unroll(L0:8)".to_string(), "unroll(L0.0:16)".to_string()]), "{tiles:?}");
    // Each register tile whose factors divide gemm's trip counts (i: 64, j: 48) applies.
    let factor = |t: &str| t.trim_end_matches(')').rsplit(':').next().unwrap().parse::<u32>().unwrap();
    let dividing = tiles.iter().filter(|t| 64 % factor(&t[0]) == 0 && 48 % factor(&t[1]) == 0).collect::<Vec<_>>();
    assert!(dividing.len() >= 4, "{dividing:?}");
    for tile in dividing {
        let s: Schedule = format!("accumulate(L0.0.0); {}", tile.join("; ")).parse().unwrap();
        transform::check(f, &s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

#[test]
fn two_levels_of_tiles_are_proposed_after_a_legal_tiling() {
    // PolyBench gemm: i { j { C *= beta }; k { j { C += .. } } }: the (k, j) chain tiles.
    let m = benchmark("gemm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let id = Schedule::default();
    let legal: Vec<Transform> = candidates(&p, &id, Stage::Tile)
        .into_iter()
        .filter(|t| transform::check(f, &Schedule { steps: vec![t.clone()] }).is_ok())
        .collect();
    let combos = combinations(&p, &id, Stage::Tile, &legal);
    assert!(!combos.is_empty());
    let texts: Vec<Vec<String>> = combos.iter().map(|c| texts(c)).collect();
    // k (1200) in tiles of 16 makes 75 tile iterations: outer tiles of 5 (a divisor near 4)
    // and 8 (none near it divides 75); j (1100) in tiles of 16, 69: 3 and 8.
    assert!(texts.contains(&vec!["tile(L0.1:16, L0.1.0:16)".to_string(), "tile(L0.1.t:5, L0.1.0.t:3)".to_string()]), "{texts:?}");
    for c in &combos {
        assert_eq!(c.len(), 2);
        assert!(legal.contains(&c[0]), "the first level is a legal single tiling");
        let s = Schedule { steps: c.clone() };
        transform::check(f, &s).unwrap_or_else(|e| panic!("{s}: {e}"));
        affine_autosched::features::featurize(&p, &s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    // The shipped model (layout 2) does not see the second level: the search does not ask it.
    let model = cost_model::load(None).unwrap();
    let two = Schedule { steps: combos[0].clone() };
    assert!(two.steps.iter().any(|t| !model.knows_step(t)) == (model.layout_version() < 3));
}

#[test]
fn scores_predicted_beside_the_search_are_those_of_one_call() {
    // The model evaluator predicts parts of a stage's children on another thread while the
    // search checks the next ones (Evaluator::start); the stage's scores must be those of
    // predicting all of them in one call, and parts started for schedules the stage is not
    // then asked about are predicted again, never given to other schedules.
    use affine_autosched::search::{Evaluator, ModelEvaluator};
    let model = cost_model::load(None).unwrap();
    let m = benchmark("3mm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let id = Schedule::default();
    let children: Vec<Schedule> = candidates(&p, &id, Stage::Tile)
        .into_iter()
        .cycle()
        .take(700)
        .enumerate()
        .map(|(i, t)| {
            let mut s = id.clone();
            s.steps.push(t);
            // Distinct schedules (a parallelized variant every third one).
            if i % 3 == 0 {
                s.steps.push(Transform::Parallelize(Parallelize { target: "L0".parse().unwrap() }));
            }
            s
        })
        .collect();
    let close = |a: &[Option<f32>], b: &[Option<f32>]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-5 * x.abs().max(y.abs()),
                (None, None) => true,
                _ => false,
            })
    };
    let expected = ModelEvaluator::new(&p, &model).evaluate(&children).unwrap();
    assert!(expected.iter().all(|s| s.is_some()));
    let mut piped = ModelEvaluator::new(&p, &model);
    let mut started = 0;
    for end in [100, 300, 650, 700] {
        started += piped.start(&children[started..end]);
    }
    assert!(started >= 256 && started < 700, "{started}");
    assert!(close(&piped.evaluate(&children).unwrap(), &expected));
    // Started for the stage's schedules, asked about others (all but the first).
    let mut astray = ModelEvaluator::new(&p, &model);
    assert!(astray.start(&children[..300]) > 0);
    assert!(close(&astray.evaluate(&children[1..]).unwrap(), &expected[1..]));
}

/// Scores as the model sees gemm's i-j-k nest (benchmarks/kernels/gemm-1024.mlir): i-k-j
/// pays at once (2x), the other orders lose; tiling, or accumulating C[i][j] in the k loop,
/// alone gains nothing; a register tile (accumulate and both loops above it
/// unroll-and-jammed) pays 4x, but only whole.
struct RegisterTilePays;

impl affine_autosched::search::Evaluator for RegisterTilePays {
    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, affine_autosched::search::SearchError> {
        Ok(schedules
            .iter()
            .map(|s| {
                let kinds: Vec<&str> = s.steps.iter().map(|t| t.kind()).collect();
                let unrolls = kinds.iter().filter(|k| **k == "unroll").count();
                let text = s.to_string();
                let score = if text.starts_with("interchange(L0, L0.0.0, L0.0)") {
                    2.0
                } else if kinds.contains(&"interchange") {
                    0.5
                } else if kinds.contains(&"accumulate") && unrolls >= 2 {
                    4.0
                } else {
                    1.0
                };
                Some(score - 0.0001 * s.steps.len() as f32)
            })
            .collect())
    }
}

/// A band of three loops whose innermost reduces into an element that moves with the outer
/// two, one element per iteration of the middle one (C[i][j] over i, j, k), is also tried as
/// a register tile at the Tile stage: tiled, accumulated and jammed in one child. Each part
/// alone gains nothing, so a beam that scores the stages' steps one by one drops the tiling
/// before the stages that would show its worth.
#[test]
fn contraction_bands_are_tried_as_register_tiles_at_the_tile_stage() {
    use affine_autosched::search::candidates::lookahead;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/kernels/gemm-1024.mlir");
    let m = LoadedModule::from_file(&path).unwrap();
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let identity = Schedule::default();
    let legal = candidates(&p, &identity, Stage::Tile);
    let sequences = lookahead(&p, &identity, Stage::Tile, &legal);
    assert!(!sequences.is_empty());
    // The register tiles (rows x columns unroll factors) each packing is tried with.
    let (mut unpacked, mut packed, mut both) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for seq in &sequences {
        let factor = |target: &str| {
            seq.iter().find_map(|t| match t {
                Transform::Unroll(u) if u.target.as_str() == target => Some(u.factor),
                _ => None,
            })
        };
        let shape = (factor("L0"), factor("L0.0"));
        let s = Schedule { steps: seq.clone() };
        let kinds: Vec<&str> = seq.iter().map(|t| t.kind()).collect();
        let text = s.to_string();
        // Each register tile unpacked, with B (read alike by every row: B[k][j]) packed
        // before the rows loop, and with A and B packed and the columns loop moved outside
        // the rows loop (then jammed first); never C.
        if kinds.contains(&"interchange") {
            assert_eq!(kinds, ["tile", "interchange", "pack", "pack", "accumulate", "unroll", "unroll"], "{s}");
            assert!(
                text.contains("interchange(L0.0, L0, L0.0.0); pack(L0.0, %arg1); pack(L0.0, %arg0); accumulate(L0.0.0); unroll(L0.0:"),
                "{text}"
            );
            assert!(text.contains("unroll(L0:"), "{text}");
            both.insert(shape);
        } else if kinds.contains(&"pack") {
            assert_eq!(kinds, ["tile", "pack", "accumulate", "unroll", "unroll"], "{s}");
            assert!(text.contains("pack(L0, %arg1); accumulate(L0.0.0); unroll(L0:"), "{text}");
            packed.insert(shape);
        } else {
            assert_eq!(kinds, ["tile", "accumulate", "unroll", "unroll"], "{s}");
            assert!(text.contains("accumulate(L0.0.0); unroll(L0:"), "{text}");
            unpacked.insert(shape);
        }
        assert!(text.contains("unroll(L0.0:"), "{text}");
        transform::check(f, &s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    // Every register tile in each packing. Not as many sequences of each: the tiling sized
    // for the columns outside may be one already offered as tiled (then kept once), as on a
    // 2-core CI host where gemm's 8x16 both-packed tiling sized 32 x 512 x 64 either way.
    assert!(!unpacked.is_empty() && packed == unpacked && both == unpacked, "{sequences:?}");
    // The 6x16 tile (12 accumulators) is among them on any x86 host.
    assert!(sequences.iter().any(|seq| Schedule { steps: seq.clone() }.to_string().contains("unroll(L0:6)")), "{sequences:?}");
    // k no longer innermost (i-k-j), or the columns loop is i (C[i][j] strided along it):
    // no register tile of that band.
    for state in ["interchange(L0, L0.0.0, L0.0)", "interchange(L0.0, L0)"] {
        let state: Schedule = state.parse().unwrap();
        let legal = candidates(&p, &state, Stage::Tile);
        assert!(lookahead(&p, &state, Stage::Tile, &legal).is_empty(), "{state}");
    }
    // Only the lookahead lets the search find the register tile: no stage's step alone pays.
    // (A depth of 7 steps at least: the sequences with both inputs packed have seven.)
    let r = affine_autosched::search::search(f, &p, &mut RegisterTilePays, SearchConfig { beam_width: 4, max_depth: 7 }).unwrap();
    let best = &r.best().schedule;
    assert!(r.best().score > 3.0, "best {best} ({})", r.best().score);
    transform::check(f, best).unwrap_or_else(|e| panic!("{best}: {e}"));
    // Every sequence keeps a place to the end, and hybrid measures the best descendant of
    // each beside its finalists (the model misranks them among themselves).
    // (Beside them, the Interchange stage's register tiles of the loops as they are, untiled.)
    let roots: std::collections::HashSet<&String> = r.looked_ahead.values().collect();
    assert_eq!(roots.iter().filter(|r| r.starts_with("tile(")).count(), sequences.len(), "{roots:?}");
    assert!(roots.iter().any(|r| r.starts_with("accumulate(L0.0.0); unroll(L0:")), "{roots:?}");
    let finalists = affine_autosched::search::hybrid_finalists(&p, &r, 3);
    let measured: std::collections::HashSet<&String> =
        finalists.iter().filter_map(|s| r.looked_ahead.get(&s.schedule.to_string())).collect();
    // All of them where there are nine at most (search::LOOKAHEAD_FINALISTS; AVX2's three
    // register tiles, three packings each), else nine beside those the first three finalists
    // came from (AVX-512's four tiles: twelve sequences, ten measured on a Zen 4).
    let names = || finalists.iter().map(|s| s.schedule.to_string()).collect::<Vec<_>>();
    assert!(measured.is_subset(&roots), "{:?}", names());
    let n = measured.len();
    assert!(n >= roots.len().min(9) && n <= roots.len().min(9 + 3), "{n} of {}: {:?}", roots.len(), names());
    assert!(finalists.len() <= 3 + roots.len());
}

/// Hybrid measures its fastest finalist beside the same schedule with its parallel loops
/// chosen otherwise: every other loop the Parallelize stage proposes at that state, and
/// none, each legal, every other step unchanged.
#[test]
fn parallel_neighbours_change_only_the_parallel_loops() {
    use affine_autosched::search::candidates::lookahead;
    use affine_autosched::search::parallel_neighbours;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/kernels/gemm-1024.mlir");
    let m = LoadedModule::from_file(&path).unwrap();
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let identity = Schedule::default();
    let legal = candidates(&p, &identity, Stage::Tile);
    // The register tile with both inputs packed and the columns outside the rows (two tile
    // loops, the columns' outside).
    let seq = lookahead(&p, &identity, Stage::Tile, &legal)
        .into_iter()
        .find(|seq| seq.iter().any(|t| t.kind() == "interchange"))
        .expect("a j-i-k register tile");
    let tiled = Schedule { steps: seq.clone() };
    let singles: Vec<Transform> = candidates(&p, &tiled, Stage::Parallelize)
        .into_iter()
        .filter(|t| transform::check(f, &Schedule { steps: [seq.clone(), vec![t.clone()]].concat() }).is_ok())
        .collect();
    assert!(singles.len() >= 2, "two tile loops may run in parallel: {singles:?}");
    let with = |t: &[Transform]| Schedule { steps: [seq.clone(), t.to_vec()].concat() };
    let chosen = with(&singles[..1]);
    let before = m.operation().to_text();
    let neighbours = parallel_neighbours(f, &p, &chosen);
    let texts: Vec<String> = neighbours.iter().map(|s| s.to_string()).collect();
    assert!(!neighbours.contains(&chosen), "{texts:?}");
    for other in &singles[1..] {
        assert!(neighbours.contains(&with(std::slice::from_ref(other))), "{other} not among {texts:?}");
    }
    assert!(neighbours.contains(&tiled), "the serial schedule is a neighbour: {texts:?}");
    for n in &neighbours {
        let rest: Vec<&Transform> = n.steps.iter().filter(|t| t.kind() != "parallelize").collect();
        assert_eq!(rest, seq.iter().collect::<Vec<_>>(), "{n}");
        transform::check(f, n).unwrap_or_else(|e| panic!("{n}: {e}"));
    }
    // A vectorize after the parallel step stays after it (a plain tiling: the register
    // tile leaves its columns to LLVM's SLP vectorizer).
    let e = LoadedModule::from_source(
        "func.func @k(%a: memref<256x512xf32>, %b: memref<256x512xf32>) {
           affine.for %i = 0 to 256 {
             affine.for %j = 0 to 512 {
               %v = affine.load %a[%i, %j] : memref<256x512xf32>
               %r = arith.addf %v, %v : f32
               affine.store %r, %b[%i, %j] : memref<256x512xf32>
             }
           }
           return
         }",
    )
    .unwrap();
    let (ef, ep) = (e.functions()[0], program_of(&e, "k"));
    let legal_in = |state: &Schedule, stage: Stage| -> Vec<Schedule> {
        candidates(&ep, state, stage)
            .into_iter()
            .map(|t| Schedule { steps: [state.steps.clone(), vec![t]].concat() })
            .filter(|s| transform::check(ef, s).is_ok())
            .collect()
    };
    let vectorized = legal_in(&Schedule::default(), Stage::Tile)
        .iter()
        .flat_map(|tiled| legal_in(tiled, Stage::Parallelize))
        .find_map(|par| legal_in(&par, Stage::Vectorize).into_iter().next())
        .expect("a tiling with a parallel loop and a vector loop");
    let around = parallel_neighbours(ef, &ep, &vectorized);
    assert!(!around.is_empty(), "{vectorized}");
    for n in &around {
        assert_eq!(n.steps.last(), vectorized.steps.last(), "{n}");
        assert_ne!(n, &vectorized);
    }
    assert_eq!(m.operation().to_text(), before, "the function is not changed");
    // Two nests, one parallel loop each (PolyBench's gemm: the scaling of C, then the
    // product's register tile): each moved within its nest or dropped, the other kept.
    let g = benchmark("gemm.mlir");
    let (gf, gp) = (g.functions()[0], ir::analyze_function(g.functions()[0]).unwrap().program);
    let tile = "distribute(L0); interchange(L0.1.0, L0.1); tile(L0.d1:100, L0.1.0:224, L0.1:120); \
                interchange(L0.1.0, L0.d1, L0.1); pack(L0.1.0, %arg4); pack(L0.1.0, %arg3); accumulate(L0.1); \
                unroll(L0.1.0:16); unroll(L0.d1:4)";
    let both: Schedule = format!("{tile}; parallelize(L0.d0); parallelize(L0.d1.t)").parse().unwrap();
    transform::check(gf, &both).unwrap();
    let texts: Vec<String> = parallel_neighbours(gf, &gp, &both).iter().map(|s| s.to_string()).collect();
    let want = |par: &str| format!("{tile}{par}");
    for par in ["; parallelize(L0.d0); parallelize(L0.1.0.t)", "; parallelize(L0.d1.t)", "; parallelize(L0.d0)"] {
        assert!(texts.contains(&want(par)), "{par} not among {texts:#?}");
    }
}

/// Structures are loop nests, not step texts: two interchanges that build the same nest are
/// one structure (the beam's diversity and hybrid's finalists count it once).
#[test]
fn loop_structures_are_the_nests_the_steps_build() {
    use affine_autosched::search::loop_structure;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/kernels/gemm-1024.mlir");
    let m = LoadedModule::from_file(&path).unwrap();
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let of = |s: &str| loop_structure(&p, &s.parse().unwrap());
    assert_eq!(of("interchange(L0, L0.0.0, L0.0)"), of("interchange(L0.0.0, L0.0); tile(L0:32)"));
    assert_ne!(of("interchange(L0, L0.0.0, L0.0)"), of(""));
    assert_eq!(of(""), of("tile(L0:64, L0.0:64, L0.0.0:64); accumulate(L0.0.0); unroll(L0:4)"));
    assert_ne!(of("interchange(L0.0.0, L0, L0.0)"), of("interchange(L0, L0.0.0, L0.0)"));
}

/// A register tile's rows reuse its column vectors: pointwise-conv's (h, w, c) band, where
/// `in[c][h][w]` moves along both h and w, is made one neither by the Tile stage's lookahead
/// nor at the Unroll stage; with the output channels k as the rows (`W[k][c]` broadcast,
/// `in[c][h][w]` read alike by every k) it is.
#[test]
fn register_tile_rows_reuse_the_column_vectors() {
    use affine_autosched::search::candidates::lookahead;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/dnn/pointwise-conv.mlir");
    let m = LoadedModule::from_file(&path).unwrap();
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let identity = Schedule::default();
    let legal = candidates(&p, &identity, Stage::Tile);
    let sequences = lookahead(&p, &identity, Stage::Tile, &legal);
    assert!(sequences.iter().all(|seq| seq.iter().all(|t| t.kind() != "accumulate")), "{sequences:?}");
    let tiles = |state: &str| -> Vec<Vec<String>> {
        let state: Schedule = state.parse().unwrap();
        let unroll = candidates(&p, &state, Stage::Unroll);
        combinations(&p, &state, Stage::Unroll, &unroll).iter().filter(|c| c.len() == 2).map(|c| texts(c)).collect()
    };
    let rows_h = tiles("accumulate(L1.0.0.0)");
    assert!(rows_h.iter().all(|c| !c[0].starts_with("unroll(L1.0:")), "{rows_h:?}");
    let rows_k = tiles("interchange(L1.0, L1); accumulate(L1.0.0.0)");
    assert!(rows_k.contains(&vec!["unroll(L1:8)".to_string(), "unroll(L1.0.0:16)".to_string()]), "{rows_k:?}");
}

/// A transposed operand is copied in the order its readers want: dense's `W[o][i]`, which
/// the register tile's columns `o` read across its rows, is copied as `[i][o]` in the Tile
/// stage's lookahead (beside the copies in its own order); syrk's `A[j][k]`, read along `j`
/// by the innermost loop, whole before the nest as `[k][j]` at the Pack stage, where a root's
/// copy in the argument's own order (the whole buffer as it is) is not proposed. gemm, whose
/// operands are read along their rows, gets no reordered copy.
#[test]
fn transposed_operands_get_reordered_copies() {
    use affine_autosched::search::candidates::lookahead;
    let load = |dir: &str, file: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks").join(dir).join(file);
        let m = LoadedModule::from_file(&path).unwrap();
        ir::analyze_function(m.functions()[0]).unwrap().program
    };
    let dense = load("dnn", "dense.mlir");
    let state: Schedule = "distribute(L0.0); distribute(L0)".parse().unwrap();
    let legal = candidates(&dense, &state, Stage::Tile);
    let sequences: Vec<Vec<String>> = lookahead(&dense, &state, Stage::Tile, &legal).iter().map(|s| texts(s)).collect();
    let reordered: Vec<&Vec<String>> = sequences.iter().filter(|s| s.iter().any(|t| t.ends_with("%arg2, [1, 0])"))).collect();
    assert!(!reordered.is_empty(), "{sequences:?}");
    assert!(sequences.iter().any(|s| s.iter().any(|t| t.starts_with("pack(") && t.ends_with("%arg2)"))), "{sequences:?}");
    // The reordered copy comes before the register tile's unrolls, as the stages order them.
    for s in &reordered {
        let pack = s.iter().position(|t| t.starts_with("pack(")).unwrap();
        assert!(s[..pack].iter().all(|t| t.starts_with("tile(") || t.starts_with("interchange(")), "{s:?}");
    }

    let syrk = load("polybench", "syrk.mlir");
    let packs = texts(&candidates(&syrk, &Schedule::default(), Stage::Pack));
    assert!(packs.contains(&"pack(L0, %arg3, [1, 0])".to_string()), "{packs:?}");
    assert!(!packs.contains(&"pack(L0, %arg3)".to_string()), "{packs:?}");

    let gemm = load("polybench", "gemm.mlir");
    let packs = texts(&candidates(&gemm, &Schedule::default(), Stage::Pack));
    assert!(packs.iter().all(|t| !t.contains('[')), "{packs:?}");
}

/// Chained contractions (2mm): every product's band becomes a register tile at once, from
/// the Distribute stage (distributed alone, nothing runs faster; the Tile stage's own
/// lookahead would come after the Interchange stage dropped those states), and `max_depth`
/// bounds the steps per nest, so the search can still parallelize them afterwards.
#[test]
fn chained_contractions_get_a_register_tile_on_every_band() {
    use affine_autosched::search::candidates::lookahead;
    let m = benchmark("2mm.mlir");
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let identity = Schedule::default();
    // The sizes depend on the caches and the vector registers: those of a fixed host (the
    // Zen 4 kind: 2 cores, L2 1 MiB each, AVX-512), so that the sequences are the same on
    // every machine (on an Intel host with 2 MiB of L2 the first product's columns are 464).
    let zen4 = affine_autosched::schedule::tile_sizes::Target { budget_bytes: 512 << 10, cores: 2, vector_registers: 32, l1_bytes: 32 << 10, vector_bytes: 32 };
    let sequences = zen4.scoped(|| lookahead(&p, &identity, Stage::Distribute, &candidates(&p, &identity, Stage::Distribute)));
    // One register tile on both bands, the first that leaves room for the column vectors and
    // a broadcast (8x16 with AVX-512's 32 registers, 6x16 with AVX2's 16), unpacked, with
    // each product's row-invariant input packed, and with both inputs packed and the columns
    // outside the rows; at the register-tile model's sizes for the order of the point loops
    // (`tile_sizes::choose_register`), not in the first whole tiling as it is (100 and 200
    // columns, divisors of 900 and 1200): 100 columns of 16 would leave a clean-up copy in
    // every tile.
    let rows = 8;
    assert_eq!(sequences.len(), 3, "{sequences:?}");
    let sizes = |seq: &Vec<Transform>| -> Vec<[u32; 3]> {
        seq.iter()
            .filter_map(|t| match t {
                Transform::Tile(tile) => Some([tile.band[0].1, tile.band[1].1, tile.band[2].1]),
                _ => None,
            })
            .collect()
    };
    let columns = |seq: &Vec<Transform>| -> Vec<u32> { sizes(seq).iter().map(|s| s[1]).collect() };
    let multiples_of_register_tile = sequences.iter().filter(|seq| sizes(seq).iter().all(|s| s[0] % rows == 0 && s[1] % 16 == 0)).count();
    assert_eq!(multiples_of_register_tile, 3, "{sequences:?}");
    assert!(sequences.iter().all(|seq| columns(seq) != [100, 200]), "{sequences:?}");
    // The register model's: the block the outer point loop's slivers sweep fits its share
    // (`tile_sizes::L1_SHARE`) of the 32 KiB L1 (f32: 16 to a line): B's k x columns with the
    // rows outside, A's rows x k with the columns outside (after an interchange).
    for seq in &sequences {
        let outside = seq.iter().any(|t| t.kind() == "interchange");
        for [r, c, k] in sizes(seq) {
            let swept = if outside { r as u64 * (k as u64).div_ceil(16) } else { k as u64 * (c as u64).div_ceil(16) };
            assert!((swept * 64) as f64 <= (32 << 10) as f64 * affine_autosched::schedule::tile_sizes::L1_SHARE, "{r}x{c}x{k} sweeps {swept} lines: {seq:?}");
        }
    }
    for seq in &sequences {
        let s = Schedule { steps: seq.clone() };
        let text = s.to_string();
        let count = |kind: &str| seq.iter().filter(|t| t.kind() == kind).count();
        assert_eq!((count("distribute"), count("tile"), count("accumulate"), count("unroll")), (4, 2, 2, 4), "{text}");
        for nest in ["L0", "L1"] {
            assert!(text.contains(&format!("accumulate({nest}.0.0)")), "{text}");
            assert!(text.contains(&format!("unroll({nest}.d1:{rows})")) && text.contains(&format!("unroll({nest}.0.d1:16)")), "{text}");
            if count("interchange") > 0 {
                assert!(text.contains(&format!("interchange({nest}.0.d1, {nest}.d1, {nest}.0.0)")), "{text}");
            }
        }
        assert_eq!(s.depth(), 6 + count("pack") / 2 + count("interchange") / 2, "{text}");
        transform::check(f, &s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    // The search keeps them and parallelizes after them: 12 steps per nest leave room that
    // 12 steps in all would not.
    let model = cost_model::load(None).unwrap();
    let r = beam_search(f, &p, &model, SearchConfig { beam_width: 8, max_depth: 12 }).unwrap();
    let tiled_and_parallel = r.ranked.iter().find(|s| {
        let t = s.schedule.to_string();
        t.contains("accumulate(L0.0.0); accumulate(L1.0.0)") && t.contains("parallelize(")
    });
    assert!(tiled_and_parallel.is_some(), "no register tiles of both products made parallel");
    assert!(r.ranked.iter().all(|s| s.schedule.depth() <= 12));
}

/// A function compiled for 512-bit vectors (`prefer-vector-width=512` on AVX-512) also gets
/// the register tile that fills their registers: 2mm's bands share 12x32 (24 of 32
/// registers) beside the 8x16 that LLVM's default 256-bit vectors get alone.
#[test]
fn register_tiles_follow_the_vector_width_asked_for() {
    use affine_autosched::search::candidates::lookahead;
    let m = benchmark("2mm.mlir");
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let identity = Schedule::default();
    let zen4 = affine_autosched::schedule::tile_sizes::Target { budget_bytes: 512 << 10, cores: 2, vector_registers: 32, l1_bytes: 32 << 10, vector_bytes: 32 };
    let jams = |target: affine_autosched::schedule::tile_sizes::Target| -> Vec<String> {
        let sequences = target.scoped(|| lookahead(&p, &identity, Stage::Distribute, &candidates(&p, &identity, Stage::Distribute)));
        assert!(!sequences.is_empty());
        sequences
            .iter()
            .map(|seq| {
                let text = Schedule { steps: seq.clone() }.to_string();
                assert!(text.contains("accumulate(L0.0.0); accumulate(L1.0.0)"), "{text}");
                ["L0", "L1"].map(|n| format!("{}x{}", factor(&text, &format!("unroll({n}.d1:")), factor(&text, &format!("unroll({n}.0.d1:")))).join(" ")
            })
            .collect()
    };
    fn factor(text: &str, prefix: &str) -> u32 {
        let at = text.find(prefix).unwrap_or_else(|| panic!("no {prefix} in {text}")) + prefix.len();
        text[at..].split(')').next().unwrap().parse().unwrap()
    }
    assert!(jams(zen4).iter().all(|j| j == "8x16 8x16"), "{:?}", jams(zen4));
    let wide = jams(zen4.with_vector_width(Some(512)));
    assert!(wide.iter().all(|j| j == "12x32 12x32" || j == "8x16 8x16"), "{wide:?}");
    assert!(wide.iter().any(|j| j == "12x32 12x32") && wide.iter().any(|j| j == "8x16 8x16"), "{wide:?}");
}

/// The search sizes register tiles for the vectors the function will be compiled for: the
/// option where one is given, else the `prefer-vector-width` in the function's own
/// `passthrough` (a user's, or the pass's option applied before the search), else LLVM's
/// default; a value that is not a width is no width.
#[test]
fn the_vector_width_is_read_from_the_function_where_no_option_gives_it() {
    use affine_autosched::schedule::tile_sizes::Target;
    use affine_autosched::options::Evaluator as EvaluatorKind;
    use affine_autosched::search::OptimizeConfig;
    let m = LoadedModule::from_source(
        r#"func.func @plain(%a: memref<8xf32>) { return }
           func.func @wide(%a: memref<8xf32>) attributes {passthrough = ["noinline", ["prefer-vector-width", "512"]]} { return }
           func.func @odd(%a: memref<8xf32>) attributes {passthrough = [["prefer-vector-width", "wide"]]} { return }"#,
    )
    .unwrap();
    let [plain, wide, odd] = <[_; 3]>::try_from(m.functions()).unwrap();
    assert_eq!(transform::preferred_vector_width(plain), None);
    assert_eq!(transform::preferred_vector_width(wide), Some(512));
    assert_eq!(transform::preferred_vector_width(odd), None);
    // The pass's option replaces the function's own entry, and is read back.
    transform::prefer_vector_width(wide, 128);
    assert_eq!(transform::preferred_vector_width(wide), Some(128));
    transform::prefer_vector_width(plain, 512);
    assert_eq!(transform::preferred_vector_width(plain), Some(512));

    let mut cfg = OptimizeConfig::new(SearchConfig { beam_width: 1, max_depth: 1 }, EvaluatorKind::Model, 1);
    assert_eq!(cfg.vector_bits_for(plain), Some(512));
    assert_eq!(cfg.vector_bits_for(odd), None);
    let host = Target { budget_bytes: 1 << 20, cores: 2, vector_registers: 32, l1_bytes: 48 << 10, vector_bytes: 32 };
    assert_eq!(host.scoped(|| cfg.target_for(plain)), host.with_vector_width(Some(512)));
    assert_eq!(host.scoped(|| cfg.target_for(plain)).vector_bytes, 64);
    assert_eq!(host.scoped(|| cfg.target_for(odd)).vector_bytes, 32);
    cfg.vector_bits = Some(256);
    assert_eq!(cfg.vector_bits_for(plain), Some(256));
    assert_eq!(host.scoped(|| cfg.target_for(plain)).vector_bytes, 32);
}

#[test]
fn depth_counts_the_steps_on_the_busiest_nest() {
    let s: Schedule = "distribute(L0.0); distribute(L1.0); tile(L0.d1:8); fuse(L0, L1, 1); parallelize(L1.0)".parse().unwrap();
    // L0: distribute, tile, fuse; L1: distribute, fuse, parallelize.
    assert_eq!(s.depth(), 3);
    assert_eq!(Schedule::default().depth(), 0);
    let one = beam_search_on("2mm.mlir", 1);
    assert!(one.iter().all(|s| s.depth() <= 1));
    assert!(one.iter().any(|s| s.steps.len() == 2), "no step on each nest: {one:?}");
}

fn beam_search_on(file: &str, max_depth: usize) -> Vec<Schedule> {
    let model = cost_model::load(None).unwrap();
    let m = module(file);
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let r = beam_search(f, &p, &model, SearchConfig { beam_width: 8, max_depth }).unwrap();
    r.ranked.into_iter().map(|s| s.schedule).collect()
}

/// An unroll checked in a search state is decided in place, its loop's preconditions and
/// jam dependences learned once for every factor (`Unroll::check_in_place`), the analysis
/// run only when the asked factor needs it: the same verdicts and reasons as a check from
/// scratch, whatever order the factors are asked in, where the factors differ (a distance of
/// 4 along the jammed loop stops groups of 8 and more, not of 4), where the preconditions
/// refuse the first factor asked (6 iterations: 8 and more), and where several loops carry
/// the name (a clean-up loop).
#[test]
fn unroll_verdicts_learned_once_per_loop_are_those_of_each_factor() {
    let m = LoadedModule::from_source(
        "func.func @k(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
           affine.for %i = 4 to 64 {
             affine.for %j = 0 to 63 {
               %v = affine.load %a[%i - 4, %j + 1] : memref<64x64xf32>
               affine.store %v, %a[%i, %j] : memref<64x64xf32>
             }
           }
           affine.for %i = 0 to 6 {
             affine.for %j = 0 to 64 {
               %v = affine.load %b[%i, %j] : memref<64x64xf32>
               %w = arith.addf %v, %v : f32
               affine.store %w, %b[%i, %j] : memref<64x64xf32>
             }
           }
           return
         }",
    )
    .unwrap();
    let f = m.functions()[0];
    let mut verdicts = HashMap::new();
    let orders: [&[u32]; 4] = [&[2, 4, 8, 16, 32, 3], &[8, 2, 32, 4, 16, 3], &[16, 32, 8, 4, 2, 3], &[3, 32, 2, 16, 4, 8]];
    for prefix in ["", "unroll(L0.0:5)", "tile(L0.0:16)"] {
        let prefix: Schedule = prefix.parse().unwrap();
        for order in orders {
            let from = transform::Prefix::new(f, &prefix).unwrap();
            for target in ["L0", "L0.0", "L1", "L1.0"] {
                for &factor in order {
                    let step: Transform = format!("unroll({target}:{factor})").parse::<Schedule>().unwrap().steps.remove(0);
                    let mut whole = prefix.clone();
                    whole.steps.push(step.clone());
                    let a = from.check(std::slice::from_ref(&step)).map_err(|e| e.to_string());
                    assert_eq!(a, transform::check(f, &whole).map_err(|e| e.to_string()), "{whole} (order {order:?})");
                    verdicts.insert(whole.to_string(), a.is_ok());
                }
            }
        }
    }
    // Distance 4 along L0 with the inner distance -1: groups of 2 and 4 keep it, 8 do not.
    assert!(verdicts["unroll(L0:4)"] && !verdicts["unroll(L0:8)"], "{verdicts:?}");
    // 6 iterations: 2 and 4 (and 3) are legal, 8 and more are not.
    assert!(verdicts["unroll(L1:4)"] && verdicts["unroll(L1:3)"] && !verdicts["unroll(L1:8)"], "{verdicts:?}");
    assert!(verdicts["unroll(L1.0:32)"] && !verdicts["unroll(L1:16)"], "{verdicts:?}");
}

/// Whether checking `schedule` on `f` from scratch accepts it, as `legal` says.
fn assert_legal(f: affine_autosched::ir::mlir::Op, schedule: &str, legal: bool) {
    let s: Schedule = schedule.parse().unwrap();
    let got = transform::check(f, &s);
    assert_eq!(got.is_ok(), legal, "{schedule}: {got:?}");
}

/// Accesses whose subscripts differ by a constant are independent only where the values in
/// those subscripts are the same for both (the loops outside the one checked): the shortcut before MLIR's polyhedron must not hide a
/// dependence the checked loop itself carries at that distance.
#[test]
fn constant_offsets_decide_only_in_loops_at_the_same_iteration() {
    let m = LoadedModule::from_source(
        "func.func @k(%a: memref<64x64xf32>) {
           affine.for %i = 0 to 63 {
             affine.for %j = 0 to 64 {
               %v = affine.load %a[%i, %j] : memref<64x64xf32>
               affine.store %v, %a[%i + 1, %j] : memref<64x64xf32>
             }
           }
           affine.for %i = 0 to 64 {
             affine.for %j = 0 to 63 {
               %v = affine.load %a[%i, %j] : memref<64x64xf32>
               affine.store %v, %a[%i, %j + 1] : memref<64x64xf32>
             }
           }
           return
         }",
    )
    .unwrap();
    let f = m.functions()[0];
    for (schedule, legal) in [
        // %i carries A[i + 1] <- A[i]: a distance of 1 along it.
        ("parallelize(L0)", false),
        ("unroll(L0:2)", true),
        // With %i fixed, the rows never meet: %j carries nothing.
        ("parallelize(L0.0)", true),
        // %j carries A[i][j + 1] <- A[i][j]; with %i fixed it is the same row.
        ("parallelize(L1.0)", false),
        ("parallelize(L1)", true),
    ] {
        assert_legal(f, schedule, legal);
    }
}

/// An access pair whose subscript is the same on both sides, written in the checked loop's
/// variable and values the same for both, meets only at that loop's same iteration: the
/// shortcut says the loop carries nothing there (A[i][j] read and written in the j loop),
/// and must not where the subscript lacks the loop's variable (C[j] in the i loop) or holds
/// an inner loop's (B[i + j] in the i loop: (i, j) and (i + 1, j - 1) meet).
#[test]
fn equal_subscripts_in_the_checked_loop_meet_only_at_its_same_iteration() {
    let m = LoadedModule::from_source(
        "func.func @k(%a: memref<64x64xf32>, %b: memref<128xf32>, %c: memref<64xf32>) {
           affine.for %i = 0 to 64 {
             affine.for %j = 0 to 64 {
               %v = affine.load %a[%i, %j] : memref<64x64xf32>
               %w = arith.addf %v, %v : f32
               affine.store %w, %a[%i, %j] : memref<64x64xf32>
             }
           }
           affine.for %i = 0 to 64 {
             affine.for %j = 0 to 64 {
               %v = affine.load %b[%i + %j] : memref<128xf32>
               %w = arith.addf %v, %v : f32
               affine.store %w, %b[%i + %j] : memref<128xf32>
             }
           }
           affine.for %i = 0 to 64 {
             affine.for %j = 0 to 64 {
               %v = affine.load %c[%j] : memref<64xf32>
               %w = arith.addf %v, %v : f32
               affine.store %w, %c[%j] : memref<64xf32>
             }
           }
           affine.for %i = 0 to 32 {
             affine.for %j = 0 to 64 {
               %v = affine.load %b[2 * %i + 1] : memref<128xf32>
               %w = arith.addf %v, %v : f32
               affine.store %w, %b[2 * %i + 1] : memref<128xf32>
             }
           }
           return
         }",
    )
    .unwrap();
    let f = m.functions()[0];
    for (schedule, legal) in [
        ("parallelize(L0)", true),
        ("parallelize(L0.0)", true),
        ("unroll(L0:2)", true),
        // B[i + j]: not carried by j at a fixed i, carried by i.
        ("parallelize(L1.0)", true),
        ("parallelize(L1)", false),
        ("unroll(L1:2)", false),
        // C[j]: the same element at every i.
        ("parallelize(L2)", false),
        ("parallelize(L2.0)", true),
        // B[2i + 1]: i at its same iteration only (a coefficient other than 1); j carries it.
        ("parallelize(L3)", true),
        ("parallelize(L3.0)", false),
    ] {
        assert_legal(f, schedule, legal);
    }
}

/// Lookahead sequences (register tiles: up to 21 steps) are checked from one beam state, the
/// steps between the first and the last run once on one copy and shared by the sequences
/// that have them: each verdict, reason and built state must be what the whole schedule
/// gives from scratch, whichever sequence came first, also where a middle step fails. On a
/// function of several nests a sequence is checked on a copy of the nests it works on alone
/// (nothing built to keep): the same verdicts and reasons.
#[test]
fn long_sequences_checked_from_a_prefix_agree_with_the_whole_schedule() {
    use affine_autosched::search::candidates::lookahead;
    let (mut checked, mut refused, mut built, mut on_its_nests) = (0, 0, 0, 0);
    for (file, prefix, stage) in [
        ("benchmarks/kernels/gemm-1024.mlir", "", Stage::Tile),
        // Register tiles over partial tiles (1000x1100x1200), which the unrolls peel.
        ("benchmarks/polybench/gemm.mlir", "distribute(L0); interchange(L0.1.0, L0.1)", Stage::Tile),
        ("benchmarks/polybench/2mm.mlir", "", Stage::Distribute),
        ("benchmarks/polybench/2mm.mlir", "distribute(L0.0); distribute(L0)", Stage::Tile),
        ("benchmarks/polybench/3mm.mlir", "", Stage::Distribute),
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
        let m = LoadedModule::from_file(&path).unwrap();
        let f = m.functions()[0];
        let p = ir::analyze_function(f).unwrap().program;
        let prefix: Schedule = prefix.parse().unwrap();
        let legal = candidates(&p, &prefix, stage);
        let mut sequences = lookahead(&p, &prefix, stage, &legal);
        assert!(!sequences.is_empty(), "{file} {prefix}");
        // The same sequences with a middle step that cannot apply (an unroll of a loop the
        // jam before it consumed, by a factor its trip count refuses), and cut short.
        let extra: Vec<Vec<Transform>> = sequences
            .iter()
            .flat_map(|seq| {
                let mut bad = seq.clone();
                let at = bad.len() - 2;
                bad.insert(at, "unroll(L0:7)".parse::<Schedule>().unwrap().steps[0].clone());
                [bad, seq[..seq.len() - 1].to_vec(), seq[..3.min(seq.len())].to_vec()]
            })
            .collect();
        sequences.extend(extra);
        // In both orders, from a fresh prefix each time: a shared middle built first by one
        // sequence or by another.
        for order in [false, true] {
            let from = transform::Prefix::new(f, &prefix).unwrap();
            let mut seqs = sequences.clone();
            if order {
                seqs.reverse();
            }
            for seq in &seqs {
                let mut whole = prefix.clone();
                whole.steps.extend(seq.iter().cloned());
                let kept = from.check_keeping(seq);
                let a = kept.as_ref().map(|_| ()).map_err(|e| e.to_string());
                assert_eq!(a, transform::check(f, &whole).map_err(|e| e.to_string()), "{file}: {whole}");
                match &kept {
                    Ok(Some(kept)) => {
                        assert_eq!(kept.text(), transform::Prefix::new(f, &whole).unwrap().text(), "{file}: {whole}");
                        built += 1;
                    }
                    Ok(None) => on_its_nests += 1,
                    Err(_) => refused += 1,
                }
                checked += 1;
            }
        }
    }
    // Built: gemm-1024's register tiles, two shapes with and without packing on an AVX2 host
    // (8x32 does not fit its 16 vector registers; three shapes with AVX-512).
    assert!(
        checked > 40 && refused > 5 && built > 3 && on_its_nests > 5,
        "{checked} checked, {refused} refused, {built} built, {on_its_nests} decided on their nests"
    );
}

/// The search reuses a check's verdict for another beam state whose steps on the nests the
/// sequence works on are the same (`search::nest_history_key`: the other nests' steps do not
/// change those nests' IR). Every such verdict is the one a check of that state's whole
/// schedule from scratch gives (step numbers moved with the state's length), for the single
/// steps of every stage and the Tile stage's sequences, on states that differ in other nests.
#[test]
fn a_verdict_reused_for_a_state_with_the_same_steps_on_its_nests_is_that_state_s_own() {
    use affine_autosched::search::nest_history_key;
    let (mut shared, mut refused) = (0, 0);
    for file in ["2mm.mlir", "3mm.mlir"] {
        let m = benchmark(file);
        let f = m.functions()[0];
        let p = ir::analyze_function(f).unwrap().program;
        // The original, and states with a legal step of a stage on another nest than 0.
        let mut states = vec![Schedule::default()];
        for stage in [Stage::Distribute, Stage::Interchange, Stage::Tile, Stage::Unroll, Stage::Parallelize] {
            let on_others = candidates(&p, &Schedule::default(), stage).into_iter().filter(|t| t.loops().iter().all(|l| l.nest() != 0));
            if let Some(step) = on_others.map(|t| Schedule { steps: vec![t] }).find(|s| transform::check(f, s).is_ok()) {
                states.push(step);
            }
        }
        assert!(states.len() >= 4, "{file}: {states:?}");
        // And states that changed nest 0 itself: their verdicts are not the others'.
        for stage in [Stage::Interchange, Stage::Tile] {
            let on_0 = candidates(&p, &Schedule::default(), stage).into_iter().filter(|t| t.loops().iter().all(|l| l.nest() == 0));
            if let Some(step) = on_0.map(|t| Schedule { steps: vec![t] }).find(|s| transform::check(f, s).is_ok()) {
                states.push(step);
            }
        }
        let mut seen: HashMap<String, (String, Result<(), String>)> = HashMap::new();
        for state in states {
            let n = state.steps.len();
            let mut sequences: Vec<Vec<Transform>> = Vec::new();
            for &stage in STAGES {
                // Steps on nest 0 only: its history is the same in every state above.
                let steps: Vec<Transform> = candidates(&p, &state, stage).into_iter().filter(|t| t.loops().iter().all(|l| l.nest() == 0)).collect();
                if stage == Stage::Tile {
                    sequences.extend(combinations(&p, &state, stage, &steps[..steps.len().min(6)]));
                }
                sequences.extend(steps.into_iter().take(25).map(|t| vec![t]));
            }
            for seq in sequences {
                let mut whole = state.clone();
                whole.steps.extend(seq.iter().cloned());
                // As the search keeps them: a refusal's step counted from the state's end.
                let verdict = match transform::check(f, &whole) {
                    Ok(()) => Ok(()),
                    // Loop names and the order of stages are checked on every state, not reused.
                    Err(transform::TransformError::BadLoop { .. }) => continue,
                    Err(e) => Err(match e.verdict_step() {
                        Some(step) => e.at_step(step - n).to_string(),
                        None => e.to_string(),
                    }),
                };
                let key = nest_history_key(&state, &seq);
                match seen.get(&key) {
                    Some((first, v)) => {
                        assert_eq!(v, &verdict, "{file}: '{key}' decided for '{first}' and for '{state}'");
                        shared += 1;
                        refused += v.is_err() as usize;
                    }
                    None => {
                        seen.insert(key, (state.to_string(), verdict));
                    }
                }
            }
        }
    }
    // Verdicts of both kinds were shared between states.
    assert!(shared > 100 && refused > 5, "{shared} shared, {refused} of them refusals");
    // A state's own steps on the nest are part of the key: another tiling of nest 0 is not
    // the state without it.
    let tiled: Schedule = "tile(L0:32)".parse().unwrap();
    let steps = |t: &str| t.parse::<Schedule>().unwrap().steps;
    let step = steps("parallelize(L0.t)");
    let other: Schedule = "tile(L0:64)".parse().unwrap();
    let beside: Schedule = "tile(L0:32); unroll(L1.0:2)".parse().unwrap();
    assert_ne!(nest_history_key(&tiled, &step), nest_history_key(&other, &step));
    assert_eq!(nest_history_key(&tiled, &step), nest_history_key(&beside, &step));
    // A fusion joins the nests: after fuse(L0, L1, 1), a step on L1 ...'s key has nest 0's steps.
    let fused: Schedule = "tile(L0:32); fuse(L0, L1, 1)".parse().unwrap();
    let unroll = steps("unroll(L1.0:2)");
    assert!(nest_history_key(&fused, &unroll).starts_with("[0, 1] | tile(L0:32); fuse(L0, L1, 1)"), "{}", nest_history_key(&fused, &unroll));
}

/// Which schedules unroll or vectorize a tiled loop through a partial last tile (what model
/// mode leaves out while its model's data predates such steps).
#[test]
fn schedules_that_peel_a_partial_tile_are_recognized() {
    use affine_autosched::schedule::peels_partial_tiles;
    let peels = |file: &str, schedule: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
        let m = LoadedModule::from_file(&path).unwrap();
        let p = ir::analyze_function(m.functions()[0]).unwrap().program;
        peels_partial_tiles(&p, &schedule.parse().unwrap())
    };
    let gemm = "benchmarks/polybench/gemm.mlir";
    let head = "distribute(L0); interchange(L0.1.0, L0.1)";
    // 1000 rows in tiles of 104, 1100 columns in tiles of 224: both partial.
    assert!(peels(gemm, &format!("{head}; tile(L0.d1:104, L0.1.0:224, L0.1:120); accumulate(L0.1); unroll(L0.d1:8); unroll(L0.1.0:16)")));
    assert!(peels(gemm, &format!("{head}; tile(L0.1.0:224); vectorize(L0.1.0:8)")));
    // Tiles of 100 rows divide 1000; the partial column tiles are not unrolled.
    assert!(!peels(gemm, &format!("{head}; tile(L0.d1:100, L0.1.0:224, L0.1:120); accumulate(L0.1); unroll(L0.d1:4)")));
    assert!(!peels(gemm, "parallelize(L0)"));
    // attention-scores' register tile: 256 and 64 in tiles of 32, whole.
    let attention = "distribute(L0.0.0); distribute(L0.0); tile(L0.0.d1:32, L0.0.0.d1:32, L0.0.0.0:32); accumulate(L0.0.0.0); \
                     unroll(L0.0.d1:8); unroll(L0.0.0.d1:32); unroll(L0.0.0.d0:8); parallelize(L0); parallelize(L1)";
    assert!(!peels("benchmarks/dnn/attention-scores.mlir", attention));
}

/// Of one register tile's two tilings, hybrid measures the one in whole register tiles (a
/// partial last tile peeled) even where the model ranks the one with a clean-up copy of the
/// register tile in every tile above it; a register tile with only the latter still gets its
/// measurement, and a finalist in whole register tiles stands for its register tile.
#[test]
fn hybrid_measures_whole_register_tiles_of_each_register_tile() {
    use affine_autosched::search::{hybrid_finalists, Scored, SearchResult};
    let m = benchmark("gemm.mlir");
    let p = ir::analyze_function(m.functions()[0]).unwrap().program;
    let head = "distribute(L0); interchange(L0.1.0, L0.1)";
    let clean_up_4x32 = format!("{head}; tile(L0.d1:100, L0.1.0:220, L0.1:120); accumulate(L0.1); unroll(L0.d1:4); unroll(L0.1.0:32)");
    let whole_4x32 = format!("{head}; tile(L0.d1:100, L0.1.0:224, L0.1:120); accumulate(L0.1); unroll(L0.d1:4); unroll(L0.1.0:32)");
    let clean_up_8x16 = format!("{head}; tile(L0.d1:100, L0.1.0:220, L0.1:120); accumulate(L0.1); unroll(L0.d1:8); unroll(L0.1.0:16)");
    let whole_8x32 = format!("{head}; tile(L0.d1:104, L0.1.0:224, L0.1:120); accumulate(L0.1); unroll(L0.d1:8); unroll(L0.1.0:32)");
    let parallel_4x32 = format!("{clean_up_4x32}; parallelize(L0.d0)");
    let scored = |s: &str, score: f32| Scored { schedule: s.parse().unwrap(), score };
    let ranked = vec![
        scored(&whole_8x32, 9.0),
        scored(&parallel_4x32, 8.0),
        scored(&clean_up_8x16, 7.0),
        scored(&clean_up_4x32, 6.0),
        scored(&whole_4x32, 3.0),
        scored("tile(L0.1:16)", 2.0),
    ];
    let mut looked_ahead: HashMap<String, String> = HashMap::new();
    for s in [&clean_up_4x32, &whole_4x32, &clean_up_8x16, &whole_8x32] {
        looked_ahead.insert(s.clone(), s.clone());
    }
    looked_ahead.insert(parallel_4x32.clone(), clean_up_4x32.clone());
    let r = SearchResult { ranked, proposed: 6, scored: 6, seconds: 0.0, looked_ahead };
    let measured: Vec<String> = hybrid_finalists(&p, &r, 1).iter().map(|s| s.schedule.to_string()).collect();
    assert_eq!(measured[0], whole_8x32, "{measured:?}");
    assert!(measured.contains(&whole_4x32), "{measured:?}");
    assert!(measured.contains(&clean_up_8x16), "{measured:?}");
    assert!(!measured.contains(&clean_up_4x32) && !measured.contains(&parallel_4x32), "{measured:?}");
    assert_eq!(measured.len(), 3, "{measured:?}");
}

/// Register tiles whose rows are not the loop right above the columns (pointwise-conv's k over
/// h and w) or whose reduction is several loops deep (conv2d's c, r, s) are proposed at the
/// Interchange stage for the loops' own order, where the beam would drop that order for one
/// that vectorizes the innermost loop.
#[test]
fn register_tiles_jam_the_loops_with_reuse() {
    // The Interchange stage's sequences for the loops' own order, as text.
    let interchange_lookahead = |p: &Program| -> Vec<String> {
        affine_autosched::search::candidates::lookahead(p, &Schedule::default(), Stage::Interchange, &[])
            .iter()
            .map(|s| texts(s).join("; "))
            .collect()
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/dnn/pointwise-conv.mlir");
    let m = LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let p = program_of(&m, "kernel_pointwise_conv");
    let seqs = interchange_lookahead(&p);
    // Rows k over columns w (h between them: in[c][h][w] moves along h, W[k][c] does not
    // move along k), c accumulating.
    assert!(seqs.iter().any(|s| s.starts_with("accumulate(L1.0.0.0); unroll(L1:8); unroll(L1.0.0:")), "{seqs:#?}");
    assert!(seqs.iter().all(|s| !s.contains("unroll(L1.0:")), "{seqs:#?}");
    // conv2d: n, k, h, w over c, r, s: rows k, columns w past the reductions c and r.
    let m = benchmark("conv2d.mlir");
    let p = program_of(&m, "kernel_conv2d");
    let seqs = interchange_lookahead(&p);
    assert!(seqs.iter().any(|s| s.starts_with("accumulate(L1.0.0.0.0.0.0); unroll(L1.0:8); unroll(L1.0.0.0:")), "{seqs:#?}");
    // After it, the Unroll stage proposes no jam inside the tile (r around s), only the
    // innermost loop's unrolls.
    let tiled: Schedule = "accumulate(L1.0.0.0.0.0.0); unroll(L1.0:8); unroll(L1.0.0.0:8)".parse().unwrap();
    let unrolls = texts(&candidates(&p, &tiled, Stage::Unroll));
    assert!(unrolls.iter().all(|u| !u.starts_with("unroll(L1.0.0.0.0.0:")), "{unrolls:?}");
    assert!(unrolls.iter().any(|u| u.starts_with("unroll(L1.0.0.0.0.0.0:")), "{unrolls:?}");
}

#[test]
fn wider_vectors_are_tried_only_where_nothing_asks_for_a_width() {
    use affine_autosched::options::Evaluator;
    use affine_autosched::schedule::tile_sizes::Target;
    use affine_autosched::search::OptimizeConfig;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/polybench/gemm.mlir");
    let m = LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let f = m.functions()[0];
    let search = SearchConfig { beam_width: 4, max_depth: 6 };
    let hybrid = OptimizeConfig::new(search, Evaluator::Hybrid, 4);
    // This host's 512-bit vectors (AVX-512's 32 registers) are tried by the measuring
    // evaluators only.
    let host = Target::machine().with_vector_width(Some(512)).vector_bytes == 64;
    assert_eq!(hybrid.wider_vectors_for(f), host.then_some(512));
    assert_eq!(OptimizeConfig::new(search, Evaluator::Execution, 4).wider_vectors_for(f), host.then_some(512));
    assert_eq!(OptimizeConfig::new(search, Evaluator::Model, 4).wider_vectors_for(f), None);
    // A copy of the function compiled for a width of its own carries it; the others do not.
    let identity = Schedule::default();
    let (text, built) =
        transform::variants_module_at(f, &[(&identity, "v0".into(), None), (&identity, "v1".into(), Some(512))]);
    assert!(built.iter().all(|b| b.is_ok()));
    assert_eq!(text.matches("prefer-vector-width").count(), 1, "{text}");
    assert!(text.contains(r#"["prefer-vector-width", "512"]"#), "{text}");
    // A width the options or the function ask for, even LLVM's own 256, is the user's choice.
    let pinned = OptimizeConfig { vector_bits: Some(256), ..hybrid.clone() };
    assert_eq!(pinned.wider_vectors_for(f), None);
    transform::prefer_vector_width(f, 256);
    assert_eq!(hybrid.wider_vectors_for(f), None);
}

/// Hybrid's searches from the fusions the beam dropped: every state of a search from a prefix
/// begins with it; each completion is legal, starts with a fusion of the original nests, is
/// more than that fusion, and fuses nothing that the schedules already made fuse.
#[test]
fn fusions_the_beam_dropped_are_searched_again_from_their_fusion() {
    use affine_autosched::search::{fusion_completions, hybrid_finalists, search_from, ModelEvaluator, Scored};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benchmarks/dnn/depthwise-conv.mlir");
    let m = LoadedModule::from_file(&path).unwrap();
    let f = m.functions()[0];
    let p = ir::analyze_function(f).unwrap().program;
    let model = cost_model::load(None).unwrap();
    let cfg = SearchConfig { beam_width: 8, max_depth: 12 };
    let fusions = candidates(&p, &Schedule::default(), Stage::Fuse);
    assert!(fusions.iter().any(|t| t.to_string() == "fuse(L0, L1, 3)"), "{fusions:?}");
    let start: Schedule = "fuse(L0, L1, 3)".parse().unwrap();
    let from = search_from(f, &p, &mut ModelEvaluator::new(&p, &model), cfg, &start).unwrap();
    assert!(from.ranked.len() > 1);
    assert!(from.ranked.iter().all(|s| s.schedule.steps.first() == start.steps.first()), "a state without the prefix");
    let before = m.operation().to_text();
    let result = beam_search(f, &p, &model, cfg).unwrap();
    let finalists = hybrid_finalists(&p, &result, 4);
    let completions = fusion_completions(f, &p, &model, cfg, &result, &finalists);
    // Their searches' candidates are counted (the remark adds them to the beam's).
    assert!(!completions.best.is_empty() && completions.scored >= completions.best.len() && completions.proposed >= completions.scored, "{completions:?}");
    let found = completions.best;
    let made_fuse = |s: &Schedule, t: &Transform| s.steps.contains(t);
    for s in &found {
        let first = &s.schedule.steps[0];
        assert!(fusions.contains(first) && s.schedule.steps.len() > 1, "{}", s.schedule);
        assert!(!finalists.iter().any(|m| made_fuse(&m.schedule, first)), "{} fuses as a finalist does", s.schedule);
        transform::check(f, &s.schedule).unwrap_or_else(|e| panic!("{}: {e}", s.schedule));
    }
    assert!(found.windows(2).all(|w| w[0].score >= w[1].score), "best first");
    // A fusion that a schedule already makes is not searched from again.
    let all_fused: Vec<Scored> = fusions.iter().map(|t| Scored { schedule: Schedule { steps: vec![t.clone()] }, score: 1.0 }).collect();
    let made: Vec<&Scored> = all_fused.iter().collect();
    let none = fusion_completions(f, &p, &model, cfg, &result, &made);
    assert!(none.best.is_empty() && none.scored == 0, "{none:?}");
    assert_eq!(m.operation().to_text(), before, "the searches change no IR");
}
