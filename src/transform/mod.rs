//! `transform`: applies a [`Schedule`] to a function, as a transaction.
//!
//! Rust decides, C++ applies: the steps are checked here against the representation (do
//! the named loops exist at that point of the schedule?), then each step goes to the thin
//! C++ layer (passes/Transforms.cpp), which checks its legality with MLIR's dependence
//! analysis and applies MLIR's own utility. Everything happens on a detached clone of the
//! function; the user's function is replaced only when every step succeeded and the result
//! verifies. Otherwise the error names the step and the reason, and the IR is unchanged.

pub mod base;
pub mod ffi;
pub mod script;

use crate::ir::{self, mlir::Op, Program};
use crate::schedule::kinds::Names;
use crate::schedule::{LoopName, Schedule, Transform};
use ffi::{
    autosched_tx_allow_contraction, autosched_tx_clone, autosched_tx_clone_for, autosched_tx_kept_for, autosched_tx_prefer_vector_width, autosched_tx_preferred_vector_width, autosched_tx_rounding_may_change, autosched_tx_commit, autosched_tx_destroy,
    autosched_tx_strip_tags, autosched_tx_verify, Call,
};
use mlir_sys::{
    mlirBlockAppendOwnedOperation, mlirLocationUnknownGet, mlirModuleCreateEmpty, mlirModuleDestroy, mlirModuleGetBody,
    mlirModuleGetOperation, mlirOperationGetContext, MlirOperation,
};
use std::collections::BTreeSet;

/// The tag the C++ layer finds loops by.
const LOOP_TAG: &str = "autosched.loop";

/// Why the C++ layer refused a step, as its status says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The step is outside what the transformation supports (a shape it does not handle).
    #[error("{0}")]
    Unsupported(String),
    /// The step would break a dependence: the claim the fuzzer's oracle checks.
    #[error("{0}")]
    Dependence(String),
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The step names a loop that does not exist at that point of the schedule.
    #[error("step {step} ({text}): {reason}")]
    BadLoop { step: usize, text: String, reason: String },
    /// The step is illegal or outside what it supports.
    #[error("step {step} ({text}) refused: {why}")]
    Refused {
        step: usize,
        text: String,
        #[source]
        why: Refusal,
    },
    /// An MLIR utility failed midway; the clone was discarded.
    #[error("step {step} ({text}) failed: {reason}")]
    Failed { step: usize, text: String, reason: String },
    #[error("the transformed function does not verify: {0}")]
    Verify(String),
    #[error("{0}")]
    Analysis(String),
}

impl TransformError {
    /// The step a legality verdict is about: refusals and failures of a step (not errors
    /// about its loop names, nor of verification or analysis).
    pub fn verdict_step(&self) -> Option<usize> {
        match self {
            TransformError::Refused { step, .. } | TransformError::Failed { step, .. } => Some(*step),
            _ => None,
        }
    }

    /// The same verdict about the step at position `at` of a schedule (a verdict reused for
    /// another schedule whose steps before it differ).
    pub fn at_step(mut self, at: usize) -> TransformError {
        match &mut self {
            TransformError::BadLoop { step, .. } | TransformError::Refused { step, .. } | TransformError::Failed { step, .. } => *step = at,
            _ => {}
        }
        self
    }

    /// Whether the refusal claims that the step would break a dependence (as opposed to a
    /// step outside what the transformation supports).
    pub fn claims_dependence(&self) -> bool {
        matches!(self, TransformError::Refused { why: Refusal::Dependence(_), .. })
    }
}

/// Applies `schedule` to `func` (a `func.func`), or leaves it unchanged and says why.
pub fn apply(func: Op, schedule: &Schedule) -> Result<(), TransformError> {
    transact(func, schedule, Mode::Commit).map(|_| ())
}

/// Whether `schedule` applies to `func` (legal, verifies), without changing `func`: the
/// steps run on a detached clone that is then discarded.
pub fn check(func: Op, schedule: &Schedule) -> Result<(), TransformError> {
    transact(func, schedule, Mode::Check).map(|_| ())
}

/// As [`check`], with every step's legality analysed on the state it applies to (no
/// parallelize decided before the unrolls that precede it, [`base`]): the reference the
/// shortcut is tested against.
pub fn check_exact(func: Op, schedule: &Schedule) -> Result<(), TransformError> {
    transact_with(func, schedule, Mode::Check, false).map(|_| ())
}

/// One module holding a copy of `func` per `(schedule, name)`, each transformed, renamed and
/// marked for the C interface (what [`crate::measure`] compiles into one library), printed;
/// `func` is not changed. Copies whose schedule fails are left out, with the reason.
pub fn variants_module(func: Op, variants: &[(&Schedule, String)]) -> (String, Vec<Result<(), TransformError>>) {
    let at_width: Vec<(&Schedule, String, Option<u32>)> = variants.iter().map(|(s, n)| (*s, n.clone(), None)).collect();
    variants_module_at(func, &at_width)
}

/// [`variants_module`] with each copy compiled for its own vector width (`prefer-vector-width`
/// set on it, as [`prefer_vector_width`] does; None: the width `func` asks for, if any).
pub fn variants_module_at(func: Op, variants: &[(&Schedule, String, Option<u32>)]) -> (String, Vec<Result<(), TransformError>>) {
    // SAFETY: the module is created in func's context, owns the clones appended to it and
    // is destroyed here; nothing else refers to it.
    unsafe {
        let ctx = mlirOperationGetContext(func.0);
        let module = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
        let body = mlirModuleGetBody(module);
        let mut results = Vec::new();
        for (schedule, name, bits) in variants {
            results.push(transact(func, schedule, Mode::Detach).map(|clone| {
                let clone = clone.expect("detach mode returns the clone");
                clone.set_symbol_name(name);
                clone.set_unit_attr("llvm.emit_c_interface");
                if let Some(bits) = bits {
                    prefer_vector_width(clone, *bits);
                }
                mlirBlockAppendOwnedOperation(body, clone.0);
            }));
        }
        let text = Op(mlirModuleGetOperation(module)).to_text();
        mlirModuleDestroy(module);
        (text, results)
    }
}

/// A function with the first steps of schedules applied, to check many continuations of
/// them (the children of one beam state) without analysing the function and replaying
/// those steps for each: every check clones the prefix, runs the new steps and verifies.
/// Checking `prefix + steps` here is the same as [`check`] on the whole schedule.
pub struct Prefix {
    clone: Op,
    /// Shared by a prefix and those extended from it (the function's loops before any step).
    program: std::rc::Rc<Program>,
    schedule: Schedule,
    /// What kinds' shortcuts learned about the clone (it never changes).
    memo: std::cell::RefCell<crate::schedule::kinds::Memo>,
    /// This prefix extended by the first step of checked combinations, and by the middle
    /// steps of longer ones, by the steps' texts ([`key_of`]).
    extended: std::cell::RefCell<std::collections::HashMap<String, Result<Prefix, TransformError>>>,
    /// This prefix with only some of its nests (the positions of the loops kept,
    /// `autosched_tx_kept_for`), where sequences of steps that touch only those nests are
    /// checked ([`Prefix::check_keeping`]).
    partial: std::cell::RefCell<std::collections::HashMap<Vec<usize>, Prefix>>,
    /// Whether the clone holds only some of the function's nests (one of another prefix's
    /// `partial`): it decides verdicts, never stands for a state.
    is_partial: bool,
}

impl Prefix {
    /// A prefix owning `clone`, `schedule` applied, with nothing learned or kept yet.
    fn holding(clone: Op, program: std::rc::Rc<Program>, schedule: Schedule, is_partial: bool) -> Prefix {
        Prefix { clone, program, schedule, memo: Default::default(), extended: Default::default(), partial: Default::default(), is_partial }
    }

    /// `schedule` applied to a tagged clone of `func` (`func` is not changed).
    pub fn new(func: Op, schedule: &Schedule) -> Result<Prefix, TransformError> {
        let program = ir::analyze_function(func).map_err(|e| TransformError::Analysis(e.to_string()))?.program;
        check_names(&program, schedule)?;
        // SAFETY: func is a live func.func; the clone is detached and owned by the Prefix.
        let clone = Op(unsafe { autosched_tx_clone(func.0) });
        let prefix = Prefix::holding(clone, program.into(), schedule.clone(), false);
        tag_loops(clone)?;
        for (i, step) in schedule.steps.iter().enumerate() {
            run_step(clone.0, i + 1, step)?;
        }
        Ok(prefix)
    }

    /// The transformed clone, printed (tests compare prefixes built in different ways).
    pub fn text(&self) -> String {
        self.clone.to_text()
    }

    /// The prefix followed by `steps`, from this one's clone (the steps run once, not the
    /// whole schedule again): as [`Prefix::new`] on the longer schedule.
    pub fn extend(&self, steps: &[Transform]) -> Result<Prefix, TransformError> {
        self.extend_with(steps, false)
    }

    /// As [`Prefix::extend`], for steps that [`Prefix::check`] (or
    /// [`Prefix::check_from_base`]) accepted on this prefix: the analyses that decided their
    /// verdict are not run again ([`crate::schedule::kinds::TransformKind::apply_checked`]).
    pub fn extend_checked(&self, steps: &[Transform]) -> Result<Prefix, TransformError> {
        self.extend_with(steps, true)
    }

    fn extend_with(&self, steps: &[Transform], checked: bool) -> Result<Prefix, TransformError> {
        let mut whole = self.schedule.clone();
        whole.steps.extend(steps.iter().cloned());
        check_names(&self.program, &whole)?;
        // SAFETY: the prefix's clone is live; the copy is owned by the new Prefix (or
        // destroyed here when a step fails).
        let copy = Op(unsafe { autosched_tx_clone(self.clone.0) });
        let longer = Prefix::holding(copy, self.program.clone(), whole, self.is_partial);
        for (i, step) in steps.iter().enumerate() {
            let n = self.schedule.steps.len() + i + 1;
            if checked {
                let mut call = Call::new(copy.0);
                let status = step.apply_checked(&mut call);
                verdict(n, step, status, call)?;
            } else {
                run_step(copy.0, n, step)?;
            }
        }
        Ok(longer)
    }

    /// Whether the prefix followed by `steps` applies, with their dependences decided on
    /// `base`, this prefix without its last steps: `base` checks the steps (in its memo,
    /// shared by every state with that base), this prefix only what the kinds check besides
    /// ([`crate::schedule::kinds::TransformKind::check_given_dependences`]). The caller
    /// vouches that the steps between `base` and this prefix make no dependence the steps
    /// could violate (the search: unrolls of loops that do not enclose the step's loops).
    /// None when a step's kind has no such split (check it with [`Prefix::check`]).
    pub fn check_from_base(&self, base: &Prefix, steps: &[Transform]) -> Option<Result<(), TransformError>> {
        let mut whole = self.schedule.clone();
        whole.steps.extend(steps.iter().cloned());
        if let Err(e) = check_names(&self.program, &whole) {
            return Some(Err(e));
        }
        for (i, step) in steps.iter().enumerate() {
            let mut call = Call::new(self.clone.0);
            let status = step.check_given_dependences(&mut call)?;
            if let Err(e) = verdict(self.schedule.steps.len() + i + 1, step, status, call) {
                return Some(Err(e));
            }
        }
        Some(base.check(steps))
    }

    /// Whether the prefix followed by `steps` applies (legal, verifies). A single step of a
    /// kind with a shortcut ([`crate::schedule::kinds::TransformKind::check_in_place`]) is
    /// decided without applying it: same verdict, same reason.
    pub fn check(&self, steps: &[Transform]) -> Result<(), TransformError> {
        self.check_keeping(steps).map(|_| ())
    }

    /// As [`Prefix::check`], keeping what the check built: the prefix followed by `steps`
    /// (as [`Prefix::extend`] makes it) where deciding took applying them to a copy, None
    /// where a shortcut decided. A search keeps the checked children that enter its beam
    /// rather than applying their steps again (an unroll-and-jam of a large body, with its
    /// dependence check, is most of what extending a state costs).
    pub fn check_keeping(&self, steps: &[Transform]) -> Result<Option<Prefix>, TransformError> {
        let mut whole = self.schedule.clone();
        whole.steps.extend(steps.iter().cloned());
        check_names(&self.program, &whole)?;
        match steps {
            [step] => {
                let mut call = Call::new(self.clone.0);
                if let Some(status) = step.check_in_place(&mut call, &mut self.memo.borrow_mut()) {
                    return verdict(self.schedule.steps.len() + 1, step, status, call).map(|_| None);
                }
            }
            // A sequence of steps that touch only the nests holding their loops is checked on
            // a copy of those nests alone (a 3mm state holds six; a register tile's sequence
            // works on one), shared by the sequences on the same nests; nothing is kept (a
            // child that enters the beam is extended from its parent).
            [_, rest @ ..] if !rest.is_empty() && !self.is_partial && steps.iter().all(|s| s.stage().local()) => {
                if let Some(part) = self.partial_for(steps) {
                    return part.check_keeping(steps).map(|_| None);
                }
                return self.check_sequence(steps);
            }
            [_, rest @ ..] if !rest.is_empty() => return self.check_sequence(steps),
            _ => {}
        }
        if let [step] = steps {
            if step.stage().local() && !self.is_partial {
                let names = LoopNames::of(steps);
                if self.kept_for(&names).is_some() {
                    return self.check_on_its_nests(step, &names);
                }
            }
        }
        // SAFETY: the prefix's clone is live; the copy is owned by the Prefix returned, or
        // destroyed (by dropping that Prefix) when a step fails.
        let copy = Op(unsafe { autosched_tx_clone(self.clone.0) });
        let longer = Prefix::holding(copy, self.program.clone(), whole, self.is_partial);
        for (i, step) in steps.iter().enumerate() {
            let n = self.schedule.steps.len() + i + 1;
            if i == 0 {
                // The copy is still this prefix's IR: the kind may use what it learned here.
                let mut call = Call::new(copy.0);
                let status = step.apply_in_check(&mut call, &mut self.memo.borrow_mut());
                verdict(n, step, status, call)?;
            } else {
                run_step(copy.0, n, step)?;
            }
        }
        verify(copy.0)?;
        Ok(Some(longer))
    }

    /// [`Prefix::check_keeping`] of two steps or more. Combinations of a stage share their
    /// first steps (a tiling and each of its second levels): the prefix extended by the
    /// first step is kept, and the rest checked from it (with its shortcuts). Of a longer
    /// sequence (a lookahead's register tiles: up to 21 steps), the steps between the first
    /// and the last run on one copy, kept for the sequences that share them (those that
    /// differ only in their last unroll), and the last is checked from it: one copy of the
    /// function for those steps, not one per step.
    fn check_sequence(&self, steps: &[Transform]) -> Result<Option<Prefix>, TransformError> {
        let [first, rest @ ..] = steps else { unreachable!("a sequence has two steps or more") };
        let extended = self.extended_by(std::slice::from_ref(first));
        let longer = match &*extended {
            Ok(longer) => longer,
            Err(e) => return Err(e.clone()),
        };
        let [middle @ .., last] = rest else { unreachable!("a sequence has two steps or more") };
        if middle.is_empty() {
            return longer.check_keeping(rest);
        }
        // Bound before returning: the extension's borrow must end before `extended`'s.
        let checked = match &*longer.extended_by(middle) {
            Ok(further) => further.check_keeping(std::slice::from_ref(last)),
            Err(e) => Err(e.clone()),
        };
        checked
    }

    /// This prefix with only the nests that hold a loop `steps` name (as they are now; loops
    /// the steps make are made inside them), kept in `partial` by the loops it keeps: built
    /// now if it was not. None where [`Prefix::kept_for`] is.
    fn partial_for(&self, steps: &[Transform]) -> Option<std::cell::Ref<'_, Prefix>> {
        let names = LoopNames::of(steps);
        let positions = self.kept_for(&names)?;
        if !self.partial.borrow().contains_key(&positions) {
            // SAFETY: the prefix's clone is live; the names outlive the call; the copy is
            // owned by the partial Prefix.
            let copy = Op(unsafe { autosched_tx_clone_for(self.clone.0, names.ptrs.as_ptr(), names.ptrs.len()) });
            let part = Prefix::holding(copy, self.program.clone(), self.schedule.clone(), true);
            self.partial.borrow_mut().insert(positions.clone(), part);
        }
        Some(std::cell::Ref::map(self.partial.borrow(), |m| &m[&positions]))
    }

    /// The positions of the loops a copy of the nests holding loops of these names keeps
    /// (`autosched_tx_kept_for`); None where it would keep every nest (a copy of them all is
    /// the prefix itself, less what it keeps for the search), or for a function of several
    /// blocks (copied whole).
    fn kept_for(&self, names: &LoopNames) -> Option<Vec<usize>> {
        let ptrs = &names.ptrs;
        let mut positions = vec![0usize; 8];
        let mut loops = 0usize;
        // SAFETY: the prefix's clone is live; the names outlive the calls; `positions` has
        // room for the count given.
        let mut count =
            unsafe { autosched_tx_kept_for(self.clone.0, ptrs.as_ptr(), ptrs.len(), positions.as_mut_ptr(), positions.len(), &mut loops) };
        if count == usize::MAX || count == loops {
            return None;
        }
        if count > positions.len() {
            positions.resize(count, 0);
            count = unsafe {
                autosched_tx_kept_for(self.clone.0, ptrs.as_ptr(), ptrs.len(), positions.as_mut_ptr(), positions.len(), &mut loops)
            };
        }
        positions.truncate(count);
        Some(positions)
    }

    /// This prefix extended by `steps` ([`Prefix::extend`]: the steps run on one copy,
    /// unverified), kept in `extended`: built now if it was not.
    fn extended_by(&self, steps: &[Transform]) -> std::cell::Ref<'_, Result<Prefix, TransformError>> {
        let key = key_of(steps);
        if !self.extended.borrow().contains_key(&key) {
            let longer = self.extend(steps);
            self.extended.borrow_mut().insert(key.clone(), longer);
        }
        std::cell::Ref::map(self.extended.borrow(), |m| &m[&key])
    }

    /// [`Prefix::check_keeping`] of one step of a kind that touches only the loops it names
    /// (`TransformKind::LOCAL`), on a copy of the nests that hold them: the same verdict,
    /// without copying the state's other nests (a distributed 3mm state holds six, some of
    /// them register tiles). Nothing is kept: a child that enters the beam is extended from its
    /// parent.
    fn check_on_its_nests(&self, step: &Transform, names: &LoopNames) -> Result<Option<Prefix>, TransformError> {
        // SAFETY: the prefix's clone is live; the copy is detached, owned here and destroyed
        // below; the names outlive the call.
        let copy = unsafe { autosched_tx_clone_for(self.clone.0, names.ptrs.as_ptr(), names.ptrs.len()) };
        let mut call = Call::new(copy);
        // The copy's loops of these names are the prefix's, in the same order: the kind may
        // use what it learned on the prefix.
        let status = step.apply_in_check(&mut call, &mut self.memo.borrow_mut());
        let result = verdict(self.schedule.steps.len() + 1, step, status, call).and_then(|_| verify(copy));
        // SAFETY: the copy is detached and owned here.
        unsafe { autosched_tx_destroy(copy) };
        result.map(|_| None)
    }
}

/// The names of the loops steps name, as the C++ layer takes them.
struct LoopNames {
    _names: Vec<std::ffi::CString>,
    /// Into `_names`.
    ptrs: Vec<*const std::ffi::c_char>,
}

impl LoopNames {
    fn of(steps: &[Transform]) -> LoopNames {
        let names: Vec<std::ffi::CString> = steps.iter().flat_map(|s| s.loops()).map(|l| ffi::cstring(l.as_str())).collect();
        let ptrs = names.iter().map(|c| c.as_ptr()).collect();
        LoopNames { _names: names, ptrs }
    }
}

/// The key of an extension by `steps` in a [`Prefix`]'s `extended`: their texts, one per
/// line (a step's text has no line break).
fn key_of(steps: &[Transform]) -> String {
    steps.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("\n")
}

impl Drop for Prefix {
    fn drop(&mut self) {
        // SAFETY: the clone is detached and owned by this Prefix alone.
        unsafe { autosched_tx_destroy(self.clone.0) };
    }
}

/// Tags every loop of `func` with its name in place: the state a Transform-dialect script
/// (`transform.autosched.name_loops`) starts its steps from.
pub fn name_loops(func: Op) -> Result<(), TransformError> {
    tag_loops(func)
}

/// `func`'s program where every loop still carries the name the analysis gives it (no step
/// applied since `name_loops`): then a schedule's names mean on it what they mean to the pass.
fn program_as_named(func: Op) -> Option<Program> {
    let a = ir::analyze_function(func).ok()?;
    let same = a.loop_ops.len() == a.program.loops.len()
        && a.program.loops.iter().zip(&a.loop_ops).all(|(l, op)| op.string_attr(LOOP_TAG).as_deref() == Some(l.name.as_str()));
    same.then_some(a.program)
}

/// Whether `func` carries loop names (`name_loops` ran and `clear_names` did not).
pub fn has_names(func: Op) -> bool {
    let mut found = false;
    fn walk(op: Op, found: &mut bool) {
        if *found {
            return;
        }
        if op.attr(LOOP_TAG).is_some() {
            *found = true;
            return;
        }
        for b in op.blocks() {
            for o in b.ops() {
                walk(o, found);
            }
        }
    }
    walk(func, &mut found);
    found
}

/// Applies steps to a function whose loops carry their names (`name_loops`), in place and
/// as one transaction: on a clone, each checked like the pass's steps, verified, then moved
/// into `func` with the names kept for the next steps. Refused or failed, `func` is as it
/// was. What `transform.autosched.step` does. Several steps given to a function still as
/// named (no step applied since `name_loops`) are checked exactly as the pass checks a
/// schedule: a parallelize after unrolls decided on the loops before them
/// ([`base::apply_decided_at_base`]), which one step at a time cannot do.
pub fn apply_in_place(func: Op, steps: &[Transform]) -> Result<(), TransformError> {
    if !has_names(func) {
        return Err(TransformError::BadLoop {
            step: 1,
            text: steps.first().map(|s| s.to_string()).unwrap_or_default(),
            reason: "the function's loops carry no names: run transform.autosched.name_loops on it first".into(),
        });
    }
    let as_named = if steps.len() > 1 { program_as_named(func) } else { None };
    let schedule = Schedule { steps: steps.to_vec() };
    // SAFETY: func is a live func.func; the clone is detached and owned here until it is
    // committed (moved into func) or destroyed.
    let clone = unsafe { autosched_tx_clone(func.0) };
    let result = (|| {
        let mut bases = None;
        for (i, step) in steps.iter().enumerate() {
            let decided = as_named.as_ref().and_then(|p| base::apply_decided_at_base(func, p, &schedule, i, clone, &mut bases));
            match decided {
                Some(r) => r?,
                None => run_step(clone, i + 1, step)?,
            }
        }
        verify(clone)
    })();
    match result {
        Ok(()) => unsafe { ffi::autosched_tx_commit_tagged(func.0, clone) },
        Err(_) => unsafe { autosched_tx_destroy(clone) },
    }
    result
}

/// For each step of `schedule` on `func`, the upstream Transform-dialect op that does
/// exactly what the step does at that point, where its kind knows one
/// ([`crate::schedule::kinds::TransformKind::upstream`]); `func` is not changed.
pub fn upstream_ops(func: Op, schedule: &Schedule) -> Result<Vec<Option<crate::schedule::kinds::Upstream>>, TransformError> {
    let mut prefix = Prefix::new(func, &Schedule::default())?;
    let mut out = Vec::new();
    for step in &schedule.steps {
        let mut call = Call::new(prefix.clone.0);
        out.push(step.upstream(&mut call));
        prefix = prefix.extend(std::slice::from_ref(step))?;
    }
    Ok(out)
}

/// The function `apply` would make of `func` with `schedule`, printed (`func` unchanged).
pub fn applied_text(func: Op, schedule: &Schedule) -> Result<String, TransformError> {
    let clone = transact(func, schedule, Mode::Detach)?.expect("detach mode returns the clone");
    let text = clone.to_text();
    // SAFETY: the detached clone is owned here.
    unsafe { autosched_tx_destroy(clone.0) };
    Ok(text)
}

/// The function a Transform-dialect script of `schedule` makes of `func`, printed (`func`
/// unchanged): its loops named, the steps applied in place as the script's
/// `transform.autosched.step` ops do ([`apply_in_place`]: one op per step, or one for the
/// whole schedule where [`replays_step_by_step`] says so), the names removed. The fuzzer
/// checks it equals [`applied_text`].
pub fn replayed_text(func: Op, schedule: &Schedule) -> Result<String, TransformError> {
    let group = if replays_step_by_step(schedule) { 1 } else { schedule.steps.len().max(1) };
    replayed_in_groups(func, schedule, group)
}

/// `func` with `schedule` applied in place `group` steps per [`apply_in_place`], printed.
fn replayed_in_groups(func: Op, schedule: &Schedule, group: usize) -> Result<String, TransformError> {
    // SAFETY: func is a live func.func; the clone is detached and destroyed here.
    let clone = Op(unsafe { autosched_tx_clone(func.0) });
    let result = (|| {
        name_loops(clone)?;
        for steps in schedule.steps.chunks(group) {
            apply_in_place(clone, steps)?;
        }
        clear_names(clone);
        Ok(clone.to_text())
    })();
    unsafe { autosched_tx_destroy(clone.0) };
    result
}

/// Whether a script replays `schedule` one step per op (with upstream's ops where
/// they exist), rather than as one `transform.autosched.step` of the whole schedule: not where
/// a parallelize comes after unrolls. The pass decides such a parallelize on the loops before
/// the unrolls (`base`); one op per step decides it after them, on the unrolled copies, where
/// MLIR's dependence analysis may not see what it saw before (a clean-up loop's bounds with
/// `floordiv`: a legal step refused, fuzz program f1-388, `unroll(L0.0:8); parallelize(L0)`)
/// and where it is slow (gemm's 8x32 register tile: minutes; trying the steps one by one
/// first made `export-transform` take 358 s on PolyBench gemm).
pub fn replays_step_by_step(schedule: &Schedule) -> bool {
    !schedule.steps.windows(2).any(|w| matches!(w[0], Transform::Unroll(_)) && matches!(w[1], Transform::Parallelize(_)))
}

/// Marks every floating-point add, subtract and multiply of `func` `fastmath<contract>`, so
/// that LLVM may fuse a multiply into the add that uses it (the pass's `fp-contract=true`).
/// Not a schedule step: it changes the rounding of results, which no step may do; it is a
/// permission the user gives for the whole function. Returns how many operations it marked.
pub fn allow_contraction(func: Op) -> usize {
    // SAFETY: func is a live operation.
    unsafe { autosched_tx_allow_contraction(func.0) }.max(0) as usize
}

/// Whether `func`'s fast-math flags let LLVM change the rounding of its results (as
/// `fp-contract=true` does): its transformed copies are then compared with the original
/// within a rounding tolerance, not bit for bit.
pub fn rounding_may_change(func: Op) -> bool {
    // SAFETY: func is a live operation.
    unsafe { autosched_tx_rounding_may_change(func.0) }
}

/// Asks LLVM to vectorize `func` for vectors of `bits` bits (the LLVM function attribute
/// `prefer-vector-width`, through `passthrough`; the pass's `prefer-vector-width`). On
/// x86 with AVX-512, LLVM prefers 256-bit vectors unless told otherwise.
pub fn prefer_vector_width(func: Op, bits: u32) {
    // SAFETY: func is a live operation.
    unsafe { autosched_tx_prefer_vector_width(func.0, bits as i64) }
}

/// The vector width `func` asks LLVM for, in bits: its `passthrough` attribute's
/// `prefer-vector-width` (the pass's option, or the user's own), None where it has none.
pub fn preferred_vector_width(func: Op) -> Option<u32> {
    // SAFETY: func is a live operation.
    let bits = unsafe { autosched_tx_preferred_vector_width(func.0) };
    u32::try_from(bits).ok().filter(|&b| b > 0)
}

/// Removes the loop names `name_loops` put on `func`.
pub fn clear_names(func: Op) {
    // SAFETY: func is a live operation.
    unsafe { autosched_tx_strip_tags(func.0) };
}

/// Tags every loop of `clone` with its name, which is how the C++ layer finds them.
fn tag_loops(clone: Op) -> Result<(), TransformError> {
    let tagged = ir::analyze_function(clone).map_err(|e| TransformError::Analysis(e.to_string()))?;
    for (l, op) in tagged.program.loops.iter().zip(&tagged.loop_ops) {
        op.set_string_attr(LOOP_TAG, &l.name);
    }
    Ok(())
}

fn verify(func: MlirOperation) -> Result<(), TransformError> {
    let mut call = Call::new(func);
    let (report, ctx) = call.report();
    // SAFETY: func is live; the report callback appends to the call's reason only during this call.
    if unsafe { autosched_tx_verify(func, report, ctx) } != ffi::AUTOSCHED_TX_OK as i32 {
        return Err(TransformError::Verify(call.into_reason()));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Mode {
    Commit,
    Check,
    /// Hand the transformed clone (with its loop tags removed) to the caller.
    Detach,
}

fn transact(func: Op, schedule: &Schedule, mode: Mode) -> Result<Option<Op>, TransformError> {
    transact_with(func, schedule, mode, true)
}

fn transact_with(func: Op, schedule: &Schedule, mode: Mode, shortcuts: bool) -> Result<Option<Op>, TransformError> {
    if schedule.is_identity() && !matches!(mode, Mode::Detach) {
        return Ok(None);
    }
    let analysis = ir::analyze_function(func).map_err(|e| TransformError::Analysis(e.to_string()))?;
    check_names(&analysis.program, schedule)?;

    // SAFETY: func is a live func.func; the clone is detached and owned here.
    let clone = unsafe { autosched_tx_clone(func.0) };
    let clone_op = Op(clone);
    let result = (|| {
        tag_loops(clone_op)?;
        let mut bases = None;
        for (i, step) in schedule.steps.iter().enumerate() {
            let decided = shortcuts.then(|| base::apply_decided_at_base(func, &analysis.program, schedule, i, clone, &mut bases));
            match decided.flatten() {
                Some(r) => r?,
                None => run_step(clone, i + 1, step)?,
            }
        }
        verify(clone)
    })();
    match (result, mode) {
        (Ok(()), Mode::Commit) => {
            unsafe { autosched_tx_commit(func.0, clone) };
            Ok(None)
        }
        (Ok(()), Mode::Check) => {
            unsafe { autosched_tx_destroy(clone) };
            Ok(None)
        }
        (Ok(()), Mode::Detach) => {
            unsafe { autosched_tx_strip_tags(clone) };
            Ok(Some(clone_op))
        }
        (Err(e), _) => {
            unsafe { autosched_tx_destroy(clone) };
            Err(e)
        }
    }
}

fn run_step(func: MlirOperation, step: usize, t: &Transform) -> Result<(), TransformError> {
    let mut call = Call::new(func);
    let status = t.apply(&mut call);
    verdict(step, t, status, call)
}

/// The result of step `step` (`t`) from the C++ layer's status and the call's reason.
fn verdict(step: usize, t: &Transform, status: i32, call: Call) -> Result<(), TransformError> {
    let (text, reason) = (t.to_string(), call.into_reason());
    match status {
        s if s == ffi::AUTOSCHED_TX_OK as i32 => Ok(()),
        s if s == ffi::AUTOSCHED_TX_REFUSED as i32 => {
            Err(TransformError::Refused { step, text, why: Refusal::Unsupported(reason) })
        }
        s if s == ffi::AUTOSCHED_TX_REFUSED_DEPENDENCE as i32 => {
            Err(TransformError::Refused { step, text, why: Refusal::Dependence(reason) })
        }
        _ => Err(TransformError::Failed { step, text, reason }),
    }
}

/// Checks that every step names loops that exist when it runs: the program's loops, the
/// tile loops and parts (`.d<k>`) made by earlier steps, minus loops consumed by earlier
/// steps. How many parts a distribution makes depends on the loop tree at that step; a
/// part named beyond them is refused by the transformation layer itself.
pub fn check_names(program: &Program, schedule: &Schedule) -> Result<(), TransformError> {
    let mut names = Names {
        program,
        step: 0,
        live: program.loops.iter().map(|l| l.name.clone()).collect(),
        distributed: BTreeSet::new(),
        gone: Vec::new(),
        copies_statements: None,
    };
    for (i, t) in schedule.steps.iter().enumerate() {
        let step = i + 1;
        names.step = step;
        for name in t.loops() {
            if names.live.contains(name.as_str()) {
                continue;
            }
            let reason = match names.gone.iter().find(|(n, _, _)| n == name.as_str()) {
                Some((_, by, kind)) => format!("{name} no longer exists after step {by} ({kind})"),
                None if name.distributed_from().is_some_and(|d| names.distributed.contains(d.as_str())) => continue,
                None => no_such_loop(program, name),
            };
            return Err(TransformError::BadLoop { step, text: t.to_string(), reason });
        }
        t.rename(&mut names).map_err(|reason| TransformError::BadLoop { step, text: t.to_string(), reason })?;
    }
    Ok(())
}

fn no_such_loop(program: &Program, name: &LoopName) -> String {
    let nest = name.nest();
    if program.nests.iter().all(|n| n.index != nest) && !program.not_modeled.is_empty() {
        return format!(
            "no loop named {name}: @{} has {} modeled nest(s); {} nest(s) are not modeled",
            program.function,
            program.nests.len(),
            program.not_modeled.len()
        );
    }
    let known: Vec<&str> = program.loops.iter().map(|l| l.name.as_str()).collect();
    format!("no loop named {name} in @{} (its loops: {})", program.function, known.join(", "))
}
