//! `search`: beam search over schedules (the seeds' search, thesis §4.2): stages in a fixed
//! order, each expanding every beam state with its legal candidates, all children of a
//! stage scored by one call of an [`Evaluator`] (which may have started on parts of them
//! while the rest were checked, [`Evaluator::start`]), `beam_width` kept (the best of each
//! loop structure for up to half of them, then the best; a state may also skip a stage), at
//! most `max_depth` steps on any one nest. A stage adds one step to a state, or
//! the same kind of step to every nest at once ([`candidates::combinations`]). Deterministic for a deterministic
//! evaluator: candidates come in a fixed order and ties break on the schedule's text.
//!
//! [`optimize`] turns a search into a decision for one function with one of the three
//! evaluators of the pass (model, execution, hybrid); it never picks a schedule that was
//! measured slower than the original.

pub mod candidates;
pub mod evaluate;

use crate::cost_model::{CostModel, Interval, ModelError};
use crate::ir::{mlir::Op, Program};
use crate::measure::MeasureError;
use crate::options::Evaluator as EvaluatorKind;
use crate::schedule::tree::Scheduled;
use crate::schedule::{Schedule, Stage, Transform};
use crate::transform;
pub use crate::transform::base::{decided_at_base, unroll_base, Base};
use candidates::{candidates, combinations, lookahead, STAGES};
pub use evaluate::{Evaluator, ExecutionEvaluator, ModelEvaluator};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    pub beam_width: usize,
    pub max_depth: usize,
}

/// A scored schedule: its speedup over the original as the evaluator sees it (predicted by
/// the model, or measured).
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub schedule: Schedule,
    pub score: f32,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Every legal schedule scored, best first (the identity among them).
    pub ranked: Vec<Scored>,
    /// Candidates proposed, and those the legality checks accepted (and the evaluator scored).
    pub proposed: usize,
    pub scored: usize,
    pub seconds: f64,
    /// The schedules that lookahead sequences made and their descendants, each with the
    /// schedule its sequence made (texts): outside what the model's data covers, so hybrid
    /// measures the best of each rather than trusting their ranks.
    pub looked_ahead: HashMap<String, String>,
}

impl SearchResult {
    pub fn best(&self) -> &Scored {
        &self.ranked[0]
    }
    /// The identity's score (1.0 for a measuring evaluator; the model's own estimate otherwise).
    pub fn identity(&self) -> f32 {
        self.ranked.iter().find(|s| s.schedule.is_identity()).map(|s| s.score).unwrap_or(1.0)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the cost model failed: {0}")]
    Model(#[from] ModelError),
    #[error("the identity cannot be featurized: {0}")]
    Features(String),
    #[error("cannot measure: {0}")]
    Measure(#[from] MeasureError),
    #[error("the model and hybrid evaluators need a cost model")]
    NoModel,
    #[error("the evaluator gave no score to the original program")]
    NoBaseline,
}

/// Steps in a schedule, at most, whatever `max_depth` allows per nest (the longest schedule
/// the `schedule=` option and the records take).
pub const MAX_STEPS: usize = crate::options::MAX_SCHEDULE_LENGTH as usize;

/// Whether `schedule` with `more` steps stays within `max_depth` steps on every nest
/// ([`Schedule::depth`]) and [`MAX_STEPS`] in all.
pub fn fits(schedule: &Schedule, more: &[Transform], cfg: SearchConfig) -> bool {
    schedule.steps.len() + more.len() <= MAX_STEPS && schedule.depth_with(more) <= cfg.max_depth
}

fn order(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then_with(|| a.schedule.to_string().cmp(&b.schedule.to_string()))
}

/// The part of `schedule` that decides the IR of the nests `steps` work on: those nests
/// (the original nests their loops come from, with every nest a fusion joined to them) and
/// the steps of `schedule` that name a loop of them, in order. Steps on other nests leave
/// those nests' IR as it is.
pub fn nest_history_key(schedule: &Schedule, steps: &[Transform]) -> String {
    let nests_of = |t: &Transform| t.loops().iter().map(|l| l.nest()).collect::<Vec<usize>>();
    let mut group: Vec<usize> = steps.iter().flat_map(nests_of).collect();
    // Fusions join nests: grow the group until no step links it to another nest.
    loop {
        let before = group.len();
        for t in &schedule.steps {
            let nests = nests_of(t);
            if nests.iter().any(|n| group.contains(n)) {
                for n in nests {
                    if !group.contains(&n) {
                        group.push(n);
                    }
                }
            }
        }
        if group.len() == before {
            break;
        }
    }
    group.sort_unstable();
    group.dedup();
    let text = |ts: &mut dyn Iterator<Item = &Transform>| ts.map(|t| t.to_string()).collect::<Vec<_>>().join("; ");
    let history = text(&mut schedule.steps.iter().filter(|t| t.loops().iter().any(|l| group.contains(&l.nest()))));
    format!("{group:?} | {history} | {}", text(&mut steps.iter()))
}

/// The verdicts of the sequences checked in one search, by [`nest_history_key`]: a state
/// whose steps on the nests a sequence works on are those of a state checked before gets
/// that state's verdict, since those nests' IR is the same and a check reads nothing else.
/// Half of 3mm's checks are such repeats (the beam's states differ in other nests). Not
/// kept: sequences with a fusion (its check reads the nests between the two it fuses) and
/// errors that are not a step's verdict (loop names, numbered by the whole schedule, are
/// checked on every state; verification and analysis failures).
#[derive(Default)]
struct Verdicts {
    known: HashMap<String, Result<(), (usize, transform::TransformError)>>,
    reused: usize,
}

impl Verdicts {
    /// The verdict of `schedule` followed by `steps`: a known one, else `run`'s (and kept).
    /// A known verdict builds nothing (the state is extended from its parent if it enters
    /// the beam).
    fn check(
        &mut self,
        program: &Program,
        schedule: &Schedule,
        steps: &[Transform],
        run: impl FnOnce() -> Result<Option<transform::Prefix>, transform::TransformError>,
    ) -> Result<Option<transform::Prefix>, transform::TransformError> {
        if steps.is_empty() || steps.iter().any(|t| t.stage() == Stage::Fuse) {
            return run();
        }
        let key = nest_history_key(schedule, steps);
        let n = schedule.steps.len();
        if let Some(known) = self.known.get(&key) {
            let mut whole = schedule.clone();
            whole.steps.extend(steps.iter().cloned());
            transform::check_names(program, &whole)?;
            self.reused += 1;
            return match known {
                Ok(()) => Ok(None),
                Err((offset, e)) => Err(e.clone().at_step(n + offset)),
            };
        }
        let verdict = run();
        match &verdict {
            Ok(_) => {
                self.known.insert(key, Ok(()));
            }
            Err(e) => {
                if let Some(step) = e.verdict_step() {
                    self.known.insert(key, Err((step - n, e.clone())));
                }
            }
        }
        verdict
    }
}

/// Searches schedules for `func` (whose representation is `program`), scoring with
/// `evaluator`. `func` is not changed.
pub fn search(
    func: Op,
    program: &Program,
    evaluator: &mut dyn Evaluator,
    cfg: SearchConfig,
) -> Result<SearchResult, SearchError> {
    search_from(func, program, evaluator, cfg, &Schedule::default())
}

/// [`search`] from `start` (a legal schedule) instead of the original: every state of the beam
/// begins with its steps, and the stages before its last step's pass it as it is.
pub fn search_from(
    func: Op,
    program: &Program,
    evaluator: &mut dyn Evaluator,
    cfg: SearchConfig,
    start: &Schedule,
) -> Result<SearchResult, SearchError> {
    let started = Instant::now();
    let base = evaluator.evaluate(std::slice::from_ref(start))?[0].ok_or(SearchError::NoBaseline)?;
    let mut beam = vec![Scored { schedule: start.clone(), score: base }];
    let mut all = beam.clone();
    let mut seen: HashSet<String> = HashSet::from([start.to_string()]);
    let (mut proposed, mut scored) = (0, 1);
    // The beam's states transformed, by schedule text: a child's is its parent's with the
    // child's steps run once more (not the whole schedule replayed at every stage).
    let mut prefixes: HashMap<String, transform::Prefix> = HashMap::new();
    // States without their unrolls, where those decide a step's dependences (`unroll_base`).
    let mut bases: HashMap<String, Option<transform::Prefix>> = HashMap::new();
    // What the checks decided, for states with the same steps on the nests checked.
    let mut verdicts = Verdicts::default();
    // States that a kind's lookahead sequence made, and their descendants (schedule texts).
    let mut looked_ahead: HashMap<String, String> = HashMap::new();
    let places = LOOKAHEAD_PLACES * if evaluator.scores_peeling() { 2 } else { 1 };
    for &stage in STAGES {
        if !evaluator.scores(stage) {
            log::debug!("{stage:?}: skipped, the evaluator does not score it");
            continue;
        }
        let stage_started = Instant::now();
        let mut children: Vec<Schedule> = Vec::new();
        // How many of them the evaluator is scoring already (`Evaluator::start`).
        let mut started = 0;
        // Each child's parent (schedule text) and how many steps it adds.
        let mut parent_of: HashMap<String, (String, usize)> = HashMap::new();
        // States of this stage that lookahead sequences were made from (best first).
        let mut looked_from = 0;
        // Children whose check built them (transformed clones), by schedule text: those that
        // enter the beam are kept rather than built again.
        let mut built: HashMap<String, transform::Prefix> = HashMap::new();
        let stage_index = STAGES.iter().position(|s| *s == stage);
        for state in &beam {
            if state.schedule.steps.len() >= MAX_STEPS {
                continue;
            }
            // A lookahead sequence made this stage's decision for the state already (its
            // steps reach a later stage): it passes the stage as it is. The stage of its last
            // step still runs (attention-scores' model-mode choice jams a third loop of its
            // register tile at the Unroll stage).
            if state.schedule.steps.iter().any(|t| STAGES.iter().position(|s| *s == t.stage()) > stage_index) {
                continue;
            }
            let steps = candidates(program, &state.schedule, stage);
            if steps.is_empty() {
                continue;
            }
            let key = state.schedule.to_string();
            if !prefixes.contains_key(&key) {
                match transform::Prefix::new(func, &state.schedule) {
                    Ok(p) => {
                        prefixes.insert(key.clone(), p);
                    }
                    Err(e) => {
                        log::warn!("{}: cannot extend: {e}", state.schedule);
                        continue;
                    }
                }
            }
            let prefix = &prefixes[&key];
            let state_check = StateCheck::new(func, program, prefix, &state.schedule);
            let mut check = |steps: &[Transform]| {
                let started = Instant::now();
                let verdict = verdicts.check(program, &state.schedule, steps, || state_check.check_keeping(steps, &mut bases));
                let took = started.elapsed().as_secs_f64();
                if took > 0.1 {
                    let text: Vec<String> = steps.iter().map(|t| t.to_string()).collect();
                    log::debug!("{}: checking {} took {took:.3} s", state.schedule, text.join("; "));
                }
                verdict
            };
            let mut legal = Vec::new();
            for step in steps {
                if !fits(&state.schedule, std::slice::from_ref(&step), cfg) || !evaluator.scores_step(&step) {
                    continue;
                }
                let mut s = state.schedule.clone();
                s.steps.push(step.clone());
                proposed += 1;
                if !seen.insert(s.to_string()) {
                    continue;
                }
                match check(std::slice::from_ref(&step)) {
                    Ok(kept) => {
                        keep(&mut built, &s, kept);
                        parent_of.insert(s.to_string(), (key.clone(), 1));
                        children.push(s);
                        legal.push(step);
                    }
                    Err(e) => log::trace!("{s}: {e}"),
                }
            }
            let ahead = if looked_from < LOOKAHEAD_STATES {
                lookahead(program, &state.schedule, stage, &legal)
            } else {
                Vec::new()
            };
            looked_from += !ahead.is_empty() as usize;
            let sequences = combinations(program, &state.schedule, stage, &legal).into_iter().map(|c| (c, false));
            for (combo, from_lookahead) in sequences.chain(ahead.into_iter().map(|c| (c, true))) {
                if !fits(&state.schedule, &combo, cfg) || !combo.iter().all(|t| evaluator.scores_step(t)) {
                    continue;
                }
                let mut s = state.schedule.clone();
                s.steps.extend(combo.iter().cloned());
                proposed += 1;
                if !seen.insert(s.to_string()) {
                    continue;
                }
                match check(&combo) {
                    Ok(kept) => {
                        keep(&mut built, &s, kept);
                        parent_of.insert(s.to_string(), (key.clone(), combo.len()));
                        if from_lookahead {
                            looked_ahead.insert(s.to_string(), s.to_string());
                        }
                        children.push(s);
                    }
                    Err(e) => log::trace!("{s}: {e}"),
                }
            }
            started += evaluator.start(&children[started..]);
        }
        if children.is_empty() {
            continue;
        }
        let (checked, n_children) = (stage_started.elapsed().as_secs_f64(), children.len());
        let scores = evaluator.evaluate(&children)?;
        let mut next: Vec<Scored> = beam.clone();
        for (s, score) in children.into_iter().zip(scores) {
            if let Some(score) = score {
                scored += 1;
                next.push(Scored { schedule: s.clone(), score });
                all.push(Scored { schedule: s, score });
            }
        }
        // Lookahead children and their descendants keep places of their own beside the
        // beam: they add schedules to the search without displacing the states it keeps.
        for s in &next {
            if let Some((parent, _)) = parent_of.get(&s.schedule.to_string()) {
                if let Some(root) = looked_ahead.get(parent).cloned() {
                    looked_ahead.insert(s.schedule.to_string(), root);
                }
            }
        }
        let (extra, regular): (Vec<Scored>, Vec<Scored>) =
            next.into_iter().partition(|s| looked_ahead.contains_key(&s.schedule.to_string()));
        let mut next = select_beam(regular, cfg.beam_width.max(1), |s| loop_structure(program, s));
        next.extend(select_beam(extra, places, |s| looked_ahead[&s.to_string()].clone()));
        next.sort_by(order);
        let extending = Instant::now();
        prefixes = next_prefixes(prefixes, &parent_of, &next, built);
        log::debug!("{stage:?}: {:.3} s extending the beam's states", extending.elapsed().as_secs_f64());
        log::debug!(
            "{stage:?}: {} children, {checked:.3} s proposing and checking, {:.3} s evaluating; best {} ({:.3}x)",
            n_children,
            stage_started.elapsed().as_secs_f64() - checked,
            next[0].schedule,
            next[0].score
        );
        if log::log_enabled!(log::Level::Trace) {
            for s in &next {
                log::trace!("{stage:?} beam: {} ({:.3}x)", s.schedule, s.score);
            }
        }
        beam = next;
    }
    log::debug!("{} checks took the verdict of a state with the same steps on the nests checked", verdicts.reused);
    all.sort_by(order);
    Ok(SearchResult { ranked: all, proposed, scored, seconds: started.elapsed().as_secs_f64(), looked_ahead })
}

/// The next beam from the states and children of a stage (any order): the best state of each
/// distinct loop structure ([`loop_structure`]), best structures first, for up to half of
/// the places, then the best of the rest; best first. A structural step often pays only
/// after later stages (an interchange that puts a parallel loop innermost is worth little
/// until the Vectorize stage vectorizes it), and a beam ranked by score alone fills up with
/// refinements of one structure at the Tile stage (hundreds of tile sizes) and drops the
/// others before the stage that would show their worth. A state that builds the same nest
/// with the same other steps as a better one (a swap of two loops written as a rotation of
/// three) is the same program: it takes no place.
fn select_beam(mut states: Vec<Scored>, width: usize, structure: impl Fn(&Schedule) -> String) -> Vec<Scored> {
    states.sort_by(order);
    let keys: Vec<(String, String)> = states
        .iter()
        .map(|s| {
            let refinements: Vec<String> =
                s.schedule.steps.iter().filter(|t| !t.stage().structural()).map(|t| t.to_string()).collect();
            (structure(&s.schedule), refinements.join("; "))
        })
        .collect();
    let mut programs = HashSet::new();
    let unique: Vec<bool> = keys.iter().map(|k| programs.insert(k.clone())).collect();
    let diverse = width.div_ceil(2);
    let mut structures = HashSet::new();
    let mut taken = vec![false; states.len()];
    let mut kept = 0;
    for (i, (nest, _)) in keys.iter().enumerate() {
        if kept == diverse {
            break;
        }
        if unique[i] && structures.insert(nest.clone()) {
            taken[i] = true;
            kept += 1;
        }
    }
    for (i, t) in taken.iter_mut().enumerate() {
        if kept == width {
            break;
        }
        if !*t && unique[i] {
            *t = true;
            kept += 1;
        }
    }
    // Still in score order: the taken ones keep their relative order.
    states.into_iter().zip(taken).filter(|(_, t)| *t).map(|(s, _)| s).collect()
}

/// Places beside the beam for the states that lookahead sequences made and their
/// descendants (`TransformKind::lookahead`), per tiling of the register tiles the evaluator
/// scores: a register tile scored above the beam's tilings would otherwise take their places
/// and lose the schedules they lead to (3mm's model-mode schedule measured 2.2x instead of
/// 4.3x). One per sequence (the best state each has led to) as long as there are places:
/// `Tile`'s lookahead makes at most nine from a state (three register tiles, unpacked, with
/// one input packed, or both packed with the columns outside) in the loops' whole tiles and
/// nine in whole register tiles, from at most
/// [`LOOKAHEAD_STATES`]. An evaluator that scores peeled tiles gets places for both (with
/// places for one, gemm's peeled 4x32 tiles lost theirs before the Parallelize stage); one
/// that drops them keeps to the places of one (places left over go to more states of the
/// same sequences: model mode's search took 0.78 -> 0.96 s on gemm and 1.57 -> 1.89 s on
/// 3mm with 24 places).
const LOOKAHEAD_PLACES: usize = 18;

/// Looked-ahead schedules that hybrid measures beside its finalists, at most: the best
/// descendant of each register tile and packing, best first, where no finalist has it. The
/// model has seen few register tiles and fewer packed ones, and misranks them among
/// themselves (gemm-1024 with fp-contract: the packed 4x32 tile of 128x256x192 ranked last
/// of eight, 5.97x against 6.32x for the 8x16 tile unpacked, and ran 1.6x faster than
/// it). One per register tile and packing (the best-ranked sequence of each: the sequences
/// of another state differ in the band they tile), so at most nine (three register tiles
/// on AVX2, each unpacked, with one input packed, or both packed with the columns outside:
/// gemm's fastest, the last, ranked below six others): each adds a register tile's unrolled
/// code to the one library the finalists are compiled into, and fifteen of them on 3mm
/// (three products, two states) took that compilation past its timeout, then measured one
/// by one with the 6 s original each time (minutes); with nine, 3mm's finalists took 80 s.
const LOOKAHEAD_FINALISTS: usize = 9;

/// A lookahead sequence's register tile and packing, as "tile,pack,8,16" (its tilings,
/// packs and unroll factors: the Tile stage's tiled register tiles are told apart from the
/// loops' own, `accumulate::register_tile_sequences`), and whether its tiles hold whole
/// register tiles (sizes multiples of the unroll factors, a partial last tile peeled where
/// the loop needs one) rather than a clean-up copy
/// of the register tile in every tile: hybrid measures the best sequence of each register
/// tile and packing, of whole register tiles where there is one.
fn register_tile_variety(root: &str) -> (String, bool) {
    let Ok(s) = root.parse::<Schedule>() else { return (root.to_string(), false) };
    let sizes: HashMap<&str, u32> = s
        .steps
        .iter()
        .filter_map(|t| match t {
            Transform::Tile(t) => Some(t.band.iter().map(|(l, size)| (l.as_str(), *size))),
            _ => None,
        })
        .flatten()
        .collect();
    let mut whole = true;
    let parts: Vec<String> = s
        .steps
        .iter()
        .filter_map(|t| match t {
            Transform::Tile(_) => Some("tile".to_string()),
            Transform::Pack(_) => Some("pack".to_string()),
            Transform::Unroll(u) => {
                whole &= sizes.get(u.target.as_str()).is_none_or(|size| size % u.factor == 0);
                Some(u.factor.to_string())
            }
            _ => None,
        })
        .collect();
    (parts.join(","), whole)
}

/// States per stage that lookahead sequences are made from, at most (the best ones that
/// have any): each sequence costs a check of several steps (two unroll-and-jams of a
/// register tile: about 15-100 ms), and the beam's states often share the band (3mm's
/// three products in every state: 1.4 s of checks with no bound).
const LOOKAHEAD_STATES: usize = 2;

/// Children a stage's checks built that are kept until the beam is chosen, at most: each
/// holds a copy of the function (a large function's copies would add up), and a stage
/// rarely has more legal children checked by applying them (shortcuts decide tile sizes,
/// interchanges and parallelizations); a child beyond them is extended again if chosen.
const MAX_BUILT: usize = 256;

/// Keeps the transformed child `s` that its check built, within [`MAX_BUILT`].
fn keep(built: &mut HashMap<String, transform::Prefix>, s: &Schedule, kept: Option<transform::Prefix>) {
    if let Some(p) = kept.filter(|_| built.len() < MAX_BUILT) {
        built.insert(s.to_string(), p);
    }
}

/// The transformed states of the new beam `next`: the ones the stage's checks `built`, kept
/// from `prefixes` for the states that stay, extended from their parent's for the other
/// children (by the steps they add). A state missing here is built from scratch when a
/// later stage needs it.
fn next_prefixes(
    mut prefixes: HashMap<String, transform::Prefix>,
    parent_of: &HashMap<String, (String, usize)>,
    next: &[Scored],
    mut built: HashMap<String, transform::Prefix>,
) -> HashMap<String, transform::Prefix> {
    let mut out = HashMap::new();
    for s in next {
        let key = s.schedule.to_string();
        if let Some(p) = built.remove(&key) {
            out.insert(key, p);
            continue;
        }
        let Some((parent, added)) = parent_of.get(&key) else { continue };
        let Some(p) = prefixes.get(parent) else { continue };
        // Checked already: the dependence analyses are not run again.
        match p.extend_checked(&s.schedule.steps[s.schedule.steps.len() - added..]) {
            Ok(longer) => {
                out.insert(key, longer);
            }
            Err(e) => log::debug!("{}: not extended from its parent ({e}); built again if needed", s.schedule),
        }
    }
    for s in next {
        let key = s.schedule.to_string();
        if let Some(p) = prefixes.remove(&key) {
            out.insert(key, p);
        }
    }
    out
}

/// The legality of steps after one state, as the search decides it: a step whose
/// dependences its state's [`unroll_base`] decides is checked there (the base's clone is
/// built only for such a step, and kept in `bases`, shared by the states with that base),
/// any other on the state itself. The data generator's walks decide it the same way, so
/// the data holds exactly the schedules the search can make (and a walk through a 16x8
/// unroll-and-jam does not analyse the copied body's pairs of accesses: minutes per program).
pub struct StateCheck<'a> {
    func: Op,
    program: &'a Program,
    prefix: &'a transform::Prefix,
    base: Option<Base>,
}

impl<'a> StateCheck<'a> {
    /// `prefix` is `schedule` applied to `func` (whose representation is `program`).
    pub fn new(func: Op, program: &'a Program, prefix: &'a transform::Prefix, schedule: &Schedule) -> StateCheck<'a> {
        StateCheck { func, program, prefix, base: unroll_base(program, schedule) }
    }

    /// Whether the state followed by `steps` applies.
    pub fn check(
        &self,
        steps: &[Transform],
        bases: &mut HashMap<String, Option<transform::Prefix>>,
    ) -> Result<(), transform::TransformError> {
        self.check_keeping(steps, bases).map(|_| ())
    }

    /// As [`StateCheck::check`], with the state followed by `steps` where the check built it
    /// ([`transform::Prefix::check_keeping`]).
    pub fn check_keeping(
        &self,
        steps: &[Transform],
        bases: &mut HashMap<String, Option<transform::Prefix>>,
    ) -> Result<Option<transform::Prefix>, transform::TransformError> {
        if let Some(base) = &self.base {
            if let Some(around) = transform::base::jammed_around(self.program, base, steps) {
                let (func, b) = (self.func, &base.schedule);
                let at_base = bases
                    .entry(b.to_string())
                    .or_insert_with(|| transform::Prefix::new(func, b).map_err(|e| log::debug!("{b}: {e}")).ok());
                // Where a jammed loop around a step's loop carries something at the base,
                // the whole state decides, exactly.
                if let Some(at_base) = at_base.as_ref().filter(|p| transform::base::quiet_at(p, &around)) {
                    if let Some(r) = self.prefix.check_from_base(at_base, steps) {
                        return r.map(|_| None);
                    }
                }
            }
        }
        self.prefix.check_keeping(steps)
    }
}

/// The search scored by the cost model.
pub fn beam_search(func: Op, program: &Program, model: &CostModel, cfg: SearchConfig) -> Result<SearchResult, SearchError> {
    search(func, program, &mut ModelEvaluator::new(program, model), cfg)
}

/// [`beam_search`] ranking by the low end of each schedule's interval at `confidence`
/// (model mode's own criterion), with the model's members' predictions of every schedule it
/// scored (by the schedule's text).
pub fn beam_search_with_members(
    func: Op,
    program: &Program,
    model: &CostModel,
    cfg: SearchConfig,
    confidence: f64,
) -> Result<(SearchResult, HashMap<String, Vec<f32>>), SearchError> {
    let mut ev = ModelEvaluator::new(program, model);
    ev.low_end = Some(confidence);
    ev.skip_peeling = model.data_space() < crate::datagen::sampler::SPACE_PEELING;
    let result = search(func, program, &mut ev, cfg)?;
    Ok((result, std::mem::take(&mut ev.members)))
}

/// Measured speedups must clear this margin for a schedule to replace the original: below
/// it, the difference is within what run-to-run noise produces on a shared machine.
pub const MIN_MEASURED_GAIN: f64 = 1.02;

/// During an execution-guided search, a candidate whose first (correctness-check) run takes
/// more than this many times the original's is not timed further (see `MeasureConfig::cutoff`).
pub const SEARCH_CUTOFF: f64 = 3.0;

/// Finalists of a function faster than this are measured again with more repetitions.
const SHORT_KERNEL_SECONDS: f64 = 0.005;
const REPEAT_BUDGET: f64 = 0.2;

/// Predicted speedups must clear this margin: the model's error on one schedule is far
/// larger than a few percent (onnx/REPORT.md), so a smaller predicted gain is no evidence
/// and not worth rewriting the user's IR for.
pub const MIN_PREDICTED_GAIN: f32 = 1.05;

/// In model mode, every schedule the search ranked is weighed by its pessimistic estimate
/// and the one whose worst case is best is applied: the rule the report validates on
/// held-out programs (over all of a program's measured schedules). A pool of only the
/// best-ranked few holds near-copies of one schedule, all as uncertain as each other.
const PESSIMISTIC_CANDIDATES: usize = 1024;

/// The schedules model mode weighs by their pessimistic estimate: every ranked one but the
/// identity whose score clears the margin over the identity's (a point, or a low end over
/// the original's own low end: either way at least the low end over the original's point,
/// the decision's ratio, so no schedule that could be chosen is left out).
fn pessimistic_pool(ranked: &[Scored], identity: f32) -> Vec<&Schedule> {
    ranked
        .iter()
        .filter(|s| !s.schedule.is_identity() && s.score / identity > MIN_PREDICTED_GAIN)
        .take(PESSIMISTIC_CANDIDATES)
        .map(|s| &s.schedule)
        .collect()
}

/// Of `candidates` (schedules with their intervals), the one to apply in model mode: the
/// best pessimistic estimate (then the best point estimate), if it clears the margin.
pub fn pessimistic_choice<'a>(candidates: &[(&'a Schedule, Interval)]) -> Option<(&'a Schedule, Interval)> {
    candidates
        .iter()
        .copied()
        .max_by(|a, b| a.1.lo.total_cmp(&b.1.lo).then(a.1.point.total_cmp(&b.1.point)))
        .filter(|(_, i)| i.lo > MIN_PREDICTED_GAIN)
}

/// Model mode's decision on `result` (a search ranked by the pessimistic end, with the
/// members' predictions of what it scored): the schedule whose interval's low end at
/// `confidence` percent is best, applied only when even that end predicts a gain beyond the
/// margin (a single network is its own most pessimistic member); or why the original stays.
fn model_choice(
    result: &SearchResult,
    members: &HashMap<String, Vec<f32>>,
    model: &CostModel,
    confidence: usize,
    warnings: &mut Vec<String>,
) -> Result<Result<(Schedule, Interval), String>, SearchError> {
    let original = members
        .get(&Schedule::default().to_string())
        .ok_or_else(|| SearchError::Features("the original was not scored".into()))?;
    // The interval's low end at the asked confidence (the calibrated one by default).
    let level = match model.interval_coverage() {
        Some(coverage) => Some((confidence as f64 / 100.0, coverage)),
        None => {
            if confidence != crate::options::DEFAULT_CONFIDENCE as usize {
                warnings.push(format!(
                    "option 'confidence' ignored: the model {} has no calibrated interval (its members' extremes decide)",
                    model.path().display()
                ));
            }
            None
        }
    };
    let pairs: Vec<(&Schedule, Interval)> = pessimistic_pool(&result.ranked, result.identity())
        .into_iter()
        .filter_map(|s| {
            let i = Interval::of(members.get(&s.to_string())?, original, model.interval_output());
            Some((s, level.map_or(i, |(p, c)| i.at_confidence(p, c))))
        })
        .collect();
    Ok(match pessimistic_choice(&pairs) {
        Some((s, i)) => Ok((s.clone(), i)),
        None => Err(match pairs.first().map(|(_, i)| *i) {
            Some(i) if i.is_spread() && i.point > MIN_PREDICTED_GAIN => format!(
                "no schedule's pessimistic estimate beat the original by more than {:.0}% (the best predicted {:.2}x [{:.2}x, {:.2}x])",
                (MIN_PREDICTED_GAIN - 1.0) * 100.0,
                i.point,
                i.lo,
                i.hi
            ),
            _ => format!("no schedule was predicted faster than the original by more than {:.0}%", (MIN_PREDICTED_GAIN - 1.0) * 100.0),
        }),
    })
}

#[derive(Clone, Debug)]
pub struct OptimizeConfig {
    pub search: SearchConfig,
    pub evaluator: EvaluatorKind,
    /// Finalists measured at the end (hybrid: the model's best; execution: the best
    /// measured during the search, measured again with more repetitions).
    pub measure_top_k: usize,
    /// Repetitions for candidates during an execution-guided search, and for finalists.
    pub search_measure: crate::measure::MeasureConfig,
    pub final_measure: crate::measure::MeasureConfig,
    /// Schedules measured among the finalists whatever the search thinks of them (hybrid and
    /// execution): the best ones of the tuning records from other machines.
    pub seeds: Vec<Schedule>,
    /// Model mode: the one-sided level (percent) of the interval end that must clear the margin.
    pub confidence: usize,
    /// The `prefer-vector-width` the function is compiled with (None: the one the function's
    /// own `passthrough` asks for, else LLVM's default): which register tiles fit the
    /// registers (`tile_sizes::Target::with_vector_width`; [`OptimizeConfig::target_for`]).
    pub vector_bits: Option<u32>,
    /// Model mode: search functions smaller than any program the model was trained on too
    /// (the pass keeps them: its predictions do not cover them). For the fuzzer, whose small
    /// programs are there to check the schedules the search makes, not what they are worth.
    pub below_min_work: bool,
}

impl OptimizeConfig {
    pub fn new(search: SearchConfig, evaluator: EvaluatorKind, measure_top_k: usize) -> Self {
        let final_measure = crate::measure::MeasureConfig { warmup: 1, reps: 5, ..Default::default() };
        // Candidates over 3x slower than the original in the check run are not timed again.
        let search_measure =
            crate::measure::MeasureConfig { warmup: 0, reps: 2, cutoff: Some(SEARCH_CUTOFF), ..Default::default() };
        let confidence = crate::options::DEFAULT_CONFIDENCE as usize;
        OptimizeConfig { search, evaluator, measure_top_k, search_measure, final_measure, seeds: Vec::new(), confidence, vector_bits: None, below_min_work: false }
    }

    /// The vector width `func`'s candidates are sized for: `vector_bits`, else the
    /// `prefer-vector-width` the function already carries (a user's `passthrough`, or the
    /// pass's option applied before), else None (LLVM's default). Reading the function too
    /// keeps the search's register tiles right for the vectors it will really be compiled
    /// for, whoever asked for them.
    pub fn vector_bits_for(&self, func: Op) -> Option<u32> {
        self.vector_bits.or_else(|| crate::transform::preferred_vector_width(func))
    }

    /// The wider vectors a measuring evaluator tries its winner at, in bits: 512 where this host
    /// has them (AVX-512's 32 registers) and nothing asks for a width (neither the options nor
    /// the function's `passthrough`: a width set there, even LLVM's 256, is the user's choice).
    /// LLVM vectorizes for 256 bits on x86 unless asked, AVX-512 included.
    pub fn wider_vectors_for(&self, func: Op) -> Option<u32> {
        let measuring = matches!(self.evaluator, EvaluatorKind::Hybrid | EvaluatorKind::Execution);
        let host = crate::schedule::tile_sizes::Target::current().with_vector_width(Some(512));
        (measuring && self.vector_bits_for(func).is_none() && host.vector_bytes == 64).then_some(512)
    }

    /// This machine's target for `func` ([`OptimizeConfig::vector_bits_for`]).
    pub fn target_for(&self, func: Op) -> crate::schedule::tile_sizes::Target {
        crate::schedule::tile_sizes::Target::current().with_vector_width(self.vector_bits_for(func))
    }
}

/// The loop structure a schedule builds: its steps of structural kinds (distribution, fusion,
/// interchange; tiling, unrolling, parallelization and vectorization refine a structure).
pub fn structure(s: &Schedule) -> String {
    let steps: Vec<String> = s
        .steps
        .iter()
        .filter(|t| t.stage().structural())
        .map(|t| t.to_string())
        .collect();
    steps.join("; ")
}

/// The loop nest a schedule's structural steps build ([`Scheduled::nesting`]): schedules
/// that reach one nest by different steps are one structure. [`structure`]'s text where the
/// steps cannot be followed symbolically.
pub fn loop_structure(program: &Program, s: &Schedule) -> String {
    let structural = Schedule { steps: s.steps.iter().filter(|t| t.stage().structural()).cloned().collect() };
    Scheduled::new(program, &structural).map(|t| t.nesting()).unwrap_or_else(|_| structure(s))
}

fn parallel(s: &Schedule) -> bool {
    s.steps.iter().any(|t| matches!(t, Transform::Parallelize(_)))
}

/// The `k` schedules to measure, from a ranking (best first): the best of each distinct loop
/// structure first, so that a model that misranks whole structures (fuse-then-interchange
/// against interchange alone, say) still gets each one tried; then, if the finalists so far
/// are all parallel or all serial, the best of the other kind (whether threads pay off on a
/// kernel of a few milliseconds is what the model knows least: gesummv's parallel schedules
/// run 1.9x, its serial ones 1.0x, predicted alike); then the next best overall.
pub fn finalists(ranked: &[Scored], k: usize) -> Vec<&Scored> {
    finalists_by(ranked, k, structure)
}

/// [`finalists`], with structures told apart by `key` ([`loop_structure`] in the search).
pub fn finalists_by(ranked: &[Scored], k: usize, key: impl Fn(&Schedule) -> String) -> Vec<&Scored> {
    let candidates: Vec<&Scored> = ranked.iter().filter(|s| !s.schedule.is_identity()).collect();
    let mut seen = HashSet::new();
    let mut out: Vec<&Scored> = Vec::new();
    for s in &candidates {
        if out.len() < k && seen.insert(key(&s.schedule)) {
            out.push(s);
        }
    }
    if out.len() < k && !out.is_empty() {
        let have_parallel = out.iter().any(|s| parallel(&s.schedule));
        let have_serial = out.iter().any(|s| !parallel(&s.schedule));
        if let Some(other) = candidates.iter().find(|s| if have_parallel { !have_serial && !parallel(&s.schedule) } else { parallel(&s.schedule) }) {
            out.push(other);
        }
    }
    for s in &candidates {
        if out.len() >= k {
            break;
        }
        if !out.iter().any(|o| std::ptr::eq(*o, *s)) {
            out.push(s);
        }
    }
    out
}

/// Hybrid's finalists: [`finalists_by`] loop structure, then the best descendant of the
/// lookahead sequences of each register tile and packing that none of them came from
/// ([`LOOKAHEAD_FINALISTS`], the tiled ones first, one untiled beside them at least), best
/// first. Of one register tile's two tilings (the loops'
/// whole tiles with a clean-up copy of the register tile in each, or whole register tiles
/// with the last partial tile peeled) the second is measured where the search has one,
/// whatever their scores: models trained before peeling cannot tell the two apart (gemm's
/// 220-column tiles of 4x32 ranked above the 224-column ones and ran 1.99x against 3.16x,
/// 2-core EPYC), and a clean-up in every tile costs in every tile.
pub fn hybrid_finalists<'a>(program: &Program, result: &'a SearchResult, k: usize) -> Vec<&'a Scored> {
    let mut f = finalists_by(&result.ranked, k, |s| loop_structure(program, s));
    let variety = |s: &Scored| result.looked_ahead.get(&s.schedule.to_string()).map(|r| register_tile_variety(r));
    // Each variety's best descendant, whole register tiles first, in the order the
    // varieties first appear in the ranking.
    let mut best: Vec<(String, &Scored, bool)> = Vec::new();
    for s in &result.ranked {
        let Some((key, whole)) = variety(s) else { continue };
        match best.iter_mut().find(|(k, _, _)| *k == key) {
            None => best.push((key, s, whole)),
            Some(entry) if whole && !entry.2 => *entry = (key, s, whole),
            Some(_) => {}
        }
    }
    // A finalist of a variety stands for it unless it has a clean-up copy in every tile
    // and the variety has whole register tiles.
    let covered: HashSet<(String, bool)> = f.iter().filter_map(|s| variety(s)).collect();
    // The Tile stage's tiled varieties first, then the loops' own (untiled) ones in the places
    // left, and the best of those in one more place if none was left: gemm's twelve tiled
    // varieties on AVX-512 filled the places with the untiled ones ranked above them, and its
    // fastest (both inputs packed, the columns outside) was no longer measured (3.39x against
    // 4.16x), while conv2d has only untiled ones (its tiled bands have no register tile shape).
    let (tiled, untiled): (Vec<_>, Vec<_>) = best.into_iter().partition(|(key, _, _)| key.starts_with("tile"));
    let mut extra = 0;
    let mut untiled_measured = false;
    let in_order = tiled.into_iter().map(|v| (false, v)).chain(untiled.into_iter().map(|v| (true, v)));
    for (is_untiled, (key, s, whole)) in in_order {
        if extra >= LOOKAHEAD_FINALISTS && (untiled_measured || !is_untiled) {
            continue;
        }
        if covered.contains(&(key.clone(), whole)) || (!whole && covered.iter().any(|(k, _)| *k == key)) {
            untiled_measured |= is_untiled;
            continue;
        }
        if !f.iter().any(|o| std::ptr::eq(*o, s)) {
            f.push(s);
            extra += 1;
            untiled_measured |= is_untiled;
        }
    }
    f
}

/// Fusions of the original nests that hybrid searches again from, at most
/// ([`fusion_completions`]): the ones the model predicts best alone.
const FUSION_SEARCHES: usize = 3;

/// Hybrid: for the fusions of the original nests (the Fuse stage's candidates there) that none
/// of `made` (the finalists) makes, the best schedule of a search that starts from each
/// ([`search_from`]; the [`FUSION_SEARCHES`] fusions the model predicts best alone, whose
/// search found anything past the fusion), best first. The beam decides a fusion on the
/// model's prediction of the fused nests alone, and one whose worth shows only with a later
/// step leaves it at the next stages: depthwise-conv's fusion of its zeroing into the
/// convolution, predicted 0.65x alone, runs 2.68x with the output's element accumulated in a
/// register, where none of hybrid's finalists fused and the fastest ran 1.86x (2-core EPYC,
/// benchmarks/discussion.md). Also what those searches proposed and scored (the remark's
/// counts include them).
pub fn fusion_completions(func: Op, program: &Program, model: &CostModel, cfg: SearchConfig, result: &SearchResult, made: &[&Scored]) -> FusionCompletions {
    let mut fusions: Vec<(Transform, f32)> = candidates(program, &Schedule::default(), Stage::Fuse)
        .into_iter()
        .filter(|f| !made.iter().any(|m| m.schedule.steps.contains(f)))
        .map(|f| {
            // Its prediction alone where the search scored it (it did where the original was in
            // the beam at the Fuse stage), else last.
            let alone = Schedule { steps: vec![f.clone()] };
            let score = result.ranked.iter().find(|r| r.schedule == alone).map_or(f32::NEG_INFINITY, |r| r.score);
            (f, score)
        })
        .collect();
    fusions.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut out = FusionCompletions::default();
    for (f, _) in fusions.into_iter().take(FUSION_SEARCHES) {
        let start = Schedule { steps: vec![f] };
        if let Err(e) = transform::check(func, &start) {
            log::debug!("{start}: not searched from ({e})");
            continue;
        }
        match search_from(func, program, &mut ModelEvaluator::new(program, model), cfg, &start) {
            Ok(r) => {
                out.proposed += r.proposed;
                out.scored += r.scored;
                if let Some(best) = r.ranked.into_iter().find(|s| s.schedule.steps.len() > start.steps.len()) {
                    log::debug!("{start}: its best completion {} ({:.3}x)", best.schedule, best.score);
                    out.best.push(best);
                }
            }
            Err(e) => log::debug!("{start}: its search failed: {e}"),
        }
    }
    out.best.sort_by(order);
    out
}

/// What [`fusion_completions`] found: each searched fusion's best completion, best first, and
/// the candidates its searches proposed and scored.
#[derive(Clone, Debug, Default)]
pub struct FusionCompletions {
    pub best: Vec<Scored>,
    pub proposed: usize,
    pub scored: usize,
}

/// Schedules measured beside hybrid's fastest finalist, at most, that differ from it in
/// which loops run in parallel ([`parallel_neighbours`]).
const PARALLEL_NEIGHBOURS: usize = 6;

/// `s` with its parallel loops chosen otherwise, one change at a time, every other step as in
/// `s`; only those that apply to `func`, at most [`PARALLEL_NEIGHBOURS`], in this order: a
/// parallel loop moved to another loop around or inside it (the same nest), one dropped, a
/// loop of a nest without one added, one moved to another nest; then the Parallelize stage's
/// own combinations and no parallel loop at all. Which loop gets the threads is what the model
/// knows least (each thread's share is a trip count modulo the cores) and hybrid's finalists
/// are each the model's best of their kind: gemm's fastest register tile came with its 5
/// column tiles parallel (3:2 on two cores), not its 10 row tiles. Empty for a schedule
/// whose parallelizations are not one run of steps.
pub fn parallel_neighbours(func: Op, program: &Program, s: &Schedule) -> Vec<Schedule> {
    let is_parallel = |t: &Transform| matches!(t, Transform::Parallelize(_));
    let (from, to) = match s.steps.iter().position(is_parallel) {
        Some(a) => (a, a + s.steps[a..].iter().take_while(|t| is_parallel(t)).count()),
        // Where the Parallelize stage would have added its step: before the Vectorize stage's.
        None => {
            let at = s.steps.iter().position(|t| t.stage() == Stage::Vectorize).unwrap_or(s.steps.len());
            (at, at)
        }
    };
    if s.steps[to..].iter().any(is_parallel) {
        return Vec::new();
    }
    let before = Schedule { steps: s.steps[..from].to_vec() };
    let Ok(tree) = Scheduled::new(program, &before) else { return Vec::new() };
    let node = |t: &Transform| match t {
        Transform::Parallelize(p) => tree.node_named(program, &p.target),
        _ => None,
    };
    let related = |a: usize, b: usize| a == b || tree.inside(a, b) || tree.inside(b, a);
    // Whether `q` may join `set`: no loop of it around or inside `q`'s.
    let fits = |set: &[&Transform], q: &Transform| {
        node(q).is_some_and(|nq| set.iter().all(|t| node(t).is_some_and(|n| !related(n, nq))))
    };
    let current: Vec<&Transform> = s.steps[from..to].iter().collect();
    let singles = candidates(program, &before, Stage::Parallelize);
    let (mut moved_within, mut dropped, mut added, mut moved_across) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, p) in current.iter().enumerate() {
        let others: Vec<&Transform> = current.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, t)| *t).collect();
        dropped.push(others.iter().map(|t| (*t).clone()).collect::<Vec<_>>());
        for q in singles.iter().filter(|q| !current.contains(q) && fits(&others, q)) {
            let mut set: Vec<Transform> = current.iter().map(|t| (*t).clone()).collect();
            set[i] = q.clone();
            let within = node(p).zip(node(q)).is_some_and(|(a, b)| related(a, b));
            if within { &mut moved_within } else { &mut moved_across }.push(set);
        }
    }
    for q in singles.iter().filter(|q| fits(&current, q)) {
        let mut set: Vec<Transform> = current.iter().map(|t| (*t).clone()).collect();
        set.push(q.clone());
        added.push(set);
    }
    let mut choices = moved_within;
    choices.append(&mut dropped);
    choices.append(&mut added);
    choices.append(&mut moved_across);
    choices.extend(combinations(program, &before, Stage::Parallelize, &singles));
    choices.push(Vec::new());
    let mut out: Vec<Schedule> = Vec::new();
    for choice in choices {
        if out.len() == PARALLEL_NEIGHBOURS {
            break;
        }
        let mut steps = before.steps.clone();
        steps.extend(choice);
        steps.extend_from_slice(&s.steps[to..]);
        let variant = Schedule { steps };
        if variant == *s || variant.is_identity() || out.contains(&variant) {
            continue;
        }
        match transform::check(func, &variant) {
            Ok(()) => out.push(variant),
            Err(e) => log::debug!("{variant}: not a neighbour ({e})"),
        }
    }
    out
}

/// `s` with its Unroll stage's choice replaced by each register tile that stage offers around
/// an accumulating loop (`register_tile_unrolls` after `s`'s steps of the stages before it),
/// the steps of the stages after it and the unrolls of other nests kept: another shape where
/// `s` has a register tile (the nearest number of accumulators first), a register tile where
/// it has none (the most accumulators first). Only those that apply to `func`. The model misjudges the shape more
/// than whether to make a tile (conv2d's 4x16 tile predicted at 41x ran 29.6x where the 8x8
/// one ran 57.7x, onnx/REPORT.md), and a walk reaches a register tile only where the Unroll
/// stage draws one of its combinations.
pub fn register_tile_neighbours(func: Op, program: &Program, s: &Schedule) -> Vec<Schedule> {
    let position = |stage: Stage| STAGES.iter().position(|x| *x == stage);
    let unroll = position(Stage::Unroll);
    let before = Schedule { steps: s.steps.iter().filter(|t| position(t.stage()) < unroll).cloned().collect() };
    let after: Vec<Transform> = s.steps.iter().filter(|t| position(t.stage()) > unroll).cloned().collect();
    let own: Vec<&Transform> = s.steps.iter().filter(|t| position(t.stage()) == unroll).collect();
    let Ok(tree) = Scheduled::new(program, &before) else { return Vec::new() };
    let accumulators = |shape: &[crate::schedule::Unroll]| shape.iter().map(|u| u.factor as i64).product::<i64>();
    let sorted = |steps: &[&Transform]| {
        let mut v: Vec<String> = steps.iter().map(|t| t.to_string()).collect();
        v.sort();
        v
    };
    // `s` itself, its unrolls in another order, is no neighbour.
    let own_sorted = sorted(&own);
    let mut out: Vec<Schedule> = Vec::new();
    for n in tree.innermost() {
        if tree.tag(tree.nodes[n].ent, Stage::Accumulate).is_none() {
            continue;
        }
        let mut shapes = crate::schedule::kinds::register_tile_unrolls(program, &tree, n, usize::MAX);
        let current = shapes.iter().find(|p| p.iter().all(|u| own.iter().any(|t| matches!(t, Transform::Unroll(o) if o == u))));
        match current.map(|p| accumulators(p)) {
            Some(size) => shapes.sort_by_key(|p| (accumulators(p) - size).abs()),
            None => shapes.sort_by_key(|p| std::cmp::Reverse(accumulators(p))),
        }
        // The unrolls of the other nests stay (the second nest of a multi-nest program).
        let root = |mut m: usize| {
            while let Some(up) = tree.nodes[m].parent {
                m = up;
            }
            m
        };
        let elsewhere: Vec<Transform> = own
            .iter()
            .filter(|t| match t {
                Transform::Unroll(u) => tree.node_named(program, &u.target).is_some_and(|m| root(m) != root(n)),
                _ => false,
            })
            .map(|t| (*t).clone())
            .collect();
        for shape in shapes {
            let mut unrolls: Vec<Transform> = shape.into_iter().map(Transform::Unroll).collect();
            unrolls.extend(elsewhere.iter().cloned());
            if sorted(&unrolls.iter().collect::<Vec<_>>()) == own_sorted {
                continue;
            }
            let mut steps = before.steps.clone();
            steps.extend(unrolls);
            steps.extend(after.iter().cloned());
            let variant = Schedule { steps };
            if variant == *s || out.contains(&variant) {
                continue;
            }
            match transform::check(func, &variant) {
                Ok(()) => out.push(variant),
                Err(e) => log::debug!("{variant}: not a neighbour ({e})"),
            }
        }
    }
    out
}

/// What [`optimize`] chose for a function, and the evidence.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The schedule to apply; the identity means: keep the original.
    pub schedule: Schedule,
    /// The model's predicted speedup of `schedule` over the original (model and hybrid).
    pub predicted: Option<f32>,
    /// In model mode with an ensemble: its most pessimistic and most optimistic member.
    pub predicted_interval: Option<(f32, f32)>,
    /// The measured speedup of `schedule` over the original (median over repetitions, both
    /// in one run; the slow mode's median where its runs fell in two), where measured.
    pub measured: Option<f64>,
    /// Why the original was kept, when it was.
    pub kept: Option<String>,
    pub proposed: usize,
    pub scored: usize,
    /// Compile-and-run measurements made (search and finalists).
    pub measurements: usize,
    /// Wall time of the search, and of the final measurement of the finalists.
    pub search_seconds: f64,
    pub measure_seconds: f64,
    /// Things the user should know (a candidate whose outputs differed, a fallback).
    pub warnings: Vec<String>,
    /// The search's schedules, best first by the evaluator's score (for explaining).
    pub ranked: Vec<Scored>,
    /// Every finalist measured against the original at the end (hybrid and execution), with
    /// its speedup in that measurement (the winner's from its confirming run).
    pub finalists: Vec<(Schedule, f64)>,
    /// The original's median run time in the final measurement.
    pub original_seconds: Option<f64>,
    /// Where the decision came from.
    pub source: Source,
    /// Things worth a remark that are not warnings (records from another machine).
    pub notes: Vec<String>,
    /// The vector width a measuring evaluator chose over LLVM's default for the function: the
    /// pass sets `prefer-vector-width` on it with the schedule.
    pub vector_width: Option<WiderVectors>,
}

/// A vector width measured faster for the chosen schedule than LLVM's default, in one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WiderVectors {
    pub bits: u32,
    /// The schedule's speedup over the original compiled for `bits`, and at the default width
    /// (in the same run; from the tuning records, its figure among the finalists).
    pub speedup: f64,
    pub default_speedup: f64,
}

/// Where a decision came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Source {
    /// This run's search.
    #[default]
    Search,
    /// The tuning records: a schedule measured earlier on this machine, applied without a
    /// search.
    Records(RecordOrigin),
}

/// The measurement a decision from the records rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordOrigin {
    /// Unix seconds.
    pub measured_at: i64,
    /// The evaluator of the run that measured it.
    pub evaluator: String,
}

impl Decision {
    /// A decision taken without a search: `schedule` (the identity keeps the original).
    pub fn without_search(schedule: Schedule, source: Source) -> Decision {
        Decision {
            schedule,
            predicted: None,
            predicted_interval: None,
            measured: None,
            kept: None,
            proposed: 0,
            scored: 0,
            measurements: 0,
            search_seconds: 0.0,
            measure_seconds: 0.0,
            warnings: Vec::new(),
            ranked: Vec::new(),
            finalists: Vec::new(),
            original_seconds: None,
            source,
            notes: Vec::new(),
            vector_width: None,
        }
    }
}

/// Chooses a schedule for `func` with the evaluator of `cfg`. `model` is needed by the model
/// and hybrid evaluators. `func` is not changed.
pub fn optimize(
    func: Op,
    program: &Program,
    model: Option<&CostModel>,
    cfg: &OptimizeConfig,
) -> Result<Decision, SearchError> {
    // Read once (an attribute lookup through the C layer); None keeps a target scoped by the caller.
    match cfg.vector_bits_for(func) {
        Some(bits) => crate::schedule::tile_sizes::Target::current()
            .with_vector_width(Some(bits))
            .scoped(|| optimize_for_target(func, program, model, cfg)),
        None => optimize_for_target(func, program, model, cfg),
    }
}

/// [`optimize`] with the candidates sized for `tile_sizes::Target::current`.
fn optimize_for_target(
    func: Op,
    program: &Program,
    model: Option<&CostModel>,
    cfg: &OptimizeConfig,
) -> Result<Decision, SearchError> {
    // The model knows the programs it was trained on; far smaller ones (a few hundred
    // iterations, where OpenMP's start-up or a vector loop's set-up outweighs the work) it
    // has never seen, and its predictions there mean nothing: keep the original, say why.
    if cfg.evaluator == EvaluatorKind::Model && !cfg.below_min_work {
        let model = model.ok_or(SearchError::NoModel)?;
        let work = crate::features::work(program);
        if let Some(min) = model.min_work().filter(|m| work < *m) {
            let mut d = Decision::without_search(Schedule::default(), Source::Search);
            d.kept = Some(format!(
                "the function runs {work:.0} iterations, fewer than any program the model was trained on \
                 (at least {min:.0}): its predictions do not cover it (evaluator=hybrid measures instead)"
            ));
            return Ok(d);
        }
    }
    let mut warnings = Vec::new();
    let mut members = HashMap::new();
    let mut model_pick: Option<Schedule> = None;
    let mut searched_extra = 0.0;
    let (result, mut measurements) = match cfg.evaluator {
        EvaluatorKind::Model => {
            let model = model.ok_or(SearchError::NoModel)?;
            let (result, m) = beam_search_with_members(func, program, model, cfg.search, cfg.confidence as f64 / 100.0)?;
            members = m;
            (result, 0)
        }
        // Hybrid measures its finalists: the point estimate ranks them.
        EvaluatorKind::Hybrid => {
            let model = model.ok_or(SearchError::NoModel)?;
            let result = beam_search(func, program, model, cfg.search)?;
            // And model mode's own decision, measured beside them: ranked by the pessimistic
            // end, model mode's beam goes other ways than the point estimate's (on
            // batched-matmul hybrid's finalists all fused its two nests and measured 7-11x,
            // while model mode's unfused choice ran 51x in the same harness run), so without
            // it hybrid could end slower than the model alone. An extra candidate, not the
            // decision: if its search fails, hybrid goes on without it.
            match beam_search_with_members(func, program, model, cfg.search, cfg.confidence as f64 / 100.0) {
                Ok((pessimistic, m)) => {
                    searched_extra = pessimistic.seconds;
                    model_pick = match model_choice(&pessimistic, &m, model, cfg.confidence, &mut Vec::new()) {
                        Ok(choice) => choice.ok().map(|(s, _)| s),
                        Err(e) => {
                            log::warn!("model mode's choice is not measured: {e}");
                            None
                        }
                    };
                }
                Err(e) => log::warn!("model mode's choice is not measured: its search failed: {e}"),
            }
            (result, 0)
        }
        EvaluatorKind::Execution => {
            let mut ev = ExecutionEvaluator::new(func, cfg.search_measure.clone())?;
            let r = search(func, program, &mut ev, cfg.search)?;
            warnings.append(&mut ev.warnings);
            (r, ev.measured)
        }
    };
    let mut decision = Decision {
        schedule: Schedule::default(),
        predicted: None,
        predicted_interval: None,
        measured: None,
        kept: None,
        proposed: result.proposed,
        scored: result.scored,
        measurements,
        search_seconds: result.seconds + searched_extra,
        measure_seconds: 0.0,
        warnings,
        ranked: result.ranked.clone(),
        finalists: Vec::new(),
        original_seconds: None,
        source: Source::Search,
        notes: Vec::new(),
        vector_width: None,
    };
    let identity = result.identity();
    let ratio = |s: &Scored| s.score / identity;
    if cfg.evaluator == EvaluatorKind::Model {
        let model = model.ok_or(SearchError::NoModel)?;
        match model_choice(&result, &members, model, cfg.confidence, &mut decision.warnings)? {
            Ok((s, i)) => {
                decision.predicted = Some(i.point);
                decision.predicted_interval = i.is_spread().then_some((i.lo, i.hi));
                decision.schedule = s;
            }
            Err(why) => decision.kept = Some(why),
        }
        return Ok(decision);
    }
    // Hybrid and execution: measure the finalists and the original side by side, keep the
    // fastest measured.
    // Measured scores need no diversity: the execution search's best k are its finalists.
    let mut finalists: Vec<&Scored> = match cfg.evaluator {
        EvaluatorKind::Execution => {
            result.ranked.iter().filter(|s| !s.schedule.is_identity()).take(cfg.measure_top_k).collect()
        }
        _ => hybrid_finalists(program, &result, cfg.measure_top_k),
    };
    // Hybrid: the best completion of each fusion the beam dropped, measured beside them.
    let fused: Vec<Scored> = match (cfg.evaluator, model) {
        (EvaluatorKind::Hybrid, Some(model)) => {
            let searching = Instant::now();
            let found = fusion_completions(func, program, model, cfg.search, &result, &finalists);
            decision.search_seconds += searching.elapsed().as_secs_f64();
            decision.proposed += found.proposed;
            decision.scored += found.scored;
            found.best
        }
        _ => Vec::new(),
    };
    // Seeds the search did not rank (or ranked below the finalists) are measured too; one it
    // never scored has no prediction (NaN).
    let mut unscored: Vec<Scored> = Vec::new();
    for seed in cfg.seeds.iter().chain(&model_pick) {
        if seed.is_identity() || finalists.iter().any(|f| &f.schedule == seed) || unscored.iter().any(|u| &u.schedule == seed) {
            continue;
        }
        unscored.push(result.ranked.iter().find(|r| &r.schedule == seed).cloned().unwrap_or(Scored { schedule: seed.clone(), score: f32::NAN }));
    }
    for f in fused {
        if !finalists.iter().any(|s| s.schedule == f.schedule) && !unscored.iter().any(|u| u.schedule == f.schedule) {
            unscored.push(f);
        }
    }
    finalists.extend(unscored.iter());
    if finalists.is_empty() {
        decision.kept = Some("no legal schedule to try".into());
        return Ok(decision);
    }
    let started = Instant::now();
    // A variant several times slower than the original cannot win: cut off after its check
    // run (which still compares its outputs), as in the execution search. Without it a short
    // kernel's parallel neighbours at 0.01x took most of the pass's time at the repetitions
    // its measuring again asks for (depthwise-conv: 14-19 s of 500 runs each).
    let final_measure = crate::measure::MeasureConfig { cutoff: cfg.final_measure.cutoff.or(Some(SEARCH_CUTOFF)), ..cfg.final_measure.clone() };
    let mut ev = match ExecutionEvaluator::new(func, final_measure) {
        Ok(ev) => ev,
        Err(e) => {
            // Hybrid without a way to run the function: the model's choice, said so.
            let why = format!("the finalists could not be measured ({e}); the model's choice stands unmeasured");
            decision.warnings.push(why);
            let best = finalists[0];
            if best.score.is_finite() && best.score > identity * MIN_PREDICTED_GAIN {
                decision.predicted = Some(ratio(best));
                decision.schedule = best.schedule.clone();
            } else {
                decision.kept = Some("no schedule was predicted faster".into());
            }
            return Ok(decision);
        }
    };
    let schedules: Vec<Schedule> = finalists.iter().map(|s| s.schedule.clone()).collect();
    let mut speedups = ev.evaluate(&schedules)?;
    // A kernel of a few milliseconds or less is at the mercy of timer and scheduling noise
    // over a handful of runs: measure it again with enough repetitions to fill about
    // REPEAT_BUDGET seconds per variant.
    if let Some(t) = ev.original_seconds.filter(|&t| t > 0.0 && t < SHORT_KERNEL_SECONDS) {
        let reps = ((REPEAT_BUDGET / t) as usize).max(cfg.final_measure.reps).min(500.max(cfg.final_measure.reps));
        log::debug!("original runs in {:.3} ms: measuring the finalists again with {reps} repetitions", t * 1e3);
        ev.set_reps(reps);
        // The first round's warnings and notes would come again.
        ev.warnings.clear();
        ev.unsteady.clear();
        speedups = ev.evaluate(&schedules)?;
    }
    let best = finalists
        .iter()
        .zip(&speedups)
        .filter_map(|(s, m)| m.map(|m| (*s, m as f64)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.schedule.to_string().cmp(&a.0.schedule.to_string())));
    // Hybrid: the fastest finalist against itself with its parallel loops chosen otherwise,
    // measured in one run ([`parallel_neighbours`]). Its own figure there is a second
    // measurement of it; a neighbour that wins is confirmed below like any winner.
    let mut neighbours: Vec<(Scored, f64)> = Vec::new();
    // The fastest finalist's first figure, where the neighbours' run measured it again.
    let mut confirmed_here = None;
    let best = match best {
        Some((s, m)) if cfg.evaluator == EvaluatorKind::Hybrid => {
            let others = parallel_neighbours(func, program, &s.schedule);
            if others.is_empty() {
                Some((s, m))
            } else {
                log::debug!("measuring {} with its parallel loops chosen otherwise ({} schedules)", s.schedule, others.len());
                let mut round = vec![s.schedule.clone()];
                round.extend(others.iter().cloned());
                let measured = ev.evaluate(&round)?;
                for (o, m) in others.into_iter().zip(&measured[1..]) {
                    if let Some(m) = m {
                        let score = result.ranked.iter().find(|r| r.schedule == o).map_or(f32::NAN, |r| r.score);
                        neighbours.push((Scored { schedule: o, score }, *m as f64));
                    }
                }
                let again = measured[0].map(|a| a as f64);
                let top = neighbours.iter().max_by(|a, b| a.1.total_cmp(&b.1)).filter(|n| again.is_none_or(|a| n.1 > a));
                match top {
                    Some((n, m)) => Some((n, *m)),
                    None => match again {
                        Some(a) => {
                            confirmed_here = Some(m);
                            Some((s, a))
                        }
                        // Not measured again: confirmed below as if there were no neighbours.
                        None => Some((s, m)),
                    },
                }
            }
        }
        other => other,
    };
    // The best of k noisy ratios overstates its own speedup (and a tie with the original
    // can clear the margin by luck): the winner is measured again against the original in
    // a run of its own, and that figure decides and is reported.
    // A first figure that did not clear the margin was never a winner to confirm.
    let mut first_round = confirmed_here.filter(|&m| m > MIN_MEASURED_GAIN);
    let best = match best {
        Some((s, m)) if m > MIN_MEASURED_GAIN && confirmed_here.is_none() => {
            first_round = Some(m);
            ev.evaluate(std::slice::from_ref(&s.schedule))?[0].map(|confirmed| (s, confirmed as f64))
        }
        other => other,
    };
    // On a host with 512-bit vectors, where nothing asks for a width: the winner compiled for
    // them too, in one run with itself at LLVM's default (256 bits). Neither rounds
    // differently (LLVM vectorizes only what it may without reassociating; the outputs are
    // compared as every candidate's are); the wider one is taken where it runs faster by the
    // margin. hybrid's gemm schedule ran 29.7 ms at the default width and 23.5 ms with 512-bit
    // vectors on a 2-core Xeon (benchmarks/RESULTS-xeon.md).
    let wider = match (best, cfg.wider_vectors_for(func)) {
        (Some((s, m)), Some(bits)) if m > MIN_MEASURED_GAIN => {
            log::debug!("measuring {} with {bits}-bit vectors", s.schedule);
            // An optional round: if it cannot be measured, the decision stands without it.
            match ev.evaluate_widths(&s.schedule, bits) {
                Ok([Some(at_default), Some(at_bits)]) if f64::from(at_bits) > f64::from(at_default) * MIN_MEASURED_GAIN => {
                    Some(WiderVectors { bits, speedup: at_bits.into(), default_speedup: at_default.into() })
                }
                Ok([at_default, at_bits]) => {
                    log::debug!("{bits}-bit vectors: {at_bits:?} against {at_default:?} at the default width: not taken");
                    None
                }
                Err(e) => {
                    log::info!("{} with {bits}-bit vectors could not be measured: {e}", s.schedule);
                    None
                }
            }
        }
        _ => None,
    };
    decision.finalists = finalists
        .iter()
        .zip(&speedups)
        .filter_map(|(s, m)| m.map(|m| (s.schedule.clone(), m as f64)))
        .chain(neighbours.iter().map(|(s, m)| (s.schedule.clone(), *m)))
        .map(|(s, m)| match best {
            Some((b, confirmed)) if b.schedule == s => (s, confirmed),
            _ => (s, m),
        })
        .collect();
    decision.original_seconds = ev.original_seconds;
    measurements += ev.measured;
    decision.measurements = measurements;
    decision.warnings.append(&mut ev.warnings);
    decision.notes.append(&mut ev.unsteady);
    decision.measure_seconds = started.elapsed().as_secs_f64();
    match best {
        Some((s, m)) if m > MIN_MEASURED_GAIN => {
            decision.schedule = s.schedule.clone();
            decision.measured = Some(wider.map_or(m, |w| w.speedup));
            decision.vector_width = wider;
            if cfg.evaluator == EvaluatorKind::Hybrid && s.score.is_finite() {
                decision.predicted = Some(ratio(s));
            }
        }
        Some((s, m)) => {
            decision.kept = Some(match first_round {
                Some(first) => format!(
                    "the fastest finalist, {} ({first:.2}x), was not confirmed by a second measurement ({m:.2}x)",
                    s.schedule
                ),
                None => format!(
                    "no finalist was measured faster than the original by more than {:.0}% (best {m:.2}x)",
                    (MIN_MEASURED_GAIN - 1.0) * 100.0
                ),
            });
        }
        None => decision.kept = Some("no finalist could be measured".into()),
    }
    Ok(decision)
}

impl Decision {
    /// Applies the decision to `func`: its schedule, then the vector width measured with it
    /// (where one was chosen); `func` is unchanged where the schedule fails.
    pub fn apply(&self, func: Op) -> Result<(), transform::TransformError> {
        transform::apply(func, &self.schedule)?;
        if let Some(w) = self.vector_width {
            transform::prefer_vector_width(func, w.bits);
        }
        Ok(())
    }

    /// The width `func` is compiled for with this decision: `option`'s (the user's), else the
    /// one the measurement chose.
    pub fn vector_bits(&self, option: Option<u32>) -> Option<u32> {
        option.or(self.vector_width.map(|w| w.bits))
    }

    /// A short line of the evidence (for the comment of a Transform-dialect script).
    pub fn evidence(&self, evaluator: EvaluatorKind) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.measured {
            parts.push(format!("measured {m:.2}x"));
        }
        if let Some(w) = self.vector_width {
            parts.push(format!("with prefer-vector-width={} ({:.2}x at the default width)", w.bits, w.default_speedup));
        }
        if let Some(p) = self.predicted {
            parts.push(format!("predicted {p:.2}x"));
        }
        match &self.source {
            Source::Records(o) => parts.push(format!("from the tuning records ({}, {})", o.evaluator, format_date(o.measured_at))),
            Source::Search => parts.push(format!("evaluator {}", evaluator.name())),
        }
        if let Some(k) = &self.kept {
            parts.push(k.clone());
        }
        parts.join(", ")
    }

    /// One line for the remark and the command line: what was chosen (or why nothing was),
    /// the predicted and measured speedups, and what the search cost.
    pub fn summary(&self, function: &str, evaluator: EvaluatorKind) -> String {
        if let Source::Records(origin) = &self.source {
            let when = format!("on {} by evaluator {}", format_date(origin.measured_at), origin.evaluator);
            let width = self.vector_width.map_or(String::new(), |w| format!(" with prefer-vector-width={}", w.bits));
            return match self.measured {
                _ if self.schedule.is_identity() => {
                    let why = self.kept.as_deref().unwrap_or("no schedule was measured faster");
                    format!("@{function}: kept the original, from the tuning records: {why} ({when}; no search, no measurement)")
                }
                Some(m) => format!(
                    "@{function}: applied {}{width}, from the tuning records (measured speedup {m:.2}x {when}; no search, no measurement)",
                    self.schedule
                ),
                None => format!("@{function}: applied {}{width}, from the tuning records ({when})", self.schedule),
            };
        }
        let mut cost = format!("evaluator {}, {} candidates scored", evaluator.name(), self.scored);
        if self.measurements > 0 {
            cost.push_str(&format!(", {} measured", self.measurements));
        }
        cost.push_str(&format!(", search {:.2} s", self.search_seconds));
        if self.measure_seconds > 0.0 {
            cost.push_str(&format!(", measuring finalists {:.2} s", self.measure_seconds));
        }
        if self.schedule.is_identity() {
            let why = self.kept.as_deref().unwrap_or("no schedule was chosen");
            return format!("@{function}: kept the original: {why} ({cost})");
        }
        let mut gains = Vec::new();
        match (self.predicted, self.predicted_interval) {
            (Some(p), Some((lo, hi))) => gains.push(format!("predicted speedup {p:.2}x [{lo:.2}x, {hi:.2}x]")),
            (Some(p), None) => gains.push(format!("predicted speedup {p:.2}x")),
            _ => {}
        }
        match (self.measured, self.vector_width) {
            (Some(m), Some(w)) => gains.push(format!(
                "measured speedup {m:.2}x with prefer-vector-width={} ({:.2}x at LLVM's default width in the same run)",
                w.bits, w.default_speedup
            )),
            (Some(m), None) => gains.push(format!("measured speedup {m:.2}x")),
            _ => {}
        }
        format!("@{function}: applied {} ({}; {cost})", self.schedule, gains.join(", "))
    }
}

/// `YYYY-MM-DD HH:MM UTC` of a Unix time (the civil calendar from days since 1970-01-01).
pub fn format_date(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil: eras of 400 years of 146,097 days, from 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", secs / 3600, secs % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_beam_takes_one_place_per_program() {
        let s = |text: &str, score: f32| Scored { schedule: text.parse().unwrap(), score };
        // A stand-in for `loop_structure`: both interchanges build the same nest.
        let nest = |sch: &Schedule| if structure(sch).is_empty() { "ijk".to_string() } else { "ikj".to_string() };
        let states = vec![
            s("interchange(L0, L0.0.0, L0.0); tile(L0:32)", 3.0),
            s("interchange(L0.0.0, L0.0); tile(L0:32)", 3.0),
            s("interchange(L0.0.0, L0.0); tile(L0:64)", 2.0),
            s("tile(L0:32)", 1.0),
        ];
        let beam: Vec<String> = select_beam(states, 3, nest).iter().map(|x| x.schedule.to_string()).collect();
        // The second is the first program again (ties break on the text): it takes no place.
        assert_eq!(beam, ["interchange(L0, L0.0.0, L0.0); tile(L0:32)", "interchange(L0.0.0, L0.0); tile(L0:64)", "tile(L0:32)"]);
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(format_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(format_date(1_795_000_000), "2026-11-18 11:06 UTC");
    }

    #[test]
    fn an_error_interval_is_taken_over_the_originals_point() {
        // An interval [1.0, 4.0] (point 2) against an original predicted [0.5, 2.0] (point 1):
        // the schedule's ends over the original's point, not over its ends (which would give
        // [2, 2]: no width).
        let i = Interval::of(&[1.0, 4.0], &[0.5, 2.0], true);
        assert!((i.point - 2.0).abs() < 1e-6 && (i.lo - 1.0).abs() < 1e-6 && (i.hi - 4.0).abs() < 1e-6, "{i:?}");
        let members = Interval::of(&[1.0, 4.0], &[0.5, 2.0], false);
        assert!((members.lo - 2.0).abs() < 1e-6 && (members.hi - 2.0).abs() < 1e-6);
    }

    #[test]
    fn the_pessimistic_pool_reaches_past_the_best_ranked_few() {
        let sched = |n: i64| format!("tile(L0:{n})").parse::<Schedule>().unwrap();
        let mut ranked: Vec<Scored> = (0..20).map(|i| Scored { schedule: sched(4 + i), score: 3.0 - 0.1 * i as f32 }).collect();
        ranked.insert(3, Scored { schedule: Schedule::default(), score: 1.0 });
        // Points 3.0 down to 1.1 over an identity of 1.0: every schedule but the identity
        // clears the margin and is weighed, far beyond the first eight.
        let pool = pessimistic_pool(&ranked, 1.0);
        assert_eq!(pool.len(), 20);
        assert!(pool.iter().all(|s| !s.is_identity()));
        // Against a faster identity, only the schedules whose point clears the margin remain.
        let pool = pessimistic_pool(&ranked, 2.0);
        assert!(pool.iter().all(|s| ranked.iter().find(|r| &&r.schedule == s).unwrap().score / 2.0 > MIN_PREDICTED_GAIN));
        assert_eq!(pool.len(), 9);
    }

    #[test]
    fn the_most_pessimistic_member_decides() {
        let (a, b, c) = ("tile(L0:32)".parse::<Schedule>().unwrap(), "parallelize(L0)".parse::<Schedule>().unwrap(), "unroll(L0:4)".parse::<Schedule>().unwrap());
        // Members' predictions of the original and of three schedules.
        let original = [1.0, 1.0, 2.0];
        let wide = Interval::of(&[3.0, 1.0, 4.0], &original, false); // ratios 3, 1, 2
        let narrow = Interval::of(&[1.5, 1.4, 2.8], &original, false); // ratios 1.5, 1.4, 1.4
        let worse = Interval::of(&[1.0, 0.9, 2.0], &original, false);
        assert_eq!((wide.lo, wide.hi), (1.0, 3.0));
        assert!((wide.point - 6f32.powf(1.0 / 3.0)).abs() < 1e-5);
        assert!(wide.is_spread());
        // The wide one has the best point estimate; the narrow one the best worst case.
        let choice = pessimistic_choice(&[(&a, wide), (&b, narrow), (&c, worse)]).unwrap();
        assert_eq!(choice.0, &b);
        // Nobody's worst case clears the margin: keep the original.
        assert!(pessimistic_choice(&[(&a, wide), (&c, worse)]).is_none());
        // One network: the point is its own worst case, as before ensembles.
        let single = Interval::of(&[1.2], &[1.0], false);
        assert!(!single.is_spread());
        assert_eq!(pessimistic_choice(&[(&a, single)]).unwrap().0, &a);
    }
}
