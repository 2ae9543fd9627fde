//! `fuzz`: a differential fuzzer for the pass.
//!
//! Random programs built to break loop transformations ([`gen`]) go through the pass three
//! ways: its default search (the model evaluator, as `affine-autosched` with no options),
//! the hybrid evaluator on a sample, the default search as for a function compiled for
//! 512-bit vectors on a sample (the wide register tiles, offered only there), and random
//! schedules of 1 to `max_steps` steps from the whole schedule language, built step by step. Every step the transformation layer is
//! asked about is also judged by an exact oracle ([`oracle`]) that shares nothing with
//! MLIR's dependence analysis: an accepted step the oracle finds illegal is a bug, a step
//! refused for a dependence the oracle does not find is a conservative refusal (counted by
//! kind). Every accepted schedule is compiled next to the original and run on the same
//! seeded inputs; outputs are compared bit for bit (none of the steps reassociates
//! floating-point arithmetic). Wrong outputs, crashes, timeouts and lowering failures are
//! failures; each is written to `DIR/failures/` with the program, the schedule and the
//! command that reproduces it.
//!
//! Programs run in worker processes (`autosched fuzz-worker`), so a crash of MLIR or of the
//! pass is recorded against the program that caused it and the campaign goes on. Results
//! are appended one line per program to `DIR/results.jsonl`; re-running the same command
//! resumes.

pub mod gen;
pub mod oracle;

use crate::datagen::rng::Rng;
use crate::ir;
use crate::measure::{self, Entry, Library, MeasureConfig, MeasureError};
use crate::mlir::LoadedModule;
use crate::options::{self, Evaluator};
use crate::schedule::{Accumulate, Distribute, Fuse, Interchange, LoopName, Pack, Parallelize, Schedule, Tile, Transform, Unroll, Vectorize};
use crate::search::{self, OptimizeConfig, SearchConfig};
use crate::transform::{self, Prefix, TransformError};
use gen::FuzzProgram;
use oracle::{LoopInfo, Oracle, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct FuzzConfig {
    pub seed: u64,
    pub programs: u64,
    pub out: PathBuf,
    pub jobs: usize,
    /// Run the hybrid evaluator on every k-th program (0: never).
    pub hybrid_every: u64,
    /// Run the default search with its candidates sized for 512-bit vectors and 32 vector
    /// registers (the pass's prefer-vector-width=512 on AVX-512: the 12x32 register tile
    /// is offered) on every k-th program, counted from k - 1 (0: never), whatever this host
    /// has: the schedules it makes must compute what the original does on any host. With
    /// k = [`gen::CONTRACTION_EVERY`] (the default) those are the contraction programs, the
    /// ones wide enough for that tile.
    pub wide_every: u64,
    /// Random schedules per program.
    pub random_schedules: usize,
    pub max_steps: usize,
    /// Run the default search (the model evaluator).
    pub default_search: bool,
    /// A program taking longer than this (search, compilation, runs) is killed and recorded.
    pub timeout: Duration,
    pub progress: bool,
}

impl Default for FuzzConfig {
    fn default() -> Self {
        FuzzConfig {
            seed: 1,
            programs: 100,
            out: PathBuf::from("build/fuzz"),
            jobs: crate::machine::cores(),
            hybrid_every: 10,
            wide_every: gen::CONTRACTION_EVERY,
            random_schedules: 3,
            max_steps: 6,
            default_search: true,
            timeout: Duration::from_secs(600),
            progress: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    #[error("I/O error on {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("cannot start a fuzz worker: {0}")]
    Worker(String),
    #[error("no cost model for the default search: {0}")]
    Model(String),
    #[error("no campaign in {0}: neither results.jsonl nor results.jsonl.gz (run `autosched fuzz --out {0}` first)")]
    NoCampaign(PathBuf),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> FuzzError + '_ {
    move |e| FuzzError::Io { path: path.to_path_buf(), message: e.to_string() }
}

/// Why a step was refused, as the transformation layer classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Accepted,
    /// Refused because of a dependence (the claim the oracle checks).
    RefusedDependence,
    /// Refused because the step is outside what the transformation supports (structure,
    /// preconditions of MLIR's utilities, names that do not exist).
    RefusedStructure,
    /// An MLIR utility failed, or the result did not verify.
    Failed,
}

/// One step the pass was asked about, and the oracle's verdict.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepRecord {
    /// `default`, `hybrid` or `random<k>`.
    pub mode: String,
    pub step: String,
    pub kind: String,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `legal`, `illegal` or `unknown`.
    pub oracle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle_detail: Option<String>,
}

/// One transformed version of a program, run against the original.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VariantRecord {
    pub mode: String,
    pub schedule: String,
    /// `equivalent`, `mismatch`, `crash`, `timeout`, `lowering`, `compile`, `not_applied`,
    /// `not_run` (the original itself could not run).
    pub result: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProgramRecord {
    pub index: u64,
    pub id: String,
    pub events: usize,
    pub nests: usize,
    /// Every nest is modeled by `ir` (else the search leaves the others alone and the
    /// random schedules are not run: the oracle's names would not match).
    pub modeled: bool,
    pub steps: Vec<StepRecord>,
    pub variants: Vec<VariantRecord>,
    /// What went wrong, one line each (empty: nothing).
    pub failures: Vec<String>,
    pub warnings: Vec<String>,
    /// The modes that ran on this program (`default`, `hybrid`, `random`).
    #[serde(default)]
    pub modes: Vec<String>,
    pub seconds: f64,
}

const MODES: [&str; 4] = ["default", "hybrid", "wide", "random"];

/// The transformation layer's classification of a refusal.
fn outcome_of(e: &TransformError) -> Outcome {
    match e {
        TransformError::Refused { .. } if e.claims_dependence() => Outcome::RefusedDependence,
        TransformError::Refused { .. } | TransformError::BadLoop { .. } | TransformError::Analysis(_) => {
            Outcome::RefusedStructure
        }
        TransformError::Failed { .. } | TransformError::Verify(_) => Outcome::Failed,
    }
}

/// Fuzzes one program in this process.
pub fn fuzz_one(p: &FuzzProgram, cfg: &FuzzConfig) -> ProgramRecord {
    let started = Instant::now();
    let mut rec = ProgramRecord { index: p.index, id: p.id(), nests: p.nests.len(), ..Default::default() };
    let text = p.to_mlir();
    let module = match LoadedModule::from_source(&text) {
        Ok(m) => m,
        Err(e) => {
            rec.failures.push(format!("generator: the program does not parse: {e}"));
            return rec;
        }
    };
    let func = module.functions()[0];
    let program = match ir::analyze_function(func) {
        Ok(a) => a.program,
        Err(e) => {
            rec.failures.push(format!("analysis failed: {e}"));
            return rec;
        }
    };
    rec.modeled = program.not_modeled.is_empty() && program.nests.len() == p.nests.len();
    let base = Oracle::new(p);
    rec.events = base.events();
    let mut variants: Vec<(String, Schedule)> = Vec::new();

    let searches: Vec<(&str, Evaluator)> = [
        (cfg.default_search, "default", Evaluator::Model),
        (cfg.hybrid_every > 0 && p.index % cfg.hybrid_every == 0, "hybrid", Evaluator::Hybrid),
        (cfg.wide_every > 0 && (p.index + 1) % cfg.wide_every == 0, "wide", Evaluator::Model),
    ]
    .into_iter()
    .filter(|(on, ..)| *on)
    .map(|(_, m, e)| (m, e))
    .collect();
    for (mode, evaluator) in searches {
        rec.modes.push(mode.to_string());
        let model = match crate::cost_model::load(None) {
            Ok(m) => m,
            Err(e) => {
                rec.failures.push(format!("{mode}: no cost model: {e}"));
                continue;
            }
        };
        // The programs are far smaller than the model's, which the pass keeps as they are
        // (`min_work`): searched anyway, or the search's schedules would go unchecked.
        let ocfg = OptimizeConfig {
            below_min_work: true,
            ..OptimizeConfig::new(
                SearchConfig { beam_width: options::DEFAULT_BEAM_WIDTH as usize, max_depth: options::DEFAULT_MAX_DEPTH as usize },
                evaluator,
                options::DEFAULT_MEASURE_TOP_K as usize,
            )
        };
        let searched = if mode == "wide" {
            // 512-bit vectors in AVX-512's 32 registers, set directly: `with_vector_width` would
            // keep a host without AVX-512 at 256 bits, and the wide tiles are to be checked anywhere.
            let wide = crate::schedule::tile_sizes::Target { vector_registers: 32, vector_bytes: 64, ..crate::schedule::tile_sizes::Target::current() };
            wide.scoped(|| search::optimize(func, &program, Some(&model), &ocfg))
        } else {
            search::optimize(func, &program, Some(&model), &ocfg)
        };
        let decision = match searched {
            Ok(d) => d,
            Err(e) => {
                rec.warnings.push(format!("{mode}: the search failed (the pass leaves the function unchanged): {e}"));
                continue;
            }
        };
        for w in &decision.warnings {
            // A measured candidate whose outputs differed: a schedule the layer accepted
            // computed something else.
            if w.contains("was rejected") {
                rec.failures.push(format!("{mode}: miscompiled candidate: {w}"));
            } else {
                rec.warnings.push(format!("{mode}: {w}"));
            }
        }
        // What is checked: the schedule chosen; where model mode keeps the original (no
        // schedule predicted faster with enough confidence, as on most of these small
        // programs), its best-ranked one instead (`<mode>-top`: what the pass would apply to
        // a larger program of the same shape). And, from model mode's ranking, the largest
        // register tile (`<mode>-jam`: accumulate and unroll-and-jam, the most unrolled
        // copies, the best-ranked of those) and the best packing (`<mode>-pack`) where those
        // are others: the search's richest schedules, which rank below the simple ones on
        // small programs and would otherwise go unchecked.
        let mut checked: Vec<(String, Schedule)> = Vec::new();
        match (decision.schedule.is_identity(), evaluator) {
            (false, _) => checked.push((mode.to_string(), decision.schedule.clone())),
            (true, Evaluator::Model) => {
                if let Some(top) = decision.ranked.iter().find(|r| !r.schedule.is_identity()) {
                    checked.push((format!("{mode}-top"), top.schedule.clone()));
                }
            }
            (true, _) => {}
        }
        if evaluator == Evaluator::Model {
            let copies = |s: &Schedule| -> u64 {
                let accumulates = s.steps.iter().any(|t| matches!(t, Transform::Accumulate(_)));
                let unrolled: u64 = s.steps.iter().map(|t| if let Transform::Unroll(u) = t { u.factor as u64 } else { 1 }).product();
                if accumulates { unrolled } else { 1 }
            };
            // `max_by_key` keeps the last of equals: reversed, the best-ranked.
            let jam = decision.ranked.iter().rev().filter(|r| copies(&r.schedule) > 1).max_by_key(|r| copies(&r.schedule));
            let pack = decision.ranked.iter().find(|r| r.schedule.steps.iter().any(|t| matches!(t, Transform::Pack(_))));
            for (kind, r) in [("jam", jam), ("pack", pack)] {
                if let Some(r) = r.filter(|r| !checked.iter().any(|(_, c)| c == &r.schedule)) {
                    checked.push((format!("{mode}-{kind}"), r.schedule.clone()));
                }
            }
        }
        for (mode, s) in checked {
            if rec.modeled {
                let mut o = base.clone();
                for step in &s.steps {
                    let (verdict, after) = o.judge(step);
                    record_step(&mut rec, &mode, step, Outcome::Accepted, None, &verdict);
                    match after {
                        Some(a) if verdict == Verdict::Legal => o.commit(a),
                        _ => break,
                    }
                }
            }
            variants.push((mode, s));
        }
    }

    if rec.modeled && cfg.random_schedules > 0 {
        rec.modes.push("random".into());
        let mut rng = Rng::for_item(p.seed ^ 0x7a2d_0f55, p.index);
        for r in 0..cfg.random_schedules {
            let mode = format!("random{r}");
            let s = random_schedule(func, &base, &mut rng, cfg.max_steps, &mode, &mut rec);
            if !s.is_identity() {
                variants.push((mode, s));
            }
        }
    }

    // A Transform-dialect script of each schedule (steps applied one by one in place, as
    // transform.autosched.step does) must make what the pass makes.
    for (mode, s) in &variants {
        match (crate::transform::applied_text(func, s), crate::transform::replayed_text(func, s)) {
            (Ok(a), Ok(r)) if a == r => {}
            (Ok(_), Ok(_)) => rec.failures.push(format!("{mode}: transform-dialect replay differs from the pass ({s})")),
            (Ok(_), Err(e)) => rec.failures.push(format!("{mode}: transform-dialect replay refused what the pass applied ({s}): {e}")),
            (Err(_), _) => {}
        }
    }

    if !variants.is_empty() {
        rec.variants = execute(func, p, &variants);
        for v in &rec.variants {
            if !matches!(v.result.as_str(), "equivalent" | "not_run") {
                rec.failures.push(format!("{}: {} ({}): {}", v.mode, v.result, v.schedule, v.detail.as_deref().unwrap_or("")));
            } else if v.result == "not_run" {
                rec.warnings.push(format!("{}: the original could not run: {}", v.mode, v.detail.as_deref().unwrap_or("")));
            }
        }
    }
    rec.seconds = started.elapsed().as_secs_f64();
    rec
}

fn record_step(rec: &mut ProgramRecord, mode: &str, step: &Transform, outcome: Outcome, reason: Option<String>, verdict: &Verdict) {
    let detail = match verdict {
        Verdict::Legal => None,
        Verdict::Illegal(d) | Verdict::Unknown(d) => Some(d.clone()),
    };
    if outcome == Outcome::Accepted {
        if let Verdict::Illegal(d) = verdict {
            rec.failures.push(format!("{mode}: illegal step accepted: {step}: {d}"));
        }
    }
    rec.steps.push(StepRecord {
        mode: mode.to_string(),
        step: step.to_string(),
        kind: step.kind().to_string(),
        outcome,
        reason,
        oracle: verdict.label().to_string(),
        oracle_detail: detail,
    });
}

/// Builds a random schedule one step at a time: a step is proposed on the oracle's current
/// loop tree, the transformation layer is asked whether it applies after the steps accepted
/// so far, the oracle judges it, and accepted steps are kept.
fn random_schedule(func: ir::mlir::Op, base: &Oracle, rng: &mut Rng, max_steps: usize, mode: &str, rec: &mut ProgramRecord) -> Schedule {
    let want = rng.range(1, max_steps.max(1));
    let mut accepted = Schedule::default();
    let mut o = base.clone();
    let Ok(mut prefix) = Prefix::new(func, &accepted) else { return accepted };
    let mut loops = o.loops();
    for _ in 0..want * 4 {
        if accepted.steps.len() >= want {
            break;
        }
        let Some(step) = propose(&loops, o.buffers, rng) else { break };
        log::debug!("{}: {mode}: {accepted} + {step}?", rec.id);
        let result = prefix.check(std::slice::from_ref(&step));
        let (verdict, after) = o.judge(&step);
        match result {
            Ok(()) => {
                record_step(rec, mode, &step, Outcome::Accepted, None, &verdict);
                accepted.steps.push(step);
                // After an illegal step every later verdict would repeat it: stop (what
                // was accepted so far is still run).
                if matches!(verdict, Verdict::Illegal(_)) {
                    break;
                }
                match (after, Prefix::new(func, &accepted)) {
                    (Some(a), Ok(p)) => {
                        o.commit(a);
                        loops = o.loops();
                        prefix = p;
                    }
                    // The oracle cannot follow (or the prefix no longer builds): stop here.
                    _ => break,
                }
            }
            Err(e) => {
                let reason = match &e {
                    TransformError::Refused { why, .. } => why.to_string(),
                    TransformError::Failed { reason, .. } | TransformError::BadLoop { reason, .. } => reason.clone(),
                    other => other.to_string(),
                };
                record_step(rec, mode, &step, outcome_of(&e), Some(reason), &verdict);
            }
        }
    }
    accepted
}

fn name(s: &str) -> LoopName {
    s.parse().expect("the oracle's loop names are valid")
}

/// A random step over the loops of the current tree (now and then one naming a loop that
/// does not exist, or a band that is not one, to exercise the refusals).
fn propose(loops: &[LoopInfo], buffers: usize, rng: &mut Rng) -> Option<Transform> {
    if loops.is_empty() {
        return None;
    }
    // Loops already parallel take no further steps but for the odd one (a refusal to test).
    let open: Vec<&LoopInfo> = loops.iter().filter(|l| !l.parallel).collect();
    for _ in 0..20 {
        let l = if open.is_empty() || rng.chance(0.03) { rng.pick(loops) } else { *rng.pick(&open) };
        let step = match rng.below(15) {
            0 => {
                let cands: Vec<&LoopInfo> = loops.iter().filter(|l| l.children > 1).collect();
                (!cands.is_empty()).then(|| Transform::Distribute(Distribute { target: name(&rng.pick(&cands).name) }))
            }
            1 => {
                let mut tops: Vec<&LoopInfo> = loops.iter().filter(|l| l.top).collect();
                tops.sort_by(|a, b| a.name.cmp(&b.name));
                (tops.len() >= 2).then(|| {
                    let k = rng.below(tops.len() - 1);
                    let depth = rng.range(1, tops[k].chain.len().max(1) + 1);
                    Transform::Fuse(Fuse { first: name(&tops[k].name), second: name(&tops[k + 1].name), depth })
                })
            }
            2 | 3 => (l.chain.len() >= 2).then(|| {
                let n = rng.range(2, l.chain.len().min(3));
                let start = rng.below(l.chain.len() - n + 1);
                let mut order: Vec<LoopName> = l.chain[start..start + n].iter().map(|s| name(s)).collect();
                let original = order.clone();
                while order == original {
                    rng.shuffle(&mut order);
                }
                Transform::Interchange(Interchange { order })
            }),
            4 | 5 => {
                let n = rng.range(1, l.chain.len().min(3));
                let start = rng.below(l.chain.len() - n + 1);
                let band = l.chain[start..start + n]
                    .iter()
                    .map(|s| {
                        let trips = loops.iter().find(|x| &x.name == s).map_or(8, |x| x.max_trips).max(1) as u32;
                        let size = if rng.chance(0.2) { trips + rng.below(3) as u32 } else { *rng.pick(&[2, 2, 3, 4, 4, 5, 8, 16]) };
                        (name(s), size.max(1))
                    })
                    .collect();
                Some(Transform::Tile(Tile { band }))
            }
            6 | 7 => {
                // Mostly factors the loop can take (fewer iterations than the factor is
                // refused, which a few proposals still test).
                // Now and then the rows of the 6x16 and 12x32 register tiles (jams by a
                // factor that is no power of two, with their clean-up copies).
                let menu: &[u32] = if rng.chance(0.15) { &[6, 12] } else { &[2, 3, 4, 8] };
                let fits: Vec<u32> = menu.iter().copied().filter(|&f| (f as i64) <= l.max_trips).collect();
                let factor = if fits.is_empty() || rng.chance(0.1) { *rng.pick(&[2, 4, 8]) } else { *rng.pick(&fits) };
                Some(Transform::Unroll(Unroll { target: name(&l.name), factor }))
            }
            8 | 9 => Some(Transform::Parallelize(Parallelize { target: name(&l.name) })),
            10 | 11 => {
                let inner: Vec<&LoopInfo> = loops.iter().filter(|l| l.innermost).collect();
                (!inner.is_empty()).then(|| {
                    let l = rng.pick(&inner);
                    // Mostly widths that divide the trip count (the vectorizer needs it).
                    let fits: Vec<u32> = [2, 4, 8].into_iter().filter(|&w| l.max_trips % w as i64 == 0).collect();
                    let width = if fits.is_empty() || rng.chance(0.2) { *rng.pick(&[2, 4, 8]) } else { *rng.pick(&fits) };
                    Transform::Vectorize(Vectorize { target: name(&l.name), width })
                })
            }
            12 => Some(Transform::Accumulate(Accumulate { target: name(&l.name) })),
            13 => {
                let argument = rng.below(buffers.max(1) + 1);
                // Now and then transposed (refused where the buffer is not a matrix).
                let order = if rng.chance(0.3) { vec![1, 0] } else { Vec::new() };
                Some(Transform::Pack(Pack { target: name(&l.name), argument, order }))
            }
            _ => {
                // A loop that does not exist, or an unroll of a tile loop that may not.
                if rng.chance(0.5) {
                    Some(Transform::Parallelize(Parallelize { target: name("L9.9") }))
                } else {
                    Some(Transform::Unroll(Unroll { target: name(&format!("{}.t", l.name)), factor: 2 }))
                }
            }
        };
        // Only steps a user could write (the parser checks sizes and factors).
        if let Some(step) = step.filter(|s| s.to_string().parse::<Schedule>().is_ok()) {
            return Some(step);
        }
    }
    None
}

fn measure_config(p: &FuzzProgram) -> MeasureConfig {
    MeasureConfig {
        warmup: 0,
        reps: 1,
        timeout: Duration::from_secs(30),
        compile_timeout: Duration::from_secs(120),
        threads: 2,
        seed: p.seed.wrapping_mul(1_000_003).wrapping_add(p.index) | 1,
        ..Default::default()
    }
}

fn classify(e: &MeasureError) -> &'static str {
    match e {
        MeasureError::Tool { stage, .. } if stage.starts_with("lowering") => "lowering",
        MeasureError::Tool { stage, .. } if stage.starts_with("translation") => "lowering",
        MeasureError::Tool { .. } => "compile",
        MeasureError::Crashed { .. } => "crash",
        MeasureError::Timeout(_) => "timeout",
        _ => "error",
    }
}

/// Compiles the original and every variant into one library, runs them on the same
/// inputs and compares every buffer with the original's; when the batch fails as a whole,
/// each variant is run alone to find the culprit.
fn execute(func: ir::mlir::Op, p: &FuzzProgram, variants: &[(String, Schedule)]) -> Vec<VariantRecord> {
    let cfg = measure_config(p);
    let sig = match measure::Signature::of(func) {
        Ok(s) => s,
        Err(e) => {
            return variants
                .iter()
                .map(|(m, s)| VariantRecord { mode: m.clone(), schedule: s.to_string(), result: "not_run".into(), detail: Some(e.to_string()) })
                .collect()
        }
    };
    let run = |chosen: &[usize]| -> (Vec<Option<String>>, Result<measure::Measurement, MeasureError>) {
        let identity = Schedule::default();
        let mut wanted: Vec<(&Schedule, String)> = vec![(&identity, "v0".into())];
        wanted.extend(chosen.iter().map(|&i| (&variants[i].1, format!("v{}", i + 1))));
        let (text, built) = transform::variants_module(func, &wanted);
        let mut entries = vec![Entry { label: "original".into(), library: 0, function: "v0".into() }];
        let mut not_applied = Vec::new();
        for (k, ok) in built.iter().enumerate().skip(1) {
            match ok {
                Ok(()) => {
                    entries.push(Entry { label: wanted[k].1.clone(), library: 0, function: wanted[k].1.clone() });
                    not_applied.push(None);
                }
                Err(e) => not_applied.push(Some(e.to_string())),
            }
        }
        (not_applied, measure::measure_entries(&[Library::Mlir(&text)], &entries, &sig, &cfg))
    };
    let record = |i: usize, result: &str, detail: Option<String>| VariantRecord {
        mode: variants[i].0.clone(),
        schedule: variants[i].1.to_string(),
        result: result.into(),
        detail,
    };
    let all: Vec<usize> = (0..variants.len()).collect();
    let (not_applied, m) = run(&all);
    match m {
        Ok(m) => {
            let mut out = Vec::new();
            let mut k = 0;
            for (i, na) in not_applied.into_iter().enumerate() {
                match na {
                    Some(why) => out.push(record(i, "not_applied", Some(why))),
                    None => {
                        let v = &m.verdicts[k];
                        k += 1;
                        out.push(record(i, if v.equivalent { "equivalent" } else { "mismatch" }, Some(v.detail.clone())));
                    }
                }
            }
            out
        }
        Err(e) => {
            // Can the original run alone?
            if let (_, Err(e0)) = run(&[]) {
                return (0..variants.len()).map(|i| record(i, "not_run", Some(e0.to_string()))).collect();
            }
            if variants.len() == 1 {
                return vec![match not_applied[0].clone() {
                    Some(why) => record(0, "not_applied", Some(why)),
                    None => record(0, classify(&e), Some(e.to_string())),
                }];
            }
            (0..variants.len())
                .map(|i| {
                    let (na, m) = run(&[i]);
                    match (na[0].clone(), m) {
                        (Some(why), _) => record(i, "not_applied", Some(why)),
                        (None, Ok(m)) => {
                            let v = &m.verdicts[0];
                            record(i, if v.equivalent { "equivalent" } else { "mismatch" }, Some(v.detail.clone()))
                        }
                        (None, Err(e)) => record(i, classify(&e), Some(e.to_string())),
                    }
                })
                .collect()
        }
    }
}

/// Writes `DIR/failures/<id>/`: the program, what failed and how to reproduce it.
fn write_failure(out: &Path, p: &FuzzProgram, rec: &ProgramRecord) -> Result<(), FuzzError> {
    let dir = out.join("failures").join(&rec.id);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let program = dir.join("program.mlir");
    std::fs::write(&program, p.to_mlir()).map_err(io(&program))?;
    let mut sh = String::from("#!/usr/bin/env bash\n# Reproduces the failures of this program (run from the repository root).\n");
    sh.push_str(&format!("# {}\nD=$(dirname \"$0\")\n", rec.failures.join("\n# ").replace('\n', " ")));
    sh.push_str(&format!(
        "# the pass with default options:\nmlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \\\n  --pass-pipeline='builtin.module(func.func(affine-autosched))' \"$D/program.mlir\" -o /dev/null\n"
    ));
    let mut seen = HashSet::new();
    for s in rec.variants.iter().map(|v| &v.schedule).chain(rec.steps.iter().filter(|s| s.outcome == Outcome::Accepted && s.oracle == "illegal").map(|s| &s.step)) {
        if seen.insert(s.clone()) {
            sh.push_str(&format!("build/cargo/release/autosched run \"$D/program.mlir\" --reps 1 --warmup 0 --schedule '{s}'\n"));
        }
    }
    let script = dir.join("reproduce.sh");
    std::fs::write(&script, sh).map_err(io(&script))?;
    let record = dir.join("record.json");
    std::fs::write(&record, serde_json::to_string_pretty(rec).unwrap_or_default()).map_err(io(&record))?;
    Ok(())
}

/// The worker: fuzzes `indices`, printing `START i` before and `DONE <json>` after each.
pub fn worker(cfg: &FuzzConfig, indices: &[u64]) -> Result<(), FuzzError> {
    let stdout = std::io::stdout();
    for &i in indices {
        {
            let mut out = stdout.lock();
            let _ = writeln!(out, "START {i}");
            let _ = out.flush();
        }
        let p = FuzzProgram::generate(cfg.seed, i);
        let rec = fuzz_one(&p, cfg);
        if !rec.failures.is_empty() {
            write_failure(&cfg.out, &p, &rec)?;
        }
        let mut out = stdout.lock();
        let _ = writeln!(out, "DONE {}", serde_json::to_string(&rec).unwrap_or_default());
        let _ = out.flush();
    }
    Ok(())
}

pub fn results_path(out: &Path) -> PathBuf {
    out.join("results.jsonl")
}

/// The compressed snapshot of a campaign's results (`autosched fuzz --snapshot`), which is
/// what a repository keeps: a fresh clone resumes from it.
pub fn snapshot_path(out: &Path) -> PathBuf {
    out.join("results.jsonl.gz")
}

/// Every program record of a campaign: the snapshot, then `DIR/results.jsonl` (a torn last
/// line is skipped; a program in both counts once).
pub fn read_results(out: &Path) -> Result<Vec<ProgramRecord>, FuzzError> {
    let mut recs = Vec::new();
    let mut seen = HashSet::new();
    for path in [snapshot_path(out), results_path(out)] {
        if !path.exists() {
            continue;
        }
        let f = std::fs::File::open(&path).map_err(io(&path))?;
        let reader: Box<dyn std::io::Read> =
            if path.extension().is_some_and(|e| e == "gz") { Box::new(flate2::read::GzDecoder::new(f)) } else { Box::new(f) };
        for line in std::io::BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if let Ok(r) = serde_json::from_str::<ProgramRecord>(&line) {
                if seen.insert(r.index) {
                    recs.push(r);
                }
            }
        }
    }
    Ok(recs)
}

/// Writes every record read so far to the snapshot (sorted by program), atomically.
pub fn write_snapshot(out: &Path) -> Result<usize, FuzzError> {
    if !results_path(out).exists() && !snapshot_path(out).exists() {
        return Err(FuzzError::NoCampaign(out.to_path_buf()));
    }
    let mut recs = read_results(out)?;
    recs.sort_by_key(|r| r.index);
    let path = snapshot_path(out);
    let tmp = out.join("results.jsonl.gz.tmp");
    let f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::best());
    for r in &recs {
        writeln!(gz, "{}", serde_json::to_string(r).unwrap_or_default()).map_err(io(&tmp))?;
    }
    gz.finish().map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    Ok(recs.len())
}

struct Running {
    child: std::process::Child,
    /// The program in flight and since when.
    current: Option<(u64, Instant)>,
    /// Indices handed to this worker and not yet done.
    pending: Vec<u64>,
    log: PathBuf,
}

enum Msg {
    Line(usize, String),
    Eof(usize),
}

/// Runs (or resumes) a campaign: programs `0..cfg.programs` of stream `cfg.seed`, in
/// `cfg.jobs` worker processes.
pub fn run(cfg: &FuzzConfig) -> Result<Summary, FuzzError> {
    std::fs::create_dir_all(&cfg.out).map_err(io(&cfg.out))?;
    let done: HashSet<u64> = read_results(&cfg.out)?.iter().map(|r| r.index).collect();
    let mut todo: std::collections::VecDeque<u64> = (0..cfg.programs).filter(|i| !done.contains(i)).collect();
    let results = results_path(&cfg.out);
    let mut sink = std::fs::OpenOptions::new().create(true).append(true).open(&results).map_err(io(&results))?;
    let bar = if cfg.progress {
        let b = indicatif::ProgressBar::new(todo.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} programs ({eta} left) {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let exe = std::env::current_exe().map_err(|e| FuzzError::Worker(e.to_string()))?;
    let (tx, rx) = std::sync::mpsc::channel::<Msg>();
    let mut workers: Vec<Option<Running>> = Vec::new();
    let logs = cfg.out.join("logs");
    std::fs::create_dir_all(&logs).map_err(io(&logs))?;
    let chunk = 10usize;
    let mut failures = 0usize;
    let spawn = |slot: usize, indices: Vec<u64>, tx: std::sync::mpsc::Sender<Msg>| -> Result<Running, FuzzError> {
        let log = logs.join(format!("worker-{slot}.log"));
        let err = std::fs::OpenOptions::new().create(true).append(true).open(&log).map_err(io(&log))?;
        let list: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("fuzz-worker")
            .arg("--seed")
            .arg(cfg.seed.to_string())
            .arg("--out")
            .arg(&cfg.out)
            .arg("--indices")
            .arg(list.join(","))
            .arg("--hybrid-every")
            .arg(cfg.hybrid_every.to_string())
            .arg("--wide-every")
            .arg(cfg.wide_every.to_string())
            .arg("--random-schedules")
            .arg(cfg.random_schedules.to_string())
            .arg("--max-steps")
            .arg(cfg.max_steps.to_string());
        if !cfg.default_search {
            cmd.arg("--no-default");
        }
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::from(err))
            .spawn()
            .map_err(|e| FuzzError::Worker(format!("{}: {e}", exe.display())))?;
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(Msg::Line(slot, line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Msg::Eof(slot));
        });
        Ok(Running { child, current: None, pending: indices, log })
    };
    for slot in 0..cfg.jobs.max(1) {
        let take: Vec<u64> = (0..chunk).filter_map(|_| todo.pop_front()).collect();
        workers.push(if take.is_empty() { None } else { Some(spawn(slot, take, tx.clone())?) });
    }
    while workers.iter().any(Option::is_some) {
        let msg = match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(m) => Some(m),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
            Err(_) => break,
        };
        // A program past its time is killed; its worker's end is then handled as a crash.
        for w in workers.iter_mut().flatten() {
            if let Some((i, since)) = w.current {
                if since.elapsed() > cfg.timeout {
                    log::warn!("program {i} ran past {:?}; killing its worker", cfg.timeout);
                    let _ = w.child.kill();
                }
            }
        }
        match msg {
            Some(Msg::Line(slot, line)) => {
                let Some(w) = workers[slot].as_mut() else { continue };
                if let Some(i) = line.strip_prefix("START ") {
                    w.current = i.trim().parse().ok().map(|i| (i, Instant::now()));
                } else if let Some(json) = line.strip_prefix("DONE ") {
                    if let Ok(rec) = serde_json::from_str::<ProgramRecord>(json) {
                        w.pending.retain(|&i| i != rec.index);
                        w.current = None;
                        if !rec.failures.is_empty() {
                            failures += 1;
                            bar.println(format!("{}: {}", rec.id, rec.failures.join("; ")));
                        }
                        writeln!(sink, "{json}").map_err(io(&results))?;
                        bar.inc(1);
                        bar.set_message(format!("{failures} failing"));
                    }
                }
            }
            Some(Msg::Eof(slot)) => {
                let Some(mut w) = workers[slot].take() else { continue };
                let status = w.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                if let Some((i, since)) = w.current.take() {
                    // The worker died with a program in flight: a crash (or a kill after the
                    // time limit) of the pass, MLIR or the fuzzer on that program.
                    let tail = std::fs::read_to_string(&w.log).unwrap_or_default();
                    let tail: Vec<&str> = tail.lines().rev().take(15).collect();
                    let timed_out = since.elapsed() > cfg.timeout;
                    let p = FuzzProgram::generate(cfg.seed, i);
                    let rec = ProgramRecord {
                        index: i,
                        id: p.id(),
                        nests: p.nests.len(),
                        failures: vec![format!(
                            "{} of the fuzz worker ({status}) on this program: {}",
                            if timed_out { "timeout" } else { "crash" },
                            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                        )],
                        seconds: since.elapsed().as_secs_f64(),
                        ..Default::default()
                    };
                    write_failure(&cfg.out, &p, &rec)?;
                    failures += 1;
                    bar.println(format!("{}: {}", rec.id, rec.failures[0]));
                    writeln!(sink, "{}", serde_json::to_string(&rec).unwrap_or_default()).map_err(io(&results))?;
                    bar.inc(1);
                    w.pending.retain(|&x| x != i);
                }
                // What the worker did not get to goes back to the queue.
                for &i in w.pending.iter().rev() {
                    todo.push_front(i);
                }
                let take: Vec<u64> = (0..chunk).filter_map(|_| todo.pop_front()).collect();
                if !take.is_empty() {
                    workers[slot] = Some(spawn(slot, take, tx.clone())?);
                }
            }
            None => {}
        }
    }
    bar.finish_and_clear();
    Ok(summarize(&read_results(&cfg.out)?))
}

/// Counts over a campaign's records (the report's figures).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    pub programs: usize,
    pub modeled: usize,
    pub events_median: usize,
    pub seconds: f64,
    /// Per mode: programs it ran on, and how many it changed.
    pub mode_runs: BTreeMap<String, (usize, usize)>,
    /// Per step kind, per outcome, per oracle verdict: count.
    pub steps: BTreeMap<String, BTreeMap<String, usize>>,
    /// Variant results per mode: result -> count.
    pub variants: BTreeMap<String, BTreeMap<String, usize>>,
    pub programs_failing: usize,
    pub failures_by_kind: BTreeMap<String, usize>,
    pub illegal_accepted: usize,
    /// Refusals that claimed a dependence the oracle does not find, by kind and reason.
    pub conservative: BTreeMap<String, (usize, String)>,
    /// Structural refusals of steps the oracle finds legal, by kind and reason.
    pub structural: BTreeMap<String, (usize, String)>,
    pub failing_ids: Vec<String>,
}

/// A refusal reason with loop names, numbers and step indices taken out, for grouping.
fn reason_shape(reason: &str) -> String {
    let mut out = String::new();
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        if c == 'L' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_alphanumeric() || *d == '.') {
                chars.next();
            }
            out.push_str("<loop>");
        } else if c.is_ascii_digit() {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out.chars().take(160).collect()
}

pub fn summarize(recs: &[ProgramRecord]) -> Summary {
    let mut s = Summary { programs: recs.len(), ..Default::default() };
    let mut events: Vec<usize> = Vec::new();
    for r in recs {
        s.modeled += r.modeled as usize;
        events.push(r.events);
        s.seconds += r.seconds;
        if !r.failures.is_empty() {
            s.programs_failing += 1;
            s.failing_ids.push(r.id.clone());
        }
        for f in &r.failures {
            let kind = if f.contains("illegal step accepted") {
                "illegal step accepted"
            } else if f.contains(": mismatch (") || f.contains("miscompiled candidate") {
                "miscompile"
            } else if f.contains(": lowering (") {
                "lowering failure"
            } else if f.contains(": compile (") {
                "compile failure"
            } else if f.contains(": crash (") || f.starts_with("crash") {
                "crash"
            } else if f.contains("timeout") {
                "timeout"
            } else {
                "other"
            };
            *s.failures_by_kind.entry(kind.into()).or_default() += 1;
        }
        let mut ran: HashSet<String> = HashSet::new();
        for st in &r.steps {
            let mode = MODES.iter().find(|m| st.mode.starts_with(**m)).copied().unwrap_or("other");
            ran.insert(mode.to_string());
            let outcome = serde_json::to_value(st.outcome).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
            *s.steps.entry(st.kind.clone()).or_default().entry(format!("{outcome}/{}", st.oracle)).or_default() += 1;
            if st.outcome == Outcome::Accepted && st.oracle == "illegal" {
                s.illegal_accepted += 1;
            }
            if st.oracle == "legal" && st.outcome != Outcome::Accepted {
                let key = format!("{}: {}", st.kind, reason_shape(st.reason.as_deref().unwrap_or("")));
                let map = if st.outcome == Outcome::RefusedDependence { &mut s.conservative } else { &mut s.structural };
                let e = map.entry(key).or_insert((0, format!("{} ({})", st.step, r.id)));
                e.0 += 1;
            }
        }
        for v in &r.variants {
            let mode = MODES.iter().find(|m| v.mode.starts_with(**m)).copied().unwrap_or("other");
            *s.variants.entry(mode.into()).or_default().entry(v.result.clone()).or_default() += 1;
        }
        for mode in MODES {
            let changed = r.variants.iter().any(|v| v.mode.starts_with(mode));
            if r.modes.iter().any(|m| m == mode) || ran.contains(mode) {
                let e = s.mode_runs.entry(mode.into()).or_default();
                e.0 += 1;
                e.1 += changed as usize;
            }
        }
    }
    events.sort_unstable();
    s.events_median = events.get(events.len() / 2).copied().unwrap_or(0);
    s
}

impl Summary {
    /// Nothing that counts as a bug.
    pub fn clean(&self) -> bool {
        self.programs_failing == 0 && self.illegal_accepted == 0
    }

    pub fn markdown(&self, title: &str, command: &str) -> String {
        let mut m = format!("# {title}\n\nCommand: `{command}`\n\n");
        m.push_str(&format!(
            "- programs: {} ({} fully modeled; median {} memory accesses per run)\n- CPU time in the workers: {:.0} s ({:.2} s per program)\n- programs with a failure: {}\n- illegal steps accepted (oracle): {}\n\n",
            self.programs,
            self.modeled,
            self.events_median,
            self.seconds,
            self.seconds / self.programs.max(1) as f64,
            self.programs_failing,
            self.illegal_accepted
        ));
        m.push_str("## Runs per mode\n\n| mode | programs | changed by it | variants run: result |\n| --- | ---: | ---: | --- |\n");
        for (mode, (ran, changed)) in &self.mode_runs {
            let results = self
                .variants
                .get(mode)
                .map(|r| r.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            m.push_str(&format!("| {mode} | {ran} | {changed} | {results} |\n"));
        }
        m.push_str("\n## Steps judged by the oracle\n\nOutcome (the pass) / verdict (the oracle). `accepted/illegal` is a bug and must be 0; `refused_dependence/legal` is a conservative refusal.\n\n");
        let cols = [
            "accepted/legal",
            "accepted/illegal",
            "accepted/unknown",
            "refused_dependence/legal",
            "refused_dependence/illegal",
            "refused_dependence/unknown",
            "refused_structure/legal",
            "refused_structure/illegal",
            "refused_structure/unknown",
            "failed/legal",
            "failed/illegal",
            "failed/unknown",
        ];
        m.push_str(&format!("| kind | {} |\n|---|{}\n", cols.join(" | "), "---:|".repeat(cols.len())));
        for (kind, counts) in &self.steps {
            let row: Vec<String> = cols.iter().map(|c| counts.get(*c).copied().unwrap_or(0).to_string()).collect();
            m.push_str(&format!("| {kind} | {} |\n", row.join(" | ")));
        }
        m.push_str("\n## Failures by kind\n\n");
        if self.failures_by_kind.is_empty() {
            m.push_str("None.\n");
        }
        for (k, n) in &self.failures_by_kind {
            m.push_str(&format!("- {k}: {n}\n"));
        }
        if !self.failing_ids.is_empty() {
            m.push_str(&format!("\nFailing programs (first 30): {}\n", self.failing_ids.iter().take(30).cloned().collect::<Vec<_>>().join(", ")));
        }
        m.push_str("\n## Conservative refusals (a dependence claimed that the oracle does not find)\n\n| count | kind: reason | example |\n| ---: | --- | --- |\n");
        let mut cons: Vec<_> = self.conservative.iter().collect();
        cons.sort_by(|a, b| b.1 .0.cmp(&a.1 .0));
        for (k, (n, ex)) in cons {
            m.push_str(&format!("| {n} | {} | `{}` |\n", k.replace('|', "\\|"), ex.replace('|', "\\|")));
        }
        m.push_str("\n## Structural refusals of steps the oracle finds legal (top 25)\n\n| count | kind: reason | example |\n| ---: | --- | --- |\n");
        let mut st: Vec<_> = self.structural.iter().collect();
        st.sort_by(|a, b| b.1 .0.cmp(&a.1 .0));
        for (k, (n, ex)) in st.into_iter().take(25) {
            m.push_str(&format!("| {n} | {} | `{}` |\n", k.replace('|', "\\|"), ex.replace('|', "\\|")));
        }
        m
    }
}
