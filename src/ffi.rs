//! The C ABI the C++ plugin calls. Every entry point catches panics: a panic must never
//! unwind into mlir-opt. Strings are NUL-terminated UTF-8 owned by the caller.

use crate::ir::mlir::Op;
use crate::options::RawOptions;
use crate::pass::{self, Diagnostic, Outcome, Severity};
use mlir_sys::MlirOperation;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// Mirrors `AutoschedOptions` in passes/AutoschedFFI.h.
#[repr(C)]
pub struct AutoschedOptions {
    pub dump_representation: bool,
    pub dump_file: *const c_char,
    pub schedule: *const c_char,
    pub beam_width: i64,
    pub max_depth: i64,
    pub model: *const c_char,
    pub evaluator: *const c_char,
    pub measure_top_k: i64,
    pub confidence: i64,
    pub records: *const c_char,
    pub report: *const c_char,
    pub emit_transform: *const c_char,
    pub fp_contract: bool,
    pub prefer_vector_width: i64,
}

/// Emits one diagnostic; `op.ptr` is null for a diagnostic without an operation.
pub type EmitFn = extern "C" fn(ctx: *mut c_void, op: MlirOperation, severity: i32, msg: *const c_char, len: usize);

const OK: i32 = 0;
const FAILED: i32 = 1;
const CHANGED: i32 = 2;

static LOGGER: Once = Once::new();

fn init_logging() {
    LOGGER.call_once(|| {
        let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).try_init();
    });
}

unsafe fn string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

unsafe fn raw_options(o: *const AutoschedOptions) -> RawOptions {
    let o = &*o;
    RawOptions {
        dump_representation: o.dump_representation,
        dump_file: string(o.dump_file),
        schedule: string(o.schedule),
        beam_width: o.beam_width,
        max_depth: o.max_depth,
        model: string(o.model),
        evaluator: string(o.evaluator),
        measure_top_k: o.measure_top_k,
        confidence: o.confidence,
        records: string(o.records),
        report: string(o.report),
        emit_transform: string(o.emit_transform),
        fp_contract: o.fp_contract,
        prefer_vector_width: o.prefer_vector_width,
    }
}

fn emit(emit_fn: EmitFn, ctx: *mut c_void, d: &Diagnostic) {
    let op = d.op.map(|o| o.0).unwrap_or(MlirOperation { ptr: std::ptr::null_mut() });
    emit_fn(ctx, op, d.severity as i32, d.message.as_ptr() as *const c_char, d.message.len());
}

fn error(message: String) -> Diagnostic {
    Diagnostic { op: None, severity: Severity::Error, message }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Validates the options once per pipeline run. Returns 0 on success; otherwise emits an
/// error naming the offending option and returns 1.
///
/// # Safety
/// `options` must point to a valid `AutoschedOptions`.
#[no_mangle]
pub unsafe extern "C" fn autosched_begin_run(options: *const AutoschedOptions, emit_fn: EmitFn, ctx: *mut c_void) -> i32 {
    let result = catch_unwind(AssertUnwindSafe(|| {
        init_logging();
        let opts = raw_options(options).validate().map_err(|e| e.to_string())?;
        pass::begin_run(&opts).map_err(|e| e.to_string())
    }));
    let failure = match result {
        Ok(Ok(())) => return OK,
        Ok(Err(msg)) => format!("affine-autosched: {msg}"),
        Err(p) => format!("affine-autosched: internal error while reading options: {}", panic_message(p)),
    };
    emit(emit_fn, ctx, &error(failure));
    FAILED
}

/// Runs the pass on one `func.func`. Returns 0 when the IR is unchanged, 2 when a schedule
/// was applied, 1 when the pass must fail (errors were emitted; the IR is unchanged).
///
/// # Safety
/// `func` must be a live operation not mutated concurrently; `options` must be valid.
#[no_mangle]
pub unsafe extern "C" fn autosched_run_on_function(
    func: MlirOperation,
    options: *const AutoschedOptions,
    emit_fn: EmitFn,
    ctx: *mut c_void,
) -> i32 {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut sink = |d: Diagnostic| emit(emit_fn, ctx, &d);
        let opts = match raw_options(options).validate() {
            Ok(o) => o,
            Err(e) => {
                sink(error(format!("affine-autosched: {e}")));
                return FAILED;
            }
        };
        let Some(op) = Op::from_raw(func) else {
            sink(error("affine-autosched: null operation".into()));
            return FAILED;
        };
        match pass::run_on_function(op, &opts, &mut sink) {
            Outcome::Unchanged => OK,
            Outcome::Transformed => CHANGED,
            Outcome::Failed => FAILED,
        }
    }));
    match result {
        Ok(code) => code,
        Err(p) => {
            let msg = format!("affine-autosched: internal error (IR left unchanged): {}", panic_message(p));
            emit(emit_fn, ctx, &error(msg));
            FAILED
        }
    }
}

/// Default values of the integer options, so that C++ declares them from one definition.
///
/// # Safety
/// The pointers must be valid for writes.
#[no_mangle]
pub unsafe extern "C" fn autosched_default_options(beam_width: *mut i64, max_depth: *mut i64, measure_top_k: *mut i64, confidence: *mut i64) {
    use crate::options::*;
    *beam_width = DEFAULT_BEAM_WIDTH;
    *max_depth = DEFAULT_MAX_DEPTH;
    *measure_top_k = DEFAULT_MEASURE_TOP_K;
    *confidence = DEFAULT_CONFIDENCE;
}

/// Runs `f` for a Transform-dialect op under `catch_unwind`; its error becomes an error
/// diagnostic (which the C++ op turns into its silenceable failure).
unsafe fn transform_op(emit_fn: EmitFn, ctx: *mut c_void, f: impl FnOnce(&mut dyn FnMut(Diagnostic)) -> Result<i32, String>) -> i32 {
    let result = catch_unwind(AssertUnwindSafe(|| {
        init_logging();
        let mut sink = |d: Diagnostic| emit(emit_fn, ctx, &d);
        f(&mut sink)
    }));
    let message = match result {
        Ok(Ok(code)) => return code,
        Ok(Err(m)) => m,
        Err(p) => format!("internal error (IR left unchanged): {}", panic_message(p)),
    };
    emit(emit_fn, ctx, &error(message));
    FAILED
}

/// `transform.autosched.name_loops`: tags the loops of `func` with their names. 0 or 1.
///
/// # Safety
/// `func` must be a live `func.func` not mutated concurrently.
#[no_mangle]
pub unsafe extern "C" fn autosched_transform_name_loops(func: MlirOperation, emit_fn: EmitFn, ctx: *mut c_void) -> i32 {
    transform_op(emit_fn, ctx, |_| {
        let op = Op::from_raw(func).ok_or("null operation")?;
        crate::transform::name_loops(op).map(|()| OK).map_err(|e| e.to_string())
    })
}

/// `transform.autosched.step`: applies the steps of `schedule` (schedule-language text) to
/// a function named by `name_loops`, as one transaction. 0, or 1 with the IR unchanged.
///
/// # Safety
/// `func` must be a live `func.func` not mutated concurrently; `schedule` a C string.
#[no_mangle]
pub unsafe extern "C" fn autosched_transform_step(
    func: MlirOperation,
    schedule: *const c_char,
    emit_fn: EmitFn,
    ctx: *mut c_void,
) -> i32 {
    let text = string(schedule);
    transform_op(emit_fn, ctx, |_| {
        let op = Op::from_raw(func).ok_or("null operation")?;
        let s: crate::schedule::Schedule = text.parse().map_err(|e| format!("'{text}': {e}"))?;
        crate::transform::apply_in_place(op, &s.steps).map(|()| OK).map_err(|e| e.to_string())
    })
}

/// `transform.autosched.clear_names`: removes the names `name_loops` put on `func`.
///
/// # Safety
/// `func` must be a live operation not mutated concurrently.
#[no_mangle]
pub unsafe extern "C" fn autosched_transform_clear_names(func: MlirOperation) {
    if let Some(op) = Op::from_raw(func) {
        crate::transform::clear_names(op);
    }
}

/// `transform.autosched.codegen`: the pass's code generation options on `func`:
/// `fp-contract=true` where `fp_contract` is nonzero, `prefer-vector-width=` where
/// `vector_width` is (128, 256 or 512). A remark says what each did, as the pass's do. 0, or
/// 1 with the IR unchanged (another width).
///
/// # Safety
/// `func` must be a live `func.func` not mutated concurrently.
#[no_mangle]
pub unsafe extern "C" fn autosched_transform_codegen(
    func: MlirOperation,
    fp_contract: i32,
    vector_width: i64,
    emit_fn: EmitFn,
    ctx: *mut c_void,
) -> i32 {
    transform_op(emit_fn, ctx, |sink| {
        let op = Op::from_raw(func).ok_or("null operation")?;
        let width = match vector_width {
            0 => None,
            128 | 256 | 512 => Some(vector_width as u32),
            w => return Err(format!("affine-autosched: prefer_vector_width must be one of 128, 256, 512, got {w}")),
        };
        for line in pass::apply_codegen_options(op, fp_contract != 0, width) {
            sink(Diagnostic { op: Some(op), severity: Severity::Remark, message: format!("affine-autosched: {line}") });
        }
        Ok(OK)
    })
}

/// `transform.autosched.optimize`: the pass on one function, with `options` as the pass
/// takes them (`evaluator=hybrid beam-width=4 ...`). Its remarks are emitted; 0 (unchanged),
/// 2 (transformed) or 1 (errors emitted, IR unchanged). `report=` and `dump-file=` are
/// appended to, not truncated (each function is one call); an `emit-transform=` script
/// holds the functions of this process so far.
///
/// # Safety
/// `func` must be a live `func.func` not mutated concurrently; `options` a C string.
#[no_mangle]
pub unsafe extern "C" fn autosched_transform_optimize(
    func: MlirOperation,
    options: *const c_char,
    emit_fn: EmitFn,
    ctx: *mut c_void,
) -> i32 {
    let text = string(options);
    transform_op(emit_fn, ctx, |sink| {
        let op = Op::from_raw(func).ok_or("null operation")?;
        let opts = RawOptions::from_text(&text).and_then(|o| o.validate()).map_err(|e| e.to_string())?;
        Ok(match pass::run_on_function(op, &opts, sink) {
            Outcome::Unchanged => OK,
            Outcome::Transformed => CHANGED,
            Outcome::Failed => FAILED,
        })
    })
}
