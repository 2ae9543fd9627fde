//! The Rust half of the `affine-autosched` pass: what it does to one function.
//!
//! The pass analyses each function, explains every nest it cannot model, on request prints
//! the representation, and applies an explicit schedule (`schedule=`) as a transaction.
//! Diagnostics go to C++ to be emitted at the operations they concern.

use crate::ir::{self, mlir::Op, Program};
use crate::options::{Evaluator, OptionError, PassOptions};
use crate::search::{OptimizeConfig, SearchConfig};
use crate::report::DecisionReport;
use crate::transform::script;
use crate::{cost_model, features, records, transform};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Severity {
    Remark = 0,
    Warning = 1,
    Error = 2,
}

/// A diagnostic for C++ to emit at `op` (or at an unknown location when `op` is `None`).
#[derive(Debug)]
pub struct Diagnostic {
    pub op: Option<Op>,
    pub severity: Severity,
    pub message: String,
}

/// mlir-opt runs the pass on several functions at once; appends to the dump and report
/// files are serialized so that each stays one whole JSON line.
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// Once per pipeline run, before any function: empties the dump and report files, loads the
/// model named by `model=` and opens the tuning records of `records=` (a model or a
/// database that cannot be used fails the run before any change).
pub fn begin_run(options: &PassOptions) -> Result<(), OptionError> {
    // The search needs the model (the shipped one unless `model=` names another) unless it
    // only executes; an explicit `model=` is checked whatever the mode. With `records=` the
    // shipped model waits for the first function the records do not decide: a run that finds
    // every function there loads none (0.2 s of ONNX Runtime's session on every build).
    if options.model.is_some()
        || (options.schedule.is_none() && options.evaluator != Evaluator::Execution && options.records.is_none())
    {
        cost_model::load(options.model.as_deref()).map_err(|e| OptionError::Model(e.to_string()))?;
    }
    if let Some(path) = &options.dump_file {
        std::fs::File::create(path).map_err(|e| OptionError::DumpFile {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    }
    if let Some(path) = &options.report {
        std::fs::File::create(path).map_err(|e| OptionError::Report {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    }
    if let Some(path) = &options.records {
        records::open_shared(path).map_err(|e| OptionError::Records(e.to_string()))?;
    }
    if let Some(path) = &options.emit_transform {
        let mut scripts = SCRIPTS.lock().unwrap_or_else(|p| p.into_inner());
        scripts.retain(|(p, _)| p != path);
        scripts.push((path.clone(), Default::default()));
        std::fs::write(path, script::script(&[])).map_err(|e| OptionError::EmitTransform {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    }
    Ok(())
}

/// The functions of each `emit-transform=` script so far (mlir-opt runs functions on
/// several threads; the whole script is written again after each, sorted by function).
static SCRIPTS: Mutex<Vec<(std::path::PathBuf, std::collections::BTreeMap<String, script::ScriptEntry>)>> = Mutex::new(Vec::new());

/// Adds `entry` to the `emit-transform=` script and writes it again.
fn write_script(options: &PassOptions, entry: script::ScriptEntry) -> Result<(), String> {
    let Some(path) = &options.emit_transform else { return Ok(()) };
    let mut scripts = SCRIPTS.lock().unwrap_or_else(|p| p.into_inner());
    let i = match scripts.iter().position(|(p, _)| p == path) {
        Some(i) => i,
        None => {
            scripts.push((path.clone(), Default::default()));
            scripts.len() - 1
        }
    };
    scripts[i].1.insert(entry.function.clone(), entry);
    let entries: Vec<script::ScriptEntry> = scripts[i].1.values().cloned().collect();
    std::fs::write(path, script::script(&entries))
        .map_err(|e| format!("affine-autosched: option 'emit-transform': cannot write '{}': {e}", path.display()))
}

/// Appends `report` to the `report=` file; a failure is an error diagnostic.
fn write_report(options: &PassOptions, report: &DecisionReport) -> Result<(), String> {
    let Some(path) = &options.report else { return Ok(()) };
    // Every line the pass writes carries its code generation options: the function was
    // given them whatever was decided (before the search, or with the applied schedule).
    let report = report.clone().with_codegen(options.fp_contract, options.prefer_vector_width);
    append_line(path, &to_json(&report))
        .map_err(|e| format!("affine-autosched: option 'report': cannot write '{}': {e}", path.display()))
}

fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    let _guard = FILE_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    // One write of the whole line: appends from other processes (a parallel build writing
    // to the same report) do not land inside it.
    f.write_all(format!("{line}\n").as_bytes())
}

/// What happened to a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The IR is as it was.
    Unchanged,
    /// A schedule was applied.
    Transformed,
    /// The pass must fail; errors were emitted and the IR is unchanged.
    Failed,
}

/// Runs the pass on one `func.func`, emitting diagnostics as it goes (each refers to an
/// operation that is live when it is emitted: a transformation replaces the body).
pub fn run_on_function(func: Op, options: &PassOptions, emit: &mut dyn FnMut(Diagnostic)) -> Outcome {
    let mut changed = false;
    let outcome = run(func, options, &mut changed, emit);
    // The code generation options changed the function even where no schedule did.
    if changed && outcome == Outcome::Unchanged {
        Outcome::Transformed
    } else {
        outcome
    }
}

/// The code generation options, `fp-contract=true` (the function's floating-point arithmetic
/// marked contractable) and `prefer-vector-width`, applied to `func`: what each did, one
/// line each (none: the function is as it was). The pass and `autosched apply/optimize`.
pub fn apply_codegen_options(func: Op, fp_contract: bool, vector_width: Option<u32>) -> Vec<String> {
    let name = func.string_attr("sym_name").unwrap_or_default();
    let mut done = Vec::new();
    if fp_contract {
        let marked = transform::allow_contraction(func);
        if marked > 0 {
            done.push(format!(
                "@{name}: fp-contract: {marked} floating-point operations marked fastmath<contract> (LLVM may fuse a multiply into the add that uses it; results may differ in the last bits)"
            ));
        }
    }
    if let Some(bits) = vector_width {
        transform::prefer_vector_width(func, bits);
        done.push(format!("@{name}: prefer-vector-width: LLVM is asked to vectorize for {bits}-bit vectors"));
    }
    done
}

/// [`apply_codegen_options`] with the pass's options, each said in a remark; `changed` is
/// set when they changed the function.
fn codegen_options(func: Op, options: &PassOptions, changed: &mut bool, emit: &mut dyn FnMut(Diagnostic)) {
    for line in apply_codegen_options(func, options.fp_contract, options.prefer_vector_width) {
        *changed = true;
        emit(Diagnostic { op: Some(func), severity: Severity::Remark, message: format!("affine-autosched: {line}") });
    }
}

fn run(func: Op, options: &PassOptions, changed: &mut bool, emit: &mut dyn FnMut(Diagnostic)) -> Outcome {
    let error = |message: String| Diagnostic { op: Some(func), severity: Severity::Error, message };
    let analysis = match ir::analyze_function(func) {
        Ok(a) => a,
        Err(e) => {
            emit(error(format!("affine-autosched: {e}")));
            return Outcome::Failed;
        }
    };
    let program = &analysis.program;
    log::debug!("{program}");
    for (entry, op) in program.not_modeled.iter().zip(&analysis.not_modeled_ops) {
        emit(Diagnostic {
            op: Some(*op),
            severity: Severity::Remark,
            message: format!("affine-autosched: nest not modeled: {}", entry.reason),
        });
    }
    if options.dump_representation {
        for (nest, op) in program.nests.iter().zip(&analysis.nest_ops) {
            emit(Diagnostic {
                op: Some(*op),
                severity: Severity::Remark,
                message: format!(
                    "affine-autosched: representation of nest {} of @{}: {}",
                    nest.index,
                    program.function,
                    to_json(&program.nest_report(nest.index))
                ),
            });
        }
    }
    if let Some(path) = &options.dump_file {
        if let Err(e) = append_line(path, &to_json(program)) {
            emit(error(format!("affine-autosched: option 'dump-file': cannot write '{}': {e}", path.display())));
            return Outcome::Failed;
        }
    }
    let Some(spec) = options.schedule.as_ref() else {
        // Before the search: hybrid and execution measure the function as it will run.
        codegen_options(func, options, changed, emit);
        return search_and_apply(func, program, options, emit);
    };
    if !spec.applies_to(&program.function) {
        return Outcome::Unchanged;
    }
    if spec.schedule.is_identity() {
        codegen_options(func, options, changed, emit);
        if options.emit_transform.is_some() {
            let entry = script::ScriptEntry::new(func, &program.function, &spec.schedule, "the schedule= option".into())
                .with_codegen(options.fp_contract, options.prefer_vector_width, true);
            if let Err(message) = write_script(options, entry) {
                emit(Diagnostic { op: Some(func), severity: Severity::Warning, message });
            }
        }
        return Outcome::Unchanged;
    }
    // The hash and the script are of the function as it was: taken before the schedule
    // changes it.
    let hash = if options.report.is_some() { crate::ir::canonical::function_hash(func) } else { String::new() };
    let entry = options
        .emit_transform
        .is_some()
        .then(|| {
            script::ScriptEntry::new(func, &program.function, &spec.schedule, "the schedule= option".into())
                .with_codegen(options.fp_contract, options.prefer_vector_width, false)
        });
    match transform::apply(func, &spec.schedule) {
        Ok(()) => {
            codegen_options(func, options, changed, emit);
            let prediction = match predict(program, &spec.schedule, options) {
                Ok(p) => Some(p),
                Err(why) => {
                    log::info!("no prediction for @{}: {why}", program.function);
                    None
                }
            };
            let predicted = prediction.map(|p| format!(" (predicted speedup {p:.2}x)")).unwrap_or_default();
            emit(Diagnostic {
                op: Some(func),
                severity: Severity::Remark,
                message: format!(
                    "affine-autosched: applied schedule to @{}: {}{predicted}",
                    program.function, spec.schedule
                ),
            });
            let report = DecisionReport::explicit(&program.function, &hash, &spec.schedule.to_string(), prediction);
            for r in [write_report(options, &report), entry.map_or(Ok(()), |e| write_script(options, e))] {
                if let Err(message) = r {
                    emit(Diagnostic { op: Some(func), severity: Severity::Warning, message });
                }
            }
            Outcome::Transformed
        }
        Err(e) => {
            emit(error(format!(
                "affine-autosched: schedule not applied to @{}: {e}; the IR was left unchanged",
                program.function
            )));
            Outcome::Failed
        }
    }
}

/// Searches a schedule for `func` with the evaluator of `options` and applies it when it
/// wins; one remark says what was done and why.
fn search_and_apply(func: Op, program: &Program, options: &PassOptions, emit: &mut dyn FnMut(Diagnostic)) -> Outcome {
    // Every function the search is asked about gets its report= line, kept or not.
    let report_kept = |why: String, emit: &mut dyn FnMut(Diagnostic)| {
        if options.report.is_none() {
            return;
        }
        let mut d = crate::search::Decision::without_search(crate::schedule::Schedule::default(), crate::search::Source::Search);
        d.kept = Some(why);
        let hash = crate::ir::canonical::function_hash(func);
        let report = DecisionReport::new(&program.function, &hash, options.evaluator.name(), &d, false);
        if let Err(message) = write_report(options, &report) {
            emit(Diagnostic { op: Some(func), severity: Severity::Warning, message });
        }
    };
    if program.nests.is_empty() {
        report_kept("no loop nest the pass models".into(), emit);
        return Outcome::Unchanged;
    }
    let remark = |message: String| Diagnostic { op: Some(func), severity: Severity::Remark, message };
    let store = match &options.records {
        Some(path) => match records::shared(path) {
            Ok(s) => Some(s),
            Err(e) => {
                emit(Diagnostic {
                    op: Some(func),
                    severity: Severity::Error,
                    message: format!("affine-autosched: option 'records': {e}"),
                });
                return Outcome::Failed;
            }
        },
        None => None,
    };
    // A function the records decide needs no search, so no cost model: looked up first, a
    // hit costs no model session (begin_run leaves the shipped model unloaded with records=).
    let looked = store.as_deref().map(|s| records::look(func, program, s));
    let model = match options.evaluator {
        _ if looked.as_ref().is_some_and(records::Looked::is_hit) => None,
        Evaluator::Execution => None,
        _ => match cost_model::load(options.model.as_deref()) {
            Ok(m) => Some(m),
            Err(e) => {
                emit(Diagnostic {
                    op: Some(func),
                    severity: Severity::Error,
                    message: format!("affine-autosched: @{}: no cost model: {e}", program.function),
                });
                return Outcome::Failed;
            }
        },
    };
    // A program beyond the model's limits (a computation deeper than its loop levels, more
    // accesses than it has slots) is outside what it can score: said in a remark, not a
    // failed search. The execution evaluator needs no model and still searches it.
    if model.is_some() {
        if let Err(e) = features::featurize(program, &crate::schedule::Schedule::default()) {
            emit(remark(format!(
                "affine-autosched: @{}: kept the original: the cost model cannot describe it ({e}); evaluator=execution can search it",
                program.function
            )));
            report_kept(format!("the cost model cannot describe it ({e})"), emit);
            return Outcome::Unchanged;
        }
    }
    let cfg = OptimizeConfig {
        confidence: options.confidence,
        vector_bits: options.prefer_vector_width,
        ..OptimizeConfig::new(
            SearchConfig { beam_width: options.beam_width, max_depth: options.max_depth },
            options.evaluator,
            options.measure_top_k,
        )
    };
    let decided = match (store.as_deref(), looked) {
        (Some(s), Some(l)) => records::decide_looked(func, program, model.as_deref(), &cfg, s, l),
        _ => records::decide(func, program, model.as_deref(), &cfg, None),
    };
    let (decision, hash) = match decided {
        Ok(d) => d,
        Err(e) => {
            // A failed search leaves the function as it was: a warning, not a failed pipeline.
            emit(Diagnostic {
                op: Some(func),
                severity: Severity::Warning,
                message: format!("affine-autosched: @{}: left unchanged: the search failed: {e}", program.function),
            });
            report_kept(format!("the search failed: {e}"), emit);
            return Outcome::Unchanged;
        }
    };
    // The report's hash is of the function as it was: taken before the schedule changes it.
    let hash = hash
        .or_else(|| options.report.is_some().then(|| crate::ir::canonical::function_hash(func)))
        .unwrap_or_default();
    for w in &decision.warnings {
        emit(Diagnostic { op: Some(func), severity: Severity::Warning, message: format!("affine-autosched: {w}") });
    }
    let entry = options
        .emit_transform
        .is_some()
        .then(|| {
            script::ScriptEntry::new(func, &program.function, &decision.schedule, decision.evidence(options.evaluator))
                .with_codegen(options.fp_contract, decision.vector_bits(options.prefer_vector_width), true)
        });
    let outcome = if decision.schedule.is_identity() {
        Outcome::Unchanged
    } else if let Err(e) = decision.apply(func) {
        emit(Diagnostic {
            op: Some(func),
            severity: Severity::Warning,
            message: format!(
                "affine-autosched: @{}: left unchanged: the chosen schedule {} failed to apply: {e}",
                program.function, decision.schedule
            ),
        });
        let mut kept = decision.clone();
        kept.warnings.push(format!("the chosen schedule {} failed to apply: {e}", decision.schedule));
        kept.kept = Some(format!("the chosen schedule failed to apply: {e}"));
        let report = DecisionReport::new(&program.function, &hash, options.evaluator.name(), &kept, false);
        if let Err(message) = write_report(options, &report) {
            emit(Diagnostic { op: Some(func), severity: Severity::Warning, message });
        }
        return Outcome::Unchanged;
    } else {
        Outcome::Transformed
    };
    for n in &decision.notes {
        emit(remark(format!("affine-autosched: {n}")));
    }
    emit(remark(format!("affine-autosched: {}", decision.summary(&program.function, options.evaluator))));
    let report = DecisionReport::new(&program.function, &hash, options.evaluator.name(), &decision, outcome == Outcome::Transformed);
    for r in [write_report(options, &report), entry.map_or(Ok(()), |e| write_script(options, e))] {
        if let Err(message) = r {
            // The IR may already be changed: a warning (begin_run found the files writable).
            emit(Diagnostic { op: Some(func), severity: Severity::Warning, message });
        }
    }
    outcome
}

/// The model's predicted speedup of `schedule` on `program` (the shipped model unless
/// `model=` names one).
fn predict(program: &Program, schedule: &crate::schedule::Schedule, options: &PassOptions) -> Result<f32, String> {
    let model = cost_model::load(options.model.as_deref()).map_err(|e| e.to_string())?;
    let f = features::featurize(program, schedule).map_err(|e| e.to_string())?;
    model.predict(&[&f]).map_err(|e| e.to_string()).map(|p| p[0])
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Serializing plain data structures cannot fail.
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// Convenience for the command line and tests: the program of every function in `ops`.
pub fn describe(funcs: &[Op]) -> Vec<Program> {
    funcs.iter().filter_map(|f| ir::analyze_function(*f).ok().map(|a| a.program)).collect()
}
