//! Deciding a parallelize after unrolls on the state without them: the unrolled body
//! holds k copies of every access (k^2 times the pairs the dependence analysis weighs; a
//! 4x32 register tile made one check take 7-9 s), the state before the unrolls one.
//! The search's checks ([`crate::search::StateCheck`]) and [`super::apply`] both use it.

use super::{verdict, Prefix, TransformError};
use crate::ir::{mlir::Op, Program};
use crate::schedule::kinds::Parallelize;
use crate::schedule::tree::Scheduled;
use crate::schedule::{LoopName, Schedule, Transform};
use crate::transform::ffi::Call;

/// A state without its last unrolls.
pub struct Base {
    /// The schedule without them.
    pub schedule: Schedule,
    /// Its loop tree.
    pub tree: Scheduled,
    /// The loops they unrolled.
    pub unrolled: Vec<LoopName>,
}

/// A state ending in unrolls, without them: its schedule, loop tree and the unrolled loops.
/// Unrolling (and unroll-and-jam) reorders and regroups iterations of the unrolled loop
/// only, inside one iteration of every loop around it: a loop around it carries exactly the
/// dependences it carried, and the unrolled loop itself none it did not (a new iteration is
/// a block of old ones; at worst a base that finds it sequential refuses a legal step). So
/// whether such a loop can run in parallel is decided on the base, where the body has not
/// been copied k times (k^2 times the pairs of accesses to analyse), and several states
/// share one base. A loop inside an unroll-and-jammed one only on a condition
/// ([`decided_at_base`]): jamming merges iterations of the outer loop into it.
pub fn unroll_base(program: &Program, schedule: &Schedule) -> Option<Base> {
    let n = schedule.steps.iter().rev().take_while(|t| matches!(t, Transform::Unroll(_))).count();
    if n == 0 {
        return None;
    }
    let cut = schedule.steps.len() - n;
    let unrolled = schedule.steps[cut..]
        .iter()
        .filter_map(|t| match t {
            Transform::Unroll(u) => Some(u.target.clone()),
            _ => None,
        })
        .collect();
    let base = Schedule { steps: schedule.steps[..cut].to_vec() };
    let tree = Scheduled::new(program, &base).ok()?;
    Some(Base { schedule: base, tree, unrolled })
}

/// Whether `step`'s dependences are decided on the base of [`unroll_base`], and on which
/// condition: a parallelize is, given that each unrolled loop around its loop (returned)
/// carries no dependence at the base (the unrolled loop itself, or one inside it, needs
/// nothing). Jamming merges a block of the outer loop's iterations into one; two instances
/// that meet in one iteration of every loop around the parallel loop but in different
/// iterations of it then either differ first at a jammed loop around it (a dependence that
/// loop carries at the base) or at the loop itself (one it carries there). So with the
/// jammed loops quiet at the base, the loop's own verdict there holds for the state.
pub fn decided_at_base(
    program: &Program,
    tree: &Scheduled,
    step: &Transform,
    unrolled: &[LoopName],
) -> Option<Vec<LoopName>> {
    let Transform::Parallelize(p) = step else { return None };
    let n = tree.node_named(program, &p.target)?;
    let mut around = Vec::new();
    for u in unrolled {
        let x = tree.node_named(program, u)?;
        if x != n && tree.inside(n, x) {
            around.push(u.clone());
        }
    }
    Some(around)
}

/// The jammed loops that must carry nothing at `base` for all of `steps` to be decided
/// there ([`decided_at_base`] of each, together), or None where a step is not.
pub fn jammed_around(program: &Program, base: &Base, steps: &[Transform]) -> Option<Vec<LoopName>> {
    let mut around = Vec::new();
    for t in steps {
        around.extend(decided_at_base(program, &base.tree, t, &base.unrolled)?);
    }
    around.sort();
    around.dedup();
    Some(around)
}

/// Whether each loop of `around` carries nothing on `at_base` (a parallelize of it passes
/// there; each verdict kept in the base's memo).
pub fn quiet_at(at_base: &Prefix, around: &[LoopName]) -> bool {
    around.iter().all(|l| at_base.check(&[Transform::Parallelize(Parallelize { target: l.clone() })]).is_ok())
}

/// Step `i` of `schedule` (a parallelize) applied to `clone` (which holds the steps before
/// it) with its dependences decided on the state before the unrolls that precede it (and
/// the parallelizes between them), where [`decided_at_base`] allows and the base accepts
/// it: the checks that do not weigh dependences run on `clone`, then the step is applied
/// without its analysis. None where that does not hold (the caller applies the step with
/// every check: a refusal's reason is then the one the whole state gives).
/// `bases` keeps the base's clone for the next steps of the same run of parallelizes.
pub(super) fn apply_decided_at_base(
    func: Op,
    program: &Program,
    schedule: &Schedule,
    i: usize,
    clone: mlir_sys::MlirOperation,
    bases: &mut Option<(usize, Option<Prefix>)>,
) -> Option<Result<(), TransformError>> {
    let step = &schedule.steps[i];
    let Transform::Parallelize(target) = step else { return None };
    let mut j = i;
    while j > 0 && matches!(schedule.steps[j - 1], Transform::Parallelize(_)) {
        j -= 1;
    }
    let before = Schedule { steps: schedule.steps[..j].to_vec() };
    let base = unroll_base(program, &before)?;
    let around = jammed_around(program, &base, std::slice::from_ref(step))?;
    // Parallelizes applied since the unrolls must not nest with this one (the search never
    // proposes that; a hand-written schedule is checked whole).
    let n = base.tree.node_named(program, &target.target)?;
    for t in &schedule.steps[j..i] {
        let Transform::Parallelize(p) = t else { return None };
        let m = base.tree.node_named(program, &p.target)?;
        if m == n || base.tree.inside(n, m) || base.tree.inside(m, n) {
            return None;
        }
    }
    if bases.as_ref().is_none_or(|(at, _)| *at != j) {
        *bases = Some((j, Prefix::new(func, &base.schedule).ok()));
    }
    let at_base = bases.as_ref()?.1.as_ref()?;
    if !quiet_at(at_base, &around) || at_base.check(std::slice::from_ref(step)).is_err() {
        return None;
    }
    let mut call = Call::new(clone);
    let status = step.check_given_dependences(&mut call)?;
    if let Err(e) = verdict(i + 1, step, status, call) {
        return Some(Err(e));
    }
    let mut call = Call::new(clone);
    let status = step.apply_checked(&mut call);
    Some(verdict(i + 1, step, status, call))
}
