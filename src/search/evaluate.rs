//! Evaluators: what scores a batch of candidate schedules during the search. The cost model
//! predicts; the execution evaluator compiles and runs every candidate next to the original.

use super::SearchError;
use std::collections::HashMap;
use crate::cost_model::{CostModel, ModelError, NestCache};
use crate::features::{Featurized, Featurizer};
use crate::ir::{mlir::Op, Program};
use crate::measure::{self, Comparison, Entry, MeasureConfig, Signature};
use crate::schedule::{Schedule, Stage, Transform};
use crate::transform;

/// Scores schedules by their speedup over the original (higher is better).
pub trait Evaluator {
    /// One score per schedule (all legal); `None` drops a schedule from the search.
    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, SearchError>;

    /// Whether the evaluator can score steps of this kind (the search skips the stage
    /// otherwise): a model does not see kinds added to the layout after it was trained.
    fn scores(&self, _stage: Stage) -> bool {
        true
    }

    /// Offered the children of the current stage that it has not taken yet (in the order the
    /// stage's [`Evaluator::evaluate`] will receive them), the evaluator may start scoring a
    /// leading part of them beside the search's own work, which is checking the next
    /// children: the model does so on another thread. Returns how many it took; `evaluate`
    /// of the whole stage collects them. By default none.
    fn start(&mut self, _schedules: &[Schedule]) -> usize {
        0
    }

    /// Whether schedules that peel a partial tile get scores (model mode with a model
    /// trained before peeling drops them): the search keeps no places for what is dropped.
    fn scores_peeling(&self) -> bool {
        true
    }

    /// Whether it scores schedules with this step (a model trained on an earlier layout does
    /// not see a copy in another order): the search proposes no other.
    fn scores_step(&self, _step: &Transform) -> bool {
        true
    }
}

/// Batches of this many candidates go through the model in one call. A call costs about a
/// thousand small graph nodes whatever its size, and a graph in the shared form summarizes
/// each distinct subtree of a batch once, so larger batches pay off: 2-core EPYC (beside a
/// measurement, so only roughly), search time with 64 / 256 / 1024: correlation 0.85 / 0.76 /
/// 0.76 s, 3mm 0.92 / 0.83 / 0.99 s, covariance 0.64 / 0.54 / 0.51 s.
const MODEL_BATCH: usize = 256;

/// Parts of a stage's children this large are predicted on another thread while the search
/// checks the next ones ([`Evaluator::start`]). Checking (MLIR's dependence analyses) and
/// predicting (ONNX Runtime) took 7.5 s and 9.2 s of the 17 s the 31 benchmark kernels'
/// searches took (2-core Xeon); a call costs about 5 ms whatever its size, so a part is not
/// much smaller than a batch. A prediction does not depend on the batch it is in: with
/// batches of 16 instead of 256 the pass chose and predicted the same on every benchmark
/// kernel.
const PIPELINE_PART: usize = 128;

type Predicted = Result<Vec<Vec<f32>>, ModelError>;

/// A part of a stage's children whose prediction was started on the predicting thread.
struct Started {
    /// The part's schedules (to check that `evaluate` is given them, in order).
    schedules: Vec<Schedule>,
    /// The index in the part of each featurized schedule, in the order predicted.
    featurized: Vec<usize>,
    result: std::sync::mpsc::Receiver<Predicted>,
}

type Job = (Vec<Featurized>, std::sync::mpsc::Sender<Predicted>);

/// The thread that predicts the parts started beside the search, one after the other (in the
/// order started: the nest cache, and so every prediction, is the same from run to run).
/// Featurizing stays on the search's thread: moved here (with a copy of the program) it
/// saved nothing on two cores (3mm's search 1.15 -> 1.16 s).
struct Predictor {
    jobs: Option<std::sync::mpsc::Sender<Job>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Predictor {
    fn spawn(model: std::sync::Arc<CostModel>, cache: std::sync::Arc<std::sync::Mutex<NestCache>>) -> Option<Predictor> {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let handle = std::thread::Builder::new()
            .name("autosched-predict".into())
            .spawn(move || {
                for (items, reply) in queue {
                    let refs: Vec<&Featurized> = items.iter().collect();
                    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = reply.send(model.predict_members_cached(&refs, &mut cache));
                }
            })
            .ok()?;
        Some(Predictor { jobs: Some(jobs), handle: Some(handle) })
    }
}

impl Drop for Predictor {
    /// Finishes what was sent (a failed search leaves no prediction running).
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The featurized schedules the model can score, with their indices in `schedules`; a
/// schedule with a step the model does not see, or that cannot be featurized, is left out
/// (unscored), except the identity, whose failure is the search's.
fn featurize(featurizer: &Featurizer, model: &CostModel, schedules: &[Schedule]) -> Result<Vec<(usize, Featurized)>, SearchError> {
    let mut featurized = Vec::new();
    for (i, s) in schedules.iter().enumerate() {
        if let Some(t) = s.steps.iter().find(|t| !model.knows_step(t)) {
            log::debug!("{s}: not scored, the model (layout version {}) does not see {} steps", model.layout_version(), t.kind());
            continue;
        }
        match featurizer.featurize(s) {
            Ok(f) => featurized.push((i, f)),
            Err(e) if s.is_identity() => return Err(SearchError::Features(e.to_string())),
            Err(e) => log::debug!("{s}: not featurized: {e}"),
        }
    }
    Ok(featurized)
}

pub struct ModelEvaluator<'a> {
    featurizer: Featurizer<'a>,
    model: &'a CostModel,
    /// Every member's (or the interval's ends') prediction of each schedule scored, by its
    /// text, when ranking by the low end: model mode weighs the ranked schedules by their
    /// intervals without predicting twice.
    pub members: HashMap<String, Vec<f32>>,
    /// Score each schedule by the low end of its interval at this confidence (0.5-0.99)
    /// instead of its point estimate: model mode decides by that end, so its beam keeps
    /// what it would choose.
    pub low_end: Option<f64>,
    /// Drop schedules that peel a partial tile (`schedule::peels_partial_tiles`): model mode
    /// with a model whose data predates such steps (`CostModel::data_space`) never saw their
    /// code measured, and its scores there rank them above schedules it knows (fdtd-2d: a
    /// peeled 128-tile predicted 2.91x ran 0.31x of the original). Dropped from the beam, not
    /// only from the choice: kept, they displaced the whole-tile register tiles it chose.
    pub skip_peeling: bool,
    program: &'a Program,
    /// The model as the process shares it, for predicting on another thread (None: every
    /// prediction is made on the search's thread).
    background: Option<std::sync::Arc<CostModel>>,
    /// That thread, once started.
    predictor: Option<Predictor>,
    /// Parts of the current stage's children being predicted there, in order.
    started: Vec<Started>,
    /// The nests summarized so far in this search (both threads predict with it, in turn).
    cache: std::sync::Arc<std::sync::Mutex<NestCache>>,
}

impl<'a> ModelEvaluator<'a> {
    pub fn new(program: &'a Program, model: &'a CostModel) -> Self {
        ModelEvaluator {
            featurizer: Featurizer::new(program),
            model,
            members: HashMap::new(),
            low_end: None,
            skip_peeling: false,
            program,
            background: model.shared(),
            predictor: None,
            started: Vec::new(),
            cache: Default::default(),
        }
    }

    /// Records the members' predictions `m` of `schedule` and returns its score.
    fn scored(&mut self, schedule: &Schedule, m: Vec<f32>) -> f32 {
        let score = self.score(&m);
        // Only model mode (ranking by the low end) reads them back.
        if self.low_end.is_some() {
            self.members.insert(schedule.to_string(), m);
        }
        score
    }

    /// A schedule's score from the model's outputs for it.
    fn score(&self, m: &[f32]) -> f32 {
        let point = crate::cost_model::geometric_mean(m);
        let Some(confidence) = self.low_end else { return point };
        let lo = m.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = m.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let i = crate::cost_model::Interval { point, lo, hi };
        match (self.model.interval_output(), self.model.interval_coverage()) {
            (true, Some(coverage)) => i.at_confidence(confidence, coverage).lo,
            _ => lo,
        }
    }
}

impl Evaluator for ModelEvaluator<'_> {
    fn scores(&self, stage: Stage) -> bool {
        self.model.knows(stage)
    }

    fn scores_peeling(&self) -> bool {
        !self.skip_peeling
    }

    fn scores_step(&self, step: &Transform) -> bool {
        self.model.knows_step(step)
    }

    fn start(&mut self, schedules: &[Schedule]) -> usize {
        let Some(model) = self.background.clone() else { return 0 };
        if self.predictor.is_none() {
            // No thread to be had: `evaluate` predicts them all on the search's.
            let Some(p) = Predictor::spawn(model, self.cache.clone()) else {
                self.background = None;
                return 0;
            };
            self.predictor = Some(p);
        }
        let mut taken = 0;
        for part in schedules.chunks_exact(PIPELINE_PART) {
            // A failure is left to `evaluate`, which reports it.
            let Ok(featurized) = featurize(&self.featurizer, self.model, part) else { break };
            let (indices, items): (Vec<usize>, Vec<Featurized>) = featurized.into_iter().unzip();
            let (reply, result) = std::sync::mpsc::channel();
            let jobs = self.predictor.as_ref().and_then(|p| p.jobs.as_ref());
            if jobs.is_none_or(|j| j.send((items, reply)).is_err()) {
                break;
            }
            self.started.push(Started { schedules: part.to_vec(), featurized: indices, result });
            taken += part.len();
        }
        taken
    }

    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, SearchError> {
        let started = std::time::Instant::now();
        let mut out = vec![None; schedules.len()];
        // The parts started on other threads, when they are this call's leading schedules.
        let mut from = 0;
        let mut waited = 0.0;
        for part in std::mem::take(&mut self.started) {
            let wait = std::time::Instant::now();
            let predicted = part.result.recv().map_err(|_| ModelError::Inference("the prediction thread panicked".into()))?;
            waited += wait.elapsed().as_secs_f64();
            let end = from + part.schedules.len();
            if from == usize::MAX || end > schedules.len() || schedules[from..end] != part.schedules[..] {
                log::warn!("predictions started for schedules the search did not ask about: predicted again");
                from = usize::MAX;
                continue;
            }
            for (k, m) in part.featurized.iter().zip(predicted?) {
                out[from + k] = Some(self.scored(&schedules[from + k], m));
            }
            from = end;
        }
        let from = if from == usize::MAX { 0 } else { from };
        let featurized = featurize(&self.featurizer, self.model, &schedules[from..])?;
        let featurized_at = std::time::Instant::now();
        // After every part started (so the cache is filled in the same order every run).
        let cache = self.cache.clone();
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        for chunk in featurized.chunks(MODEL_BATCH) {
            let refs: Vec<&Featurized> = chunk.iter().map(|(_, f)| f).collect();
            for ((i, _), m) in chunk.iter().zip(self.model.predict_members_cached(&refs, &mut cache)?) {
                out[from + i] = Some(self.scored(&schedules[from + i], m));
            }
        }
        log::debug!(
            "{} schedules ({from} predicted beside the search, {waited:.3} s waited for): {:.3} s featurizing, {:.3} s predicting",
            schedules.len(),
            (featurized_at - started).as_secs_f64() - waited,
            featurized_at.elapsed().as_secs_f64()
        );
        if self.skip_peeling {
            for (score, s) in out.iter_mut().zip(schedules) {
                if crate::schedule::peels_partial_tiles(self.program, s) {
                    *score = None;
                }
            }
        }
        Ok(out)
    }
}

/// The first operation nested in `op` that refers to another symbol (calls, globals).
fn symbol_user(op: Op) -> Option<String> {
    for block in op.blocks() {
        for inner in block.ops() {
            let name = inner.name();
            if name.ends_with(".call") || name.contains("global") || name == "func.constant" {
                return Some(name);
            }
            if let Some(found) = symbol_user(inner) {
                return Some(found);
            }
        }
    }
    None
}

/// Candidates compiled into one library (the compilers' start-up is paid once per batch).
const EXECUTION_BATCH: usize = 16;

/// The tolerance of the comparison with the original where fast-math flags let the rounding
/// change ([`Comparison::Rounding`]): a fused and an unfused multiply-add differ by at most
/// one rounding per step, so a reduction of k terms by about k epsilons of its largest
/// partial sum in the worst case; 1024 covers reductions of a thousand terms and more
/// (errors grow as their square root on typical data), while a wrong order of updates, what
/// the comparison is there to catch, is off by the size of the values.
const ROUNDING_EPSILONS: f64 = 1024.0;

/// Measures every candidate against the original, in the same driver run: the score is the
/// ratio of their median times, or of the candidate's slow mode where its runs fall in two
/// ([`measure::Measurement::judged_speedup`]: a decision must not rest on the lucky draw).
/// A candidate whose outputs differ from the original's is dropped (and reported: it would
/// be a bug in a legality check).
pub struct ExecutionEvaluator {
    func: Op,
    function: String,
    sig: Signature,
    cfg: MeasureConfig,
    /// Candidates measured so far.
    pub measured: usize,
    /// The original's median time in the last measurement.
    pub original_seconds: Option<f64>,
    pub warnings: Vec<String>,
    /// Candidates judged by their slow mode, one line each (for the decision's notes).
    pub unsteady: Vec<String>,
}

impl ExecutionEvaluator {
    /// Fails when `func` cannot be run by the driver (dynamic shapes, results, ...).
    pub fn new(func: Op, mut cfg: MeasureConfig) -> Result<Self, SearchError> {
        let sig = Signature::of(func)?;
        // The candidates are measured as copies of the function alone in a module of their
        // own: a function that refers to other symbols of its module cannot be.
        if let Some(op) = symbol_user(func) {
            return Err(SearchError::Measure(measure::MeasureError::Unsupported(format!(
                "@{} uses '{op}', which refers to another symbol of the module",
                func.string_attr("sym_name").unwrap_or_default()
            ))));
        }
        // Every legal schedule here preserves each element's order of operations, so its
        // outputs are the original's bit for bit, unless the function's fast-math flags let
        // LLVM round differently in each copy (fp-contract=true: where it fuses a multiply
        // into an add depends on the loop nest it sees).
        cfg.comparison = if transform::rounding_may_change(func) {
            Comparison::Rounding(ROUNDING_EPSILONS)
        } else {
            Comparison::Exact
        };
        let function = func.string_attr("sym_name").unwrap_or_default();
        Ok(ExecutionEvaluator { func, function, sig, cfg, measured: 0, original_seconds: None, warnings: Vec::new(), unsteady: Vec::new() })
    }

    /// Timed repetitions per variant from now on.
    pub fn set_reps(&mut self, reps: usize) {
        self.cfg.reps = reps.max(1);
    }

    /// Measures `schedule` compiled at the function's own vector width and at `bits`, both
    /// against the original, in one run: the two speedups.
    pub fn evaluate_widths(&mut self, schedule: &Schedule, bits: u32) -> Result<[Option<f32>; 2], SearchError> {
        let out = self.measure_batch_at(&[(schedule, None), (schedule, Some(bits))])?;
        Ok([out[0], out[1]])
    }

    /// Measures the original and `schedules` in one run; speedups of each schedule.
    fn measure_batch(&mut self, schedules: &[&Schedule]) -> Result<Vec<Option<f32>>, SearchError> {
        let at: Vec<(&Schedule, Option<u32>)> = schedules.iter().map(|s| (*s, None)).collect();
        self.measure_batch_at(&at)
    }

    /// [`Self::measure_batch`] with each schedule compiled for its own vector width (None: the
    /// function's own).
    fn measure_batch_at(&mut self, variants: &[(&Schedule, Option<u32>)]) -> Result<Vec<Option<f32>>, SearchError> {
        let identity = Schedule::default();
        let mut wanted: Vec<(&Schedule, String, Option<u32>)> = vec![(&identity, "v0".into(), None)];
        wanted.extend(variants.iter().enumerate().map(|(i, (s, bits))| (*s, format!("v{}", i + 1), *bits)));
        let (text, built) = transform::variants_module_at(self.func, &wanted);
        // How a candidate is named in notes and warnings: its schedule, and its width if its own.
        let label = |s: &Schedule, bits: Option<u32>| match bits {
            Some(b) => format!("{s} (prefer-vector-width={b})"),
            None => s.to_string(),
        };
        let schedules: Vec<String> = variants.iter().map(|(s, bits)| label(s, *bits)).collect();
        let mut entries = Vec::new();
        let mut present = Vec::new();
        for (k, ((s, name, bits), ok)) in wanted.iter().zip(built).enumerate() {
            match ok {
                Ok(()) => {
                    entries.push(Entry { label: label(s, *bits), library: 0, function: name.clone() });
                    if k > 0 {
                        present.push(k - 1);
                    }
                }
                Err(e) if k == 0 => return Err(SearchError::Measure(measure::MeasureError::Unsupported(e.to_string()))),
                Err(e) => log::debug!("{s}: {e}"),
            }
        }
        log::trace!("measuring module:\n{text}");
        // Measurements own the machine: functions searched on parallel threads take turns.
        let m = {
            let _turn = measure::quiet::turn();
            measure::measure_entries(&[measure::Library::Mlir(&text)], &entries, &self.sig, &self.cfg)?
        };
        self.measured += present.len();
        self.original_seconds = Some(m.timings[0].median());
        let mut out = vec![None; variants.len()];
        for (k, &i) in present.iter().enumerate() {
            let verdict = &m.verdicts[k];
            if verdict.equivalent {
                let (speedup, unsteady) = m.judged_speedup(k + 1);
                if unsteady {
                    let t = &m.timings[k + 1];
                    let note = format!(
                        "candidate '{}' ran in two modes ({:.3}-{:.3} s against the original's {:.3} s): judged by its slow one, {speedup:.2}x (its median: {:.2}x)",
                        schedules[i],
                        t.min(),
                        t.max(),
                        m.timings[0].median(),
                        m.speedup(k + 1)
                    );
                    log::info!("{note}");
                    self.unsteady.push(note);
                }
                out[i] = Some(speedup as f32);
            } else {
                let w = format!("candidate '{}' of @{} was rejected: {}", schedules[i], self.function, verdict.detail);
                log::warn!("{w}");
                self.warnings.push(w);
            }
        }
        Ok(out)
    }

    fn measure_one(&mut self, s: &Schedule) -> Option<f32> {
        match self.measure_batch(&[s]) {
            Ok(v) => v[0],
            Err(e) => {
                self.warnings.push(format!("candidate '{s}' could not be measured: {e}"));
                None
            }
        }
    }
}

impl Evaluator for ExecutionEvaluator {
    fn evaluate(&mut self, schedules: &[Schedule]) -> Result<Vec<Option<f32>>, SearchError> {
        // The original is measured with every batch; its own score is 1 by definition.
        let mut out: Vec<Option<f32>> = vec![None; schedules.len()];
        let todo: Vec<usize> = (0..schedules.len()).filter(|&i| !schedules[i].is_identity()).collect();
        for (i, s) in schedules.iter().enumerate() {
            if s.is_identity() {
                out[i] = Some(1.0);
            }
        }
        for chunk in todo.chunks(EXECUTION_BATCH) {
            let batch: Vec<&Schedule> = chunk.iter().map(|&i| &schedules[i]).collect();
            let scores = match self.measure_batch(&batch) {
                Ok(s) => s,
                // One bad candidate (e.g. a compiler failure) must not sink the batch: measure
                // them one by one.
                Err(e) if batch.len() > 1 => {
                    // If the original alone cannot be measured, nothing can.
                    self.measure_batch(&[])?;
                    log::info!("batch of {} failed ({e}); measuring one by one", batch.len());
                    batch.iter().map(|one| self.measure_one(one)).collect()
                }
                Err(e) => {
                    self.warnings.push(format!("candidate '{}' could not be measured: {e}", batch[0]));
                    vec![None]
                }
            };
            for (&i, score) in chunk.iter().zip(scores) {
                out[i] = score;
            }
        }
        Ok(out)
    }
}
