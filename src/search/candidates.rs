//! Candidate steps for one stage of the search, from the schedule built so far.
//!
//! Each kind proposes its own (`schedule::kinds::<kind>`, `candidates` and
//! `combinations`), following the current loop tree (the schedule applied symbolically by
//! [`crate::schedule::tree`]); they are only candidates: the search keeps those the
//! transformation layer accepts (exact legality). The stages are the kinds, in registry
//! order (distribution first: it turns an imperfect nest into nests that the later stages
//! can interchange and tile).

use crate::ir::Program;
use crate::schedule::tree::Scheduled;
use crate::schedule::{Schedule, Transform};
pub use crate::schedule::{Stage, STAGES};

/// The candidate steps of `stage` after `schedule`, in a deterministic order.
pub fn candidates(program: &Program, schedule: &Schedule, stage: Stage) -> Vec<Transform> {
    let Ok(tree) = Scheduled::new(program, schedule) else { return Vec::new() };
    let mut out = stage.candidates(program, &tree);
    out.dedup();
    out
}

/// Steps of one stage taken together, from the single steps of that stage found legal after
/// `schedule` (in candidate order). One step per stage leaves all but one nest of a
/// multi-nest program untouched (the two sweeps of a stencil under its time loop); the
/// kinds that have combinations give every nest the same kind of step at once (see each
/// kind's `combinations`). Only combinations of two or more steps are returned; the caller
/// checks their legality as a whole.
pub fn combinations(program: &Program, schedule: &Schedule, stage: Stage, legal: &[Transform]) -> Vec<Vec<Transform>> {
    let Ok(tree) = Scheduled::new(program, schedule) else { return Vec::new() };
    stage.combinations(program, &tree, legal)
}

/// Sequences of steps that begin at this stage and go on with later stages' steps, from the
/// single steps of the stage found legal after `schedule` (each kind's `lookahead`): the
/// caller checks their legality as a whole.
pub fn lookahead(program: &Program, schedule: &Schedule, stage: Stage, legal: &[Transform]) -> Vec<Vec<Transform>> {
    let Ok(tree) = Scheduled::new(program, schedule) else { return Vec::new() };
    stage.lookahead(program, &tree, legal)
}
