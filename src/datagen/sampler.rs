//! Random schedules for a program: random walks through the search's own space. At each of
//! the search's stages, in its order (a [`Walk::Short`] takes each with its kind's
//! `WALK_PROBABILITY` and skips the rest, so that short schedules are common in the data, as
//! they are among the beam's states; a [`Walk::Long`] takes nearly every stage, so that the
//! data also holds schedules as long as the ones the search ends with), the walk takes one
//! of the steps the search would propose there ([`candidates`]), or one of the search's
//! combinations of that stage's legal steps ([`combinations`]) — or, in a
//! [`Walk::Lookahead`], one of its lookahead sequences ([`lookahead`]) —, chosen among those the
//! transformation layer accepts after the walk so far, decided as the search decides it
//! ([`StateCheck`]). So every schedule the beam search can make has a nonzero probability of
//! being measured, and no schedule is measured that the search could not make: the stage
//! list, the tile sizes, unroll factors and vector widths are the search's, defined once in
//! each kind's file (`schedule::kinds`).

use super::rng::Rng;
use crate::ir::{mlir::Op, Program};
use crate::schedule::{Schedule, Transform};
use crate::search::candidates::{candidates, combinations, lookahead, STAGES};
use crate::search::{self, SearchConfig, StateCheck, MAX_STEPS};
use crate::transform::Prefix;
use std::collections::HashMap;

/// Candidates tried per stage before the walk gives the stage up: legality checks cost a
/// clone of the function each, and a stage with hundreds of candidates (interchange of a
/// deep nest) needs only a few legal ones to choose from.
const TRIES_PER_STAGE: usize = 12;

/// How often the walk takes a combination at a stage that has them (the same kind of step
/// for every nest at once), instead of a single step, when one applies.
const COMBINATION_PROBABILITY: f64 = 0.35;

/// How often a [`Walk::Long`] takes a step at a stage (whatever its kind), and a combination
/// where the stage has them. The search's final schedules hold a step of most stages (5 to
/// 12 steps on the benchmark kernels), which short walks make only rarely (about 2% of their
/// schedules have 8 steps or more).
const LONG_STAGE_PROBABILITY: f64 = 0.85;
const LONG_COMBINATION_PROBABILITY: f64 = 0.5;

/// How often a [`Walk::Lookahead`] takes one of a stage's lookahead sequences where the
/// stage has them (a contraction band at the Tile stage: a register tile, packed or not).
const LOOKAHEAD_SEQUENCE_PROBABILITY: f64 = 0.8;

/// How often a [`Walk::Lookahead`] takes one of the Interchange stage's lookahead sequences
/// (register tiles of the loops as they are, untiled): less than the later stages' (the
/// Tile stage's tiled register tiles), which it would otherwise crowd out of the walks of
/// every contraction, as each stage with sequences comes after it.
const EARLY_LOOKAHEAD_SEQUENCE_PROBABILITY: f64 = 0.25;

fn lookahead_probability(stage: crate::schedule::Stage) -> f64 {
    if STAGES.iter().position(|s| *s == stage) < STAGES.iter().position(|s| *s == crate::schedule::Stage::Tile) {
        EARLY_LOOKAHEAD_SEQUENCE_PROBABILITY
    } else {
        LOOKAHEAD_SEQUENCE_PROBABILITY
    }
}

/// How a walk decides, at each stage, whether to take a step there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// Each stage with its kind's `WALK_PROBABILITY`: mostly short schedules.
    Short,
    /// Each stage with [`LONG_STAGE_PROBABILITY`]: schedules as long as the search's.
    Long,
    /// A long walk that takes, where a stage has them, one of the search's lookahead
    /// sequences (`TransformKind::lookahead`: a contraction band tiled, accumulating and
    /// unrolled-and-jammed into a register tile in one step, its input packed or not), then
    /// goes on from the stage of the sequence's last step as the search's states do. A
    /// short or long walk reaches a register tile only through three stages' choices in a
    /// row, so the data held few of the schedules the lookahead makes the search propose.
    Lookahead,
}

impl Walk {
    fn stage_probability(self, stage: crate::schedule::Stage) -> f64 {
        match self {
            Walk::Short => stage.walk_probability(),
            Walk::Long | Walk::Lookahead => LONG_STAGE_PROBABILITY,
        }
    }

    fn combination_probability(self) -> f64 {
        match self {
            Walk::Short => COMBINATION_PROBABILITY,
            Walk::Long | Walk::Lookahead => LONG_COMBINATION_PROBABILITY,
        }
    }
}

/// The version of the search's space that walks draw from, recorded with every point: a
/// change to the candidates, combinations, lookahead sequences or depth rule that changes
/// what a seed's walks draw takes a new one. 2: since 2026-11-29's every-band register tiles
/// and per-nest depth; the points from before carry none (read as 0). 3: since 2026-12-05's
/// register tiles also sized in whole register tiles (partial last tiles peeled). 4: since
/// 2026-12-05's 6x16 register tiles, both inputs packed with the columns outside, and
/// copies that take a loop-invariant scale of their values (gemm's alpha * A[i][k]). 5: since
/// 2026-12-05's register tiles that leave at most a quarter of their loops to clean-up
/// copies (`unroll::MAX_CLEANUP_SHARE`); the same day, the code of every register tile jammed
/// rows first changed under the same schedule text (its accumulators in memory order,
/// passes/kinds/Unroll.cpp): points of earlier spaces measured those tiles slower. 6: since
/// 2026-12-05 evening's register tiles only in tiles they divide (`unroll::register_tile_mostly_whole`).
/// 7: since the same evening's register tiles only where an input read along the columns is
/// invariant along the rows (`unroll::register_tile_shaped`). 8: since 2026-12-05 night's
/// copies in another order (`pack(L, %argN, [1, 0])`: at a nest's root, and the register
/// tiles' row-invariant input where the columns read it across its rows). 9: since
/// 2026-12-06's register tiles of the loops as they are, proposed at the Interchange and
/// Accumulate stages, whose rows need not be right above the columns nor the reduction one
/// loop deep (`unroll::register_tile_loops`: pointwise-conv's k over h and w, conv2d's c, r
/// and s), and no jams inside a jammed loop. 10: since 2026-12-06 afternoon's register tiles
/// sized for themselves (`tile_sizes::choose_register`: the block their point loops sweep kept
/// in L1) instead of the analytic model's cache tile made whole register tiles. 11: since
/// 2026-12-07's cache tiles whose lines crowd no 64-byte slot of a page beyond its share of
/// the budget (`tile_sizes::PAGE_SLOTS`: rows a multiple of 4 KiB apart, dense's `W[o][i]`),
/// which changed the sizes the Tile stage offers for a register tile (`choose_interleaved`).
/// 12: since 2026-12-07 afternoon's register tiles whose swept block may fill one and a half
/// times the L1 (`tile_sizes::L1_SHARE`): longer k tiles.
pub const SPACE: u32 = 12;

/// The first space with steps that peel a partial tile (unroll or vectorize of a tiled loop
/// whose tile does not divide it): a model whose data is older never saw their code.
pub const SPACE_PEELING: u32 = 3;

/// One random walk through the search's space for `func` (whose representation is
/// `program`), at most `max_depth` steps on any one nest. `func` is not changed. Every step was accepted by
/// the transformation layer after the steps before it, so the schedule applies as a whole.
pub fn walk(func: Op, program: &Program, rng: &mut Rng, max_depth: usize, kind: Walk) -> Schedule {
    let mut schedule = Schedule::default();
    // The walk's states without their unrolls (see [`StateCheck`]).
    let mut bases = HashMap::new();
    // The walk so far applied to a clone of `func`, extended by each stage's choice with the
    // analyses its check ran skipped (as the search extends its beam): replaying the walk at
    // every stage re-ran each parallelization's dependence analysis on unrolled bodies.
    let mut current: Option<Prefix> = None;
    let position = |stage| STAGES.iter().position(|s| *s == stage);
    for &stage in STAGES {
        // A lookahead sequence decided the stages up to its last step's (as it does for the
        // search's states). Only lookahead walks have steps of later stages, so the other
        // walks draw from their streams as before.
        if schedule.steps.iter().any(|t| position(t.stage()) > position(stage)) {
            continue;
        }
        if schedule.steps.len() >= MAX_STEPS || !rng.chance(kind.stage_probability(stage)) {
            continue;
        }
        let mut steps = candidates(program, &schedule, stage);
        if steps.is_empty() {
            continue;
        }
        let prefix = match current.take() {
            Some(p) => p,
            None => match Prefix::new(func, &schedule) {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        // The step (or combination) taken here; None if no candidate is legal.
        let chosen = 'stage: {
            let state = StateCheck::new(func, program, &prefix, &schedule);
            // A combination is made of the stage's legal steps: then every candidate is
            // tried, as the search does, and in its order (a kind may combine only its first
            // legal steps, as tile's second level does).
            let combine = stage.has_combinations() && rng.chance(kind.combination_probability());
            if !combine {
                rng.shuffle(&mut steps);
            }
            let tries = if combine { steps.len() } else { TRIES_PER_STAGE };
            let mut legal: Vec<Transform> = Vec::new();
            for step in steps.into_iter().take(tries) {
                if state.check(std::slice::from_ref(&step), &mut bases).is_ok() {
                    legal.push(step);
                }
            }
            if legal.is_empty() {
                break 'stage None;
            }
            let fits = |more: &[Transform]| search::fits(&schedule, more, SearchConfig { beam_width: 1, max_depth });
            let legal: Vec<Transform> = legal.into_iter().filter(|t| fits(std::slice::from_ref(t))).collect();
            if legal.is_empty() {
                break 'stage None;
            }
            if kind == Walk::Lookahead {
                let mut ahead: Vec<Vec<Transform>> =
                    lookahead(program, &schedule, stage, &legal).into_iter().filter(|c| fits(c)).collect();
                if !ahead.is_empty() && rng.chance(lookahead_probability(stage)) {
                    rng.shuffle(&mut ahead);
                    if let Some(sequence) = ahead.into_iter().find(|c| state.check(c, &mut bases).is_ok()) {
                        break 'stage Some(sequence);
                    }
                }
            }
            let mut combos: Vec<Vec<Transform>> =
                combinations(program, &schedule, stage, &legal).into_iter().filter(|c| fits(c)).collect();
            if combine && !combos.is_empty() {
                rng.shuffle(&mut combos);
                if let Some(combo) = combos.into_iter().find(|c| state.check(c, &mut bases).is_ok()) {
                    break 'stage Some(combo);
                }
            }
            Some(vec![rng.pick(&legal).clone()])
        };
        match chosen {
            Some(chosen) => {
                schedule.steps.extend(chosen.iter().cloned());
                // On a failure the next stage builds it again (and stops the walk there).
                current = prefix.extend_checked(&chosen).ok();
            }
            None => current = Some(prefix),
        }
    }
    schedule
}

/// A walk like [`walk`] without the legality checks, for unlabeled data (pre-training the
/// computation encoder needs only what the featurizer makes of a schedule, not its legality
/// or a measurement): at each stage, one of the search's candidates, untested. No MLIR is
/// touched, so it costs microseconds.
pub fn walk_unchecked(program: &Program, rng: &mut Rng, max_depth: usize) -> Schedule {
    let mut schedule = Schedule::default();
    for &stage in STAGES {
        if schedule.steps.len() >= max_depth || !rng.chance(stage.walk_probability()) {
            continue;
        }
        let steps = candidates(program, &schedule, stage);
        if !steps.is_empty() {
            schedule.steps.push(rng.pick(&steps).clone());
        }
    }
    schedule
}
