//! `transform`: applies a [`Schedule`] to a function, as a transaction.
//!
//! Rust decides, C++ applies: the steps are checked here against the representation (do
//! the named loops exist at that point of the schedule?), then each step goes to the thin
//! C++ layer (passes/Transforms.cpp), which checks its legality with MLIR's dependence
//! analysis and applies MLIR's own utility. Everything happens on a detached clone of the
//! function; the user's function is replaced only when every step succeeded and the result
//! verifies. Otherwise the error names the step and the reason, and the IR is unchanged.

use crate::ir::{self, mlir::Op, Program};
use crate::schedule::{LoopName, Schedule, Transform};
use mlir_sys::{
    mlirBlockAppendOwnedOperation, mlirLocationUnknownGet, mlirModuleCreateEmpty, mlirModuleDestroy, mlirModuleGetBody,
    mlirModuleGetOperation, mlirOperationGetContext, MlirOperation,
};
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CString};

/// The tag the C++ layer finds loops by.
const LOOP_TAG: &str = "autosched.loop";

#[allow(improper_ctypes)]
extern "C" {
    fn autosched_tx_clone(func: MlirOperation) -> MlirOperation;
    fn autosched_tx_destroy(op: MlirOperation);
    fn autosched_tx_verify(func: MlirOperation, f: ReportFn, ctx: *mut c_void) -> i32;
    fn autosched_tx_commit(original: MlirOperation, clone: MlirOperation);
    fn autosched_tx_strip_tags(func: MlirOperation);
    fn autosched_tx_distribute(func: MlirOperation, name: *const c_char, f: ReportFn, ctx: *mut c_void) -> i32;
    fn autosched_tx_fuse(
        func: MlirOperation,
        first: *const c_char,
        second: *const c_char,
        depth: i64,
        f: ReportFn,
        ctx: *mut c_void,
    ) -> i32;
    fn autosched_tx_interchange(
        func: MlirOperation,
        names: *const *const c_char,
        n: usize,
        f: ReportFn,
        ctx: *mut c_void,
    ) -> i32;
    fn autosched_tx_tile(
        func: MlirOperation,
        names: *const *const c_char,
        sizes: *const i64,
        n: usize,
        f: ReportFn,
        ctx: *mut c_void,
    ) -> i32;
    fn autosched_tx_unroll(func: MlirOperation, name: *const c_char, factor: i64, f: ReportFn, ctx: *mut c_void)
        -> i32;
    fn autosched_tx_parallelize(func: MlirOperation, name: *const c_char, f: ReportFn, ctx: *mut c_void) -> i32;
    fn autosched_tx_vectorize(func: MlirOperation, name: *const c_char, width: i64, f: ReportFn, ctx: *mut c_void)
        -> i32;
}

type ReportFn = extern "C" fn(ctx: *mut c_void, msg: *const c_char, len: usize);

extern "C" fn collect_report(ctx: *mut c_void, msg: *const c_char, len: usize) {
    // SAFETY: ctx is the &mut String passed by `Step::call`; msg points to len bytes.
    let out = unsafe { &mut *(ctx as *mut String) };
    let bytes = unsafe { std::slice::from_raw_parts(msg as *const u8, len) };
    out.push_str(&String::from_utf8_lossy(bytes));
}

const TX_OK: i32 = 0;
const TX_REFUSED: i32 = 1;
const TX_REFUSED_DEPENDENCE: i32 = 3;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The step names a loop that does not exist at that point of the schedule.
    #[error("step {step} ({text}): {reason}")]
    BadLoop { step: usize, text: String, reason: String },
    /// The step is illegal (`dependence`: it would break a dependence) or outside what it
    /// supports.
    #[error("step {step} ({text}) refused: {reason}")]
    Refused { step: usize, text: String, reason: String, dependence: bool },
    /// An MLIR utility failed midway; the clone was discarded.
    #[error("step {step} ({text}) failed: {reason}")]
    Failed { step: usize, text: String, reason: String },
    #[error("the transformed function does not verify: {0}")]
    Verify(String),
    #[error("{0}")]
    Analysis(String),
}

impl TransformError {
    /// Whether the refusal claims that the step would break a dependence (as opposed to a
    /// step outside what the transformation supports).
    pub fn claims_dependence(&self) -> bool {
        match self {
            TransformError::Refused { dependence, .. } => *dependence,
            _ => false,
        }
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

/// One module holding a copy of `func` per `(schedule, name)`, each transformed, renamed and
/// marked for the C interface (what [`crate::measure`] compiles into one library), printed;
/// `func` is not changed. Copies whose schedule fails are left out, with the reason.
pub fn variants_module(func: Op, variants: &[(&Schedule, String)]) -> (String, Vec<Result<(), TransformError>>) {
    // SAFETY: the module is created in func's context, owns the clones appended to it and
    // is destroyed here; nothing else refers to it.
    unsafe {
        let ctx = mlirOperationGetContext(func.0);
        let module = mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx));
        let body = mlirModuleGetBody(module);
        let mut results = Vec::new();
        for (schedule, name) in variants {
            results.push(transact(func, schedule, Mode::Detach).map(|clone| {
                let clone = clone.expect("detach mode returns the clone");
                clone.set_symbol_name(name);
                clone.set_unit_attr("llvm.emit_c_interface");
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
    program: Program,
    schedule: Schedule,
}

impl Prefix {
    /// `schedule` applied to a tagged clone of `func` (`func` is not changed).
    pub fn new(func: Op, schedule: &Schedule) -> Result<Prefix, TransformError> {
        let program = ir::analyze_function(func).map_err(|e| TransformError::Analysis(e.to_string()))?.program;
        check_names(&program, schedule)?;
        // SAFETY: func is a live func.func; the clone is detached and owned by the Prefix.
        let clone = Op(unsafe { autosched_tx_clone(func.0) });
        let prefix = Prefix { clone, program, schedule: schedule.clone() };
        tag_loops(clone)?;
        for (i, step) in schedule.steps.iter().enumerate() {
            run_step(clone.0, i + 1, step)?;
        }
        Ok(prefix)
    }

    /// Whether the prefix followed by `steps` applies (legal, verifies).
    pub fn check(&self, steps: &[Transform]) -> Result<(), TransformError> {
        let mut whole = self.schedule.clone();
        whole.steps.extend(steps.iter().cloned());
        check_names(&self.program, &whole)?;
        // SAFETY: the prefix's clone is live; this copy is destroyed before returning.
        let copy = unsafe { autosched_tx_clone(self.clone.0) };
        let result = (|| {
            for (i, step) in steps.iter().enumerate() {
                run_step(copy, self.schedule.steps.len() + i + 1, step)?;
            }
            verify(copy)
        })();
        unsafe { autosched_tx_destroy(copy) };
        result
    }
}

impl Drop for Prefix {
    fn drop(&mut self) {
        // SAFETY: the clone is detached and owned by this Prefix alone.
        unsafe { autosched_tx_destroy(self.clone.0) };
    }
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
    let mut why = String::new();
    // SAFETY: func is live; the report callback appends to `why` only during this call.
    if unsafe { autosched_tx_verify(func, collect_report, &mut why as *mut String as *mut c_void) } != TX_OK {
        return Err(TransformError::Verify(why));
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
        for (i, step) in schedule.steps.iter().enumerate() {
            run_step(clone, i + 1, step)?;
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

fn cstring(s: &str) -> CString {
    // Loop names are ASCII without NULs (checked by LoopName).
    CString::new(s).unwrap_or_default()
}

fn run_step(func: MlirOperation, step: usize, t: &Transform) -> Result<(), TransformError> {
    let mut why = String::new();
    let ctx = &mut why as *mut String as *mut c_void;
    let status = unsafe {
        match t {
            Transform::Distribute { target } => {
                let n = cstring(target.as_str());
                autosched_tx_distribute(func, n.as_ptr(), collect_report, ctx)
            }
            Transform::Fuse { first, second, depth } => {
                let (a, b) = (cstring(first.as_str()), cstring(second.as_str()));
                autosched_tx_fuse(func, a.as_ptr(), b.as_ptr(), *depth as i64, collect_report, ctx)
            }
            Transform::Interchange { order } => {
                let names: Vec<CString> = order.iter().map(|l| cstring(l.as_str())).collect();
                let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
                autosched_tx_interchange(func, ptrs.as_ptr(), ptrs.len(), collect_report, ctx)
            }
            Transform::Tile { band } => {
                let names: Vec<CString> = band.iter().map(|(l, _)| cstring(l.as_str())).collect();
                let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
                let sizes: Vec<i64> = band.iter().map(|(_, s)| *s as i64).collect();
                autosched_tx_tile(func, ptrs.as_ptr(), sizes.as_ptr(), ptrs.len(), collect_report, ctx)
            }
            Transform::Unroll { target, factor } => {
                let n = cstring(target.as_str());
                autosched_tx_unroll(func, n.as_ptr(), *factor as i64, collect_report, ctx)
            }
            Transform::Parallelize { target } => {
                let n = cstring(target.as_str());
                autosched_tx_parallelize(func, n.as_ptr(), collect_report, ctx)
            }
            Transform::Vectorize { target, width } => {
                let n = cstring(target.as_str());
                autosched_tx_vectorize(func, n.as_ptr(), *width as i64, collect_report, ctx)
            }
        }
    };
    let text = t.to_string();
    match status {
        TX_OK => Ok(()),
        TX_REFUSED => Err(TransformError::Refused { step, text, reason: why, dependence: false }),
        TX_REFUSED_DEPENDENCE => Err(TransformError::Refused { step, text, reason: why, dependence: true }),
        _ => Err(TransformError::Failed { step, text, reason: why }),
    }
}

/// Checks that every step names loops that exist when it runs: the program's loops, the
/// tile loops and parts (`.d<k>`) made by earlier steps, minus loops consumed by earlier
/// steps. How many parts a distribution makes depends on the loop tree at that step; a
/// part named beyond them is refused by the transformation layer itself.
pub fn check_names(program: &Program, schedule: &Schedule) -> Result<(), TransformError> {
    let mut live: BTreeSet<String> = program.loops.iter().map(|l| l.name.clone()).collect();
    let mut distributed: BTreeSet<String> = BTreeSet::new();
    let mut gone: Vec<(String, usize, &'static str)> = Vec::new();
    let mut copies_statements: Option<usize> = None;
    for (i, t) in schedule.steps.iter().enumerate() {
        let step = i + 1;
        for name in t.loops() {
            if live.contains(name.as_str()) {
                continue;
            }
            let reason = match gone.iter().find(|(n, _, _)| n == name.as_str()) {
                Some((_, by, kind)) => format!("{name} no longer exists after step {by} ({kind})"),
                None if name.distributed_from().is_some_and(|d| distributed.contains(d.as_str())) => continue,
                None => no_such_loop(program, name),
            };
            return Err(TransformError::BadLoop { step, text: t.to_string(), reason });
        }
        match t {
            Transform::Tile { band } => {
                for (l, _) in band {
                    // A second tiling of the same loop would make a second loop of the same
                    // name, nested in the first: a later step naming it would mean both.
                    if live.contains(l.tile_loop().as_str()) {
                        return Err(TransformError::BadLoop {
                            step,
                            text: t.to_string(),
                            reason: format!(
                                "{l} is tiled already (its tile loop {} exists); tile {} for another level of tiles",
                                l.tile_loop(),
                                l.tile_loop()
                            ),
                        });
                    }
                    live.insert(l.tile_loop().to_string());
                }
            }
            Transform::Parallelize { target } => {
                live.remove(target.as_str());
                gone.push((target.to_string(), step, "parallelize"));
            }
            Transform::Unroll { .. } | Transform::Vectorize { .. } => copies_statements = copies_statements.or(Some(step)),
            Transform::Distribute { target } => {
                // Parts are one per child of the loop tree, which unrolling and vectorization
                // do not describe (they copy or replace statements).
                if let Some(by) = copies_statements {
                    return Err(TransformError::BadLoop {
                        step,
                        text: t.to_string(),
                        reason: format!("distribute must come before unroll and vectorize steps (step {by})"),
                    });
                }
                live.remove(target.as_str());
                gone.push((target.to_string(), step, "distribute"));
                distributed.insert(target.to_string());
            }
            Transform::Fuse { first, depth, .. } => {
                // The outer `depth` loops of the first nest merge into the second's.
                let mut current = program.loops.iter().find(|l| l.name == first.as_str());
                for _ in 0..*depth {
                    let Some(l) = current else { break };
                    live.remove(&l.name);
                    gone.push((l.name.clone(), step, "fuse"));
                    current = l.children.iter().find_map(|c| match c {
                        ir::Child::Loop(id) => Some(&program.loops[*id]),
                        _ => None,
                    });
                }
            }
            Transform::Interchange { .. } => {}
        }
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
