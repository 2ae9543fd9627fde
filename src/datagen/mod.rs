//! `datagen`: the training data. Random programs ([`programs`]), random legal schedules
//! ([`sampler`]), measured in batches with [`crate::measure`], written as JSON Lines.
//!
//! One batch per program: the identity and every accepted schedule become functions
//! `v0`, `v1`, ... of one module, compiled once and run by one driver with the variants
//! interleaved, so every speedup is a ratio measured in one run next to its identity.
//! Outputs are compared with the identity's bit for bit; a mismatch is a bug, logged to the
//! shard's `.failed.jsonl`, and never stored as data.
//!
//! Shards: program `i` belongs to shard `i mod n`. A shard appends whole programs (all
//! their records in one write) to `shard-<i>-of-<n>.jsonl`; on restart it drops a torn last
//! line and skips the programs already present or already failed, so an interrupted run
//! resumes with no duplicate and no lost point.

pub mod programs;
pub mod rng;
pub mod sampler;

use crate::ir::{self, Program};
use crate::measure::{self, Entry, MeasureConfig};
use crate::mlir::{rename, LoadedModule};
use crate::schedule::Schedule;
use programs::{GeneratedProgram, ProgramClass, FUNCTION};
use rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the machine was: stored with every point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub llvm: String,
    pub threads: usize,
    /// The data and unified caches of one core (from sysfs), smallest level first: what
    /// the data card compares working sets with.
    #[serde(default)]
    pub caches: Vec<Cache>,
    /// The OpenMP settings of the measurements besides the thread count
    /// ([`measure::OMP_BINDING`]; empty in data from before they were set).
    #[serde(default)]
    pub omp: String,
    /// The instruction-set extensions `-march=native` code may use here
    /// ([`crate::machine::ISA_FEATURES`]): the vector width the measured code ran at (data
    /// from before 2026-11-26 has none; the card tells its hosts apart by their caches).
    #[serde(default)]
    pub isa: Vec<String>,
}

pub use crate::machine::{detect_caches, Cache};

impl Machine {
    pub fn detect(threads: usize) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| t.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
            .unwrap_or_else(|| "unknown".into());
        let llvm = std::process::Command::new(measure::compile::MLIR_OPT)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .find(|l| l.contains("version"))
                    .map(|l| l.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        Machine {
            cpu,
            cores: crate::machine::cores(),
            llvm,
            threads,
            caches: detect_caches(),
            omp: measure::OMP_BINDING.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
            isa: crate::machine::fingerprint().isa.clone(),
        }
    }
}

/// One measured (program, schedule) point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub program_id: String,
    pub seed: u64,
    pub index: u64,
    pub class: ProgramClass,
    pub function: String,
    /// The program as generated (the identity).
    pub mlir: String,
    pub representation: Program,
    /// Empty for the identity.
    pub schedule: String,
    /// Median seconds per run, and every sample (in a batch over its time budget the first
    /// is the check run; see `MeasureConfig::rep_budget`).
    pub time_s: f64,
    pub times_s: Vec<f64>,
    /// Relative median absolute deviation of `times_s`.
    pub spread: f64,
    pub identity_time_s: f64,
    pub identity_spread: f64,
    /// identity median / this median, both from the same batch.
    pub speedup: f64,
    /// Spread of this point or of its identity above [`NOISY_SPREAD`].
    pub noisy: bool,
    /// Wall seconds of the whole batch: compiling, and running the driver.
    pub batch_compile_s: f64,
    pub batch_run_s: f64,
    pub batch_size: usize,
    /// Driver runs of the batch: 2 when the first was noisy and it was measured again (the
    /// steadier run is the one recorded).
    #[serde(default = "one")]
    pub rounds: usize,
    pub machine: Machine,
    /// A variant whose check run took more than [`CUTOFF`] times the identity's is not timed
    /// further: `time_s` is that one run, and `speedup` a bound (the variant is at most that
    /// fast). The trainer treats it as a bound, not a value.
    #[serde(default)]
    pub censored: bool,
    /// How busy the CPUs were (other processes) right before the batch was measured, and
    /// how long the generator waited for them (see `measure::quiet`).
    #[serde(default)]
    pub busy_before: f64,
    #[serde(default)]
    pub quiet_wait_s: f64,
    /// How busy other processes kept the CPUs while the batch was compiled and measured
    /// (ours subtracted; 0 in data from before it was recorded). A batch over the quiet
    /// policy's limit is measured again; one still busy after [`BUSY_RETRIES`] is kept with
    /// its points flagged `noisy`.
    #[serde(default)]
    pub busy_during: f64,
    /// Times the batch was measured again because others were busy while it ran.
    #[serde(default)]
    pub busy_retries: usize,
    /// Wall seconds of the whole program, from generating it to its records: sampling and
    /// checking schedules, waiting, compiling, running, comparing. Points over the sum of
    /// these is the generator's throughput (0 in data from before it was recorded).
    #[serde(default)]
    pub batch_wall_s: f64,
    /// The version of the search's space the schedule was drawn from ([`sampler::SPACE`]);
    /// 0 in data from before it was recorded (drawn from earlier spaces: a walk of theirs
    /// is not what the sampler draws now).
    #[serde(default)]
    pub space: u32,
}

fn one() -> usize {
    1
}

/// A variant this many times slower than the identity in its check run is cut off (stored
/// as a censored point: at most 1 / CUTOFF = 0.25x).
pub const CUTOFF: f64 = 4.0;

/// A point whose runs spread more than this (relative MAD) is flagged noisy.
pub const NOISY_SPREAD: f64 = 0.05;

#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub seed: u64,
    pub programs: u64,
    pub schedules_per_program: usize,
    /// How many of a program's schedules are long walks (see [`build_batch`]).
    pub long_walks: usize,
    /// How many are lookahead walks (see [`build_batch_with_lookahead`]).
    pub lookahead_walks: usize,
    /// Neighbours of the drawn schedules measured beside them, at most, per program (see
    /// [`build_batch_with_neighbours`]).
    pub neighbours: Neighbours,
    pub out: PathBuf,
    pub shard: (u64, u64),
    pub measure: MeasureConfig,
    pub progress: bool,
    /// Merged datasets whose programs are already measured (skipped here).
    pub resume_from: Vec<PathBuf>,
    /// Wait for other processes to leave the CPUs before measuring each batch (None: do
    /// not look; for a machine where the generator runs beside its own shards).
    pub quiet: Option<measure::quiet::QuietPolicy>,
    pub sizes: programs::Sizes,
    /// Draw only programs of this class, from its own stream (see
    /// [`programs::generate_class`]); `None`: the mix of the size profile's classes.
    pub class: Option<programs::ProgramClass>,
    /// Measure again, instead of generating, the points of a dataset whose schedule holds
    /// a step of a kind (e.g. after that kind's code generation changed).
    pub remeasure: Option<Remeasure>,
}

/// `autosched datagen --remeasure DATASET --kind K`: the programs of DATASET that have
/// points with a `K` step, each measured again with exactly those schedules and its
/// identity in one interleaved batch (as generated batches are). The new points, merged
/// before the old dataset (`autosched merge NEW OLD`), replace the old ones: a merge keeps
/// the first copy of a (program, schedule).
#[derive(Clone, Debug)]
pub struct Remeasure {
    pub dataset: PathBuf,
    pub kind: String,
}

/// `--kind any`: every scheduled point of the dataset (e.g. to measure a sample of it again on
/// another host and compare the labels).
pub const ANY_KIND: &str = "any";

/// The programs of `r.dataset` with points of kind `r.kind` (in the dataset's order of first
/// appearance), each with those points' schedules.
pub fn remeasure_jobs(r: &Remeasure) -> Result<Vec<(GeneratedProgram, Vec<Schedule>)>, DatagenError> {
    let any = r.kind == ANY_KIND;
    if !any && !crate::schedule::kinds::NAMES.contains(&r.kind.as_str()) {
        return Err(DatagenError::Program {
            id: r.dataset.display().to_string(),
            message: format!(
                "no transformation kind '{}' (kinds: {}, or {ANY_KIND} for every scheduled point)",
                r.kind,
                crate::schedule::kinds::NAMES.join(", ")
            ),
        });
    }
    #[derive(Deserialize)]
    struct Point {
        program_id: String,
        seed: u64,
        index: u64,
        class: ProgramClass,
        mlir: String,
        schedule: String,
    }
    let mut jobs: Vec<(GeneratedProgram, Vec<Schedule>)> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut bad = None;
    for_each_line(&r.dataset, |line| {
        let Ok(point) = serde_json::from_str::<Point>(line) else { return };
        let schedule: Schedule = match point.schedule.parse() {
            Ok(s) => s,
            Err(e) => {
                bad.get_or_insert(DatagenError::Program { id: point.program_id.clone(), message: format!("{}: {e}", point.schedule) });
                return;
            }
        };
        if schedule.steps.is_empty() || !(any || schedule.steps.iter().any(|t| t.kind() == r.kind)) {
            return;
        }
        let k = *at.entry(point.program_id.clone()).or_insert_with(|| {
            let p = GeneratedProgram { id: point.program_id, seed: point.seed, index: point.index, class: point.class, mlir: point.mlir };
            jobs.push((p, Vec::new()));
            jobs.len() - 1
        });
        if !jobs[k].1.contains(&schedule) {
            jobs[k].1.push(schedule);
        }
    })?;
    match bad {
        Some(e) => Err(e),
        None => Ok(jobs),
    }
}

/// The batch of `p` with exactly `schedules` (each must still apply: a refusal is an error).
pub fn given_batch(p: &GeneratedProgram, schedules: &[Schedule]) -> Result<Batch, DatagenError> {
    let fail = |message: String| DatagenError::Program { id: p.id.clone(), message };
    let module = LoadedModule::from_source(&p.mlir).map_err(|e| fail(format!("does not parse/verify: {e}")))?;
    let func = *module.functions().first().ok_or_else(|| fail("no function".into()))?;
    let program = ir::analyze_function(func).map_err(|e| fail(e.to_string()))?.program;
    let signature = measure::Signature::of(func).map_err(|e| fail(e.to_string()))?;
    Ok(Batch { program, schedules: schedules.to_vec(), mlir: batch_module(p, schedules)?, signature, refused: 0 })
}

#[derive(Debug, thiserror::Error)]
pub enum DatagenError {
    #[error("I/O error on {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("program {id}: {message}")]
    Program { id: String, message: String },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> DatagenError + '_ {
    move |e| DatagenError::Io { path: path.to_path_buf(), message: e.to_string() }
}

/// The variants of one program, ready to measure.
#[derive(Clone)]
pub struct Batch {
    pub program: Program,
    pub schedules: Vec<Schedule>,
    pub mlir: String,
    pub signature: measure::Signature,
    /// Proposals refused by the legality checks (or duplicates), for the statistics.
    pub refused: usize,
}

/// Builds the batch of `program`: the identity and up to `k` distinct legal schedules, of
/// which up to `long` are long walks ([`sampler::Walk::Long`]) and the rest short ones. The
/// two kinds draw from separate streams, so the short schedules of a batch are the first
/// ones of the batch built with `long = 0`: data generated before long walks existed is
/// reproduced by `long = 0`.
pub fn build_batch(p: &GeneratedProgram, k: usize, long: usize) -> Result<Batch, DatagenError> {
    build_batch_with_lookahead(p, k, long, 0)
}

/// [`build_batch`] with up to `lookahead` of the `k` schedules drawn as lookahead walks
/// ([`sampler::Walk::Lookahead`]: register tiles of contraction bands, packed or not), from
/// a stream of their own after the short and long ones: with `lookahead = 0` the batch is
/// [`build_batch`]'s, and the short and long schedules do not depend on it.
pub fn build_batch_with_lookahead(p: &GeneratedProgram, k: usize, long: usize, lookahead: usize) -> Result<Batch, DatagenError> {
    build_batch_with_neighbours(p, k, long, lookahead, Neighbours::default())
}

/// At most this many neighbours of one kind of one drawn schedule join a batch, so that the
/// neighbours of a batch are those of several schedules.
const NEIGHBOURS_PER_SCHEDULE: usize = 4;

/// Schedules measured beside a batch's drawn ones, at most, that differ from one of them in
/// one respect only (see [`build_batch_with_neighbours`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Neighbours {
    /// Its parallel loops chosen otherwise (`search::parallel_neighbours`).
    pub parallel: usize,
    /// Its unrolls replaced by a register tile, of another shape where it has one
    /// (`search::register_tile_neighbours`).
    pub register: usize,
}

/// [`build_batch_with_lookahead`] with more schedules: drawn schedules with their parallel
/// loops chosen otherwise (`search::parallel_neighbours`, as hybrid measures beside its
/// fastest finalist), then with their unrolls replaced by a register tile, of another shape
/// where they have one (`search::register_tile_neighbours`), those of schedules with an
/// `accumulate` step first, at most [`NEIGHBOURS_PER_SCHEDULE`] of each kind per schedule. They are measured in
/// the same interleaved run as the schedules they differ from, so the data holds which loop
/// gets the threads, and which shape the tile takes, with everything else equal: the model's
/// most frequent errors on the DNN layers (conv2d's register tile parallel over a batch of 4
/// inside the channel loop; its 4x16 tile where the 8x8 one runs 2x faster). Deterministic: no
/// stream is drawn, so the walks are those without neighbours.
pub fn build_batch_with_neighbours(
    p: &GeneratedProgram,
    k: usize,
    long: usize,
    lookahead: usize,
    neighbours: Neighbours,
) -> Result<Batch, DatagenError> {
    let fail = |message: String| DatagenError::Program { id: p.id.clone(), message };
    let module = LoadedModule::from_source(&p.mlir).map_err(|e| fail(format!("does not parse/verify: {e}")))?;
    let func = *module.functions().first().ok_or_else(|| fail("no function".into()))?;
    let analysis = ir::analyze_function(func).map_err(|e| fail(e.to_string()))?;
    let program = analysis.program;
    if program.nests.is_empty() || !program.not_modeled.is_empty() {
        return Err(fail(format!("not fully modeled: {:?}", program.not_modeled)));
    }
    let signature = measure::Signature::of(func).map_err(|e| fail(e.to_string()))?;
    let long = long.min(k);
    let lookahead = lookahead.min(k - long);
    let mut seen: HashSet<String> = HashSet::new();
    let mut schedules = Vec::new();
    let mut refused = 0;
    let salt = programs::stream_salt(p);
    let streams = [
        (sampler::Walk::Short, Rng::for_item(p.seed ^ 0x5c4e_d01e ^ salt, p.index), k - long - lookahead),
        (sampler::Walk::Long, Rng::for_item(p.seed ^ 0x10a9_3a1c ^ salt, p.index), long),
        (sampler::Walk::Lookahead, Rng::for_item(p.seed ^ 0x7a11_7e5e ^ salt, p.index), lookahead),
    ];
    for (kind, mut rng, want) in streams {
        let goal = schedules.len() + want;
        for _ in 0..want * 6 {
            if schedules.len() == goal {
                break;
            }
            let s = sampler::walk(func, &program, &mut rng, crate::options::DEFAULT_MAX_DEPTH as usize, kind);
            let text = s.to_string();
            if s.is_identity() || !seen.insert(text) {
                continue;
            }
            match add_variant(&module, func, schedules.len() + 1, &s) {
                Ok(()) => schedules.push(s),
                Err(e) => {
                    log::debug!("{}: {s} refused: {e}", p.id);
                    refused += 1;
                }
            }
        }
    }
    let is_tile = |s: &Schedule| s.steps.iter().any(|t| matches!(t, crate::schedule::Transform::Accumulate(_)));
    let mut bases: Vec<Schedule> = schedules.iter().filter(|s| is_tile(s)).cloned().collect();
    bases.extend(schedules.iter().filter(|s| !is_tile(s)).cloned());
    type Finder = fn(ir::mlir::Op, &Program, &Schedule) -> Vec<Schedule>;
    let kinds: [(usize, Finder); 2] = [
        (neighbours.parallel, crate::search::parallel_neighbours),
        (neighbours.register, crate::search::register_tile_neighbours),
    ];
    for (want, find) in kinds {
        let mut added = 0;
        'bases: for base in bases.iter().take_while(|_| want > 0) {
            let mut here = 0;
            for n in find(func, &program, base) {
                if added == want {
                    break 'bases;
                }
                if here == NEIGHBOURS_PER_SCHEDULE {
                    break;
                }
                if !seen.insert(n.to_string()) {
                    continue;
                }
                match add_variant(&module, func, schedules.len() + 1, &n) {
                    Ok(()) => {
                        schedules.push(n);
                        added += 1;
                        here += 1;
                    }
                    Err(e) => {
                        log::debug!("{}: neighbour {n} refused: {e}", p.id);
                        refused += 1;
                    }
                }
            }
        }
    }
    mark_identity(func);
    Ok(Batch { program, schedules, mlir: module.operation().to_text(), signature, refused })
}

/// The module of a batch: the identity as `v0` and `schedules[i]` as `v{i+1}`.
pub fn batch_module(p: &GeneratedProgram, schedules: &[Schedule]) -> Result<String, DatagenError> {
    let fail = |message: String| DatagenError::Program { id: p.id.clone(), message };
    let module = LoadedModule::from_source(&p.mlir).map_err(|e| fail(e.to_string()))?;
    let func = *module.functions().first().ok_or_else(|| fail("no function".into()))?;
    for (i, s) in schedules.iter().enumerate() {
        add_variant(&module, func, i + 1, s).map_err(|e| fail(format!("{s}: {e}")))?;
    }
    mark_identity(func);
    Ok(module.operation().to_text())
}

/// Adds `func` transformed by `s` to the module as `v<k>`, callable by the driver; on a
/// refusal the copy is removed again.
fn add_variant(module: &LoadedModule, func: ir::mlir::Op, k: usize, s: &Schedule) -> Result<(), crate::transform::TransformError> {
    let copy = module.add_copy(func, &format!("v{k}"));
    match crate::transform::apply(copy, s) {
        Ok(()) => {
            copy.set_unit_attr("llvm.emit_c_interface");
            Ok(())
        }
        Err(e) => {
            module.remove(copy);
            Err(e)
        }
    }
}

/// The untransformed function becomes `v0` of its batch.
fn mark_identity(func: ir::mlir::Op) {
    rename(func, "v0");
    func.set_unit_attr("llvm.emit_c_interface");
}

/// LLVM occasionally spends minutes on one loop nest. When a batch does not compile in
/// time, each schedule is compiled alone (with the identity) under a short limit, and the
/// batch is rebuilt from those that compile.
fn drop_slow_compiles(p: &GeneratedProgram, batch: &Batch, cfg: &MeasureConfig) -> Result<Batch, DatagenError> {
    let quick = MeasureConfig { compile_timeout: Duration::from_secs(8), ..cfg.clone() };
    let compiles = |schedules: &[Schedule]| -> bool {
        let Ok(text) = batch_module(p, schedules) else { return false };
        let dir = std::env::temp_dir().join(format!("autosched-probe-{}-{}", std::process::id(), p.index));
        let ok = std::fs::create_dir_all(&dir).is_ok()
            && measure::compile::shared_library(&text, &dir, "probe", quick.compile_timeout).is_ok();
        let _ = std::fs::remove_dir_all(&dir);
        ok
    };
    if !compiles(&[]) {
        return Err(DatagenError::Program { id: p.id.clone(), message: "the identity does not compile in time".into() });
    }
    let kept: Vec<Schedule> = batch.schedules.iter().filter(|s| compiles(std::slice::from_ref(*s))).cloned().collect();
    log::warn!("{}: {} of {} schedules compile in time", p.id, kept.len(), batch.schedules.len());
    Ok(Batch {
        program: batch.program.clone(),
        mlir: batch_module(p, &kept)?,
        refused: batch.refused + batch.schedules.len() - kept.len(),
        schedules: kept,
        signature: batch.signature.clone(),
    })
}

/// The batch module `mlir` (functions `v0`, `v1`, ...) as `parts` modules: function `vK`
/// goes to module K mod `parts`.
pub fn split_module(mlir: &str, parts: usize) -> Result<Vec<String>, crate::mlir::LoadError> {
    if parts <= 1 {
        return Ok(vec![mlir.to_string()]);
    }
    (0..parts)
        .map(|part| {
            let module = LoadedModule::from_source(mlir)?;
            for f in module.functions() {
                let k = f.string_attr("sym_name").and_then(|n| n.strip_prefix('v').and_then(|k| k.parse::<usize>().ok()));
                if k.is_some_and(|k| k % parts != part) {
                    module.remove(f);
                }
            }
            Ok(module.operation().to_text())
        })
        .collect()
}

/// Measures a batch; returns its records (identity first), the mismatches found, and the
/// batch without its schedules that do not compile in time, if it had any (a batch measured
/// again starts from that one).
pub fn measure_batch(
    p: &GeneratedProgram,
    batch: &Batch,
    cfg: &MeasureConfig,
    machine: &Machine,
    quiet: measure::quiet::QuietWait,
) -> Result<(Vec<Record>, Vec<String>, Option<Batch>), DatagenError> {
    // Variant v is compiled in part v mod `parts`: one module per core, compiled side by side.
    let parts = crate::machine::cores().clamp(1, batch.schedules.len() + 1);
    let entries_of = |b: &Batch| -> Vec<Entry> {
        (0..=b.schedules.len()).map(|v| Entry { label: format!("v{v}"), library: v % parts, function: format!("v{v}") }).collect()
    };
    let fail = |e: measure::MeasureError| DatagenError::Program { id: p.id.clone(), message: e.to_string() };
    let measure_split = |b: &Batch| -> Result<measure::Measurement, measure::MeasureError> {
        let modules = split_module(&b.mlir, parts).map_err(|e| measure::MeasureError::Io(format!("{}: {e}", p.id)))?;
        let libraries: Vec<measure::Library> = modules.iter().map(|m| measure::Library::Mlir(m)).collect();
        measure::measure_entries(&libraries, &entries_of(b), &b.signature, cfg)
    };
    let mut rebuilt = None;
    let m = match measure_split(batch) {
        Ok(m) => m,
        Err(measure::MeasureError::Tool { message, .. }) if message.contains("timed out") => {
            let reduced = drop_slow_compiles(p, batch, cfg)?;
            let m = measure_split(&reduced).map_err(fail)?;
            rebuilt = Some(reduced);
            m
        }
        Err(e) => return Err(fail(e)),
    };
    let batch = rebuilt.as_ref().unwrap_or(batch);
    let entries = entries_of(batch);
    let identity = &m.timings[0];
    let (it, ispread) = (identity.median(), identity.relative_mad());
    let mut records = Vec::new();
    let mut mismatches = Vec::new();
    for (v, timing) in m.timings.iter().enumerate() {
        let schedule = if v == 0 { String::new() } else { batch.schedules[v - 1].to_string() };
        if v > 0 && !m.verdicts[v - 1].equivalent {
            mismatches.push(format!("{schedule}: {}", m.verdicts[v - 1].detail));
            continue;
        }
        let spread = timing.relative_mad();
        records.push(Record {
            program_id: p.id.clone(),
            seed: p.seed,
            index: p.index,
            class: p.class,
            function: FUNCTION.to_string(),
            mlir: p.mlir.clone(),
            representation: batch.program.clone(),
            schedule,
            time_s: timing.median(),
            times_s: timing.times.clone(),
            spread,
            identity_time_s: it,
            identity_spread: ispread,
            speedup: it / timing.median(),
            noisy: spread > NOISY_SPREAD || ispread > NOISY_SPREAD,
            batch_compile_s: m.compile_seconds,
            batch_run_s: m.run_seconds,
            batch_size: entries.len(),
            rounds: m.rounds,
            machine: machine.clone(),
            censored: timing.cut_off,
            busy_before: quiet.busy,
            quiet_wait_s: quiet.waited_s,
            busy_during: 0.0,
            busy_retries: 0,
            batch_wall_s: 0.0,
            space: sampler::SPACE,
        });
    }
    Ok((records, mismatches, rebuilt.clone()))
}

/// Paths of one shard's outputs.
pub fn shard_paths(out: &Path, shard: (u64, u64)) -> (PathBuf, PathBuf) {
    let stem = format!("shard-{}-of-{}", shard.0, shard.1);
    (out.join(format!("{stem}.jsonl")), out.join(format!("{stem}.failed.jsonl")))
}

/// Reads the program ids already in a shard file, first cutting a torn last line.
fn recover(path: &Path) -> Result<BTreeSet<String>, DatagenError> {
    let mut done = BTreeSet::new();
    if !path.exists() {
        return Ok(done);
    }
    let text = std::fs::read(path).map_err(io(path))?;
    let good = text.iter().rposition(|&b| b == b'\n').map(|i| i + 1).unwrap_or(0);
    let mut keep = 0;
    for line in text[..good].split_inclusive(|&b| b == b'\n') {
        #[derive(Deserialize)]
        struct Id {
            program_id: String,
        }
        match serde_json::from_slice::<Id>(line) {
            Ok(r) => {
                done.insert(r.program_id);
                keep += line.len();
            }
            Err(_) => break,
        }
    }
    if keep < text.len() {
        log::warn!("{}: dropping {} bytes of a torn write", path.display(), text.len() - keep);
        let f = std::fs::OpenOptions::new().write(true).open(path).map_err(io(path))?;
        f.set_len(keep as u64).map_err(io(path))?;
    }
    Ok(done)
}

/// Totals of one run of [`run`].
#[derive(Debug, Default)]
pub struct Summary {
    pub programs: usize,
    pub skipped: usize,
    pub failed: usize,
    pub points: usize,
    pub mismatches: usize,
    pub compile_s: f64,
    pub run_s: f64,
    pub wall_s: f64,
    /// Seconds spent waiting for a quiet machine, and batches measured on a busy one after
    /// the wait ran out.
    pub quiet_wait_s: f64,
    pub busy_batches: usize,
    /// Batches measured again because other processes were busy while they ran.
    pub remeasured_batches: usize,
}

/// Times a batch disturbed by other processes is measured again before it is kept as noisy.
pub const BUSY_RETRIES: usize = 2;

/// Generates and measures the programs of one shard, resuming where a previous run stopped.
pub fn run(cfg: &DatagenConfig) -> Result<Summary, DatagenError> {
    std::fs::create_dir_all(&cfg.out).map_err(io(&cfg.out))?;
    let (data_path, failed_path) = shard_paths(&cfg.out, cfg.shard);
    let mut done = recover(&data_path)?;
    if failed_path.exists() {
        let f = std::fs::File::open(&failed_path).map_err(io(&failed_path))?;
        for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                if let Some(id) = v.get("program_id").and_then(|x| x.as_str()) {
                    done.insert(id.to_string());
                }
            }
        }
    }
    for merged in &cfg.resume_from {
        for_each_line(merged, |line| {
            if let Ok(k) = serde_json::from_str::<Key>(line) {
                done.insert(k.program_id);
            }
        })?;
    }
    let machine = Machine::detect(cfg.measure.threads);
    // Each job: a program, with the schedules to measure (None: drawn by random walks).
    let jobs: Vec<(u64, Option<(GeneratedProgram, Vec<Schedule>)>)> = match &cfg.remeasure {
        None => (0..cfg.programs).filter(|i| i % cfg.shard.1 == cfg.shard.0).map(|i| (i, None)).collect(),
        Some(r) => remeasure_jobs(r)?
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 % cfg.shard.1 == cfg.shard.0)
            .map(|(i, j)| (i as u64, Some(j)))
            .collect(),
    };
    let bar = if cfg.progress {
        indicatif::ProgressBar::new(jobs.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} programs, {msg}, ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut summary = Summary::default();
    let start = std::time::Instant::now();
    let append = |path: &Path, text: &str| -> Result<(), DatagenError> {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io(path))?;
        f.write_all(text.as_bytes()).map_err(io(path))?;
        f.sync_data().map_err(io(path))
    };
    for (index, given) in jobs {
        bar.inc(1);
        let (p, batch) = match given {
            None => {
                let p = programs::generate_class(cfg.seed, index, cfg.sizes, cfg.class);
                (p, None)
            }
            Some((p, schedules)) => (p, Some(schedules)),
        };
        if done.contains(&p.id) {
            summary.skipped += 1;
            continue;
        }
        let program_start = std::time::Instant::now();
        let batch = match batch {
            None => build_batch_with_neighbours(&p, cfg.schedules_per_program, cfg.long_walks, cfg.lookahead_walks, cfg.neighbours),
            Some(schedules) => given_batch(&p, &schedules),
        };
        let outcome = batch.and_then(|mut b| {
            // Compiled and checked; now the timing, on a quiet machine.
            let mut retries = 0;
            loop {
                let quiet = match &cfg.quiet {
                    Some(policy) => measure::quiet::wait_until_quiet(policy, measure::quiet::cpu_busy),
                    None => measure::quiet::QuietWait { waited_s: 0.0, busy: 0.0, quiet: true },
                };
                summary.quiet_wait_s += quiet.waited_s;
                if !quiet.quiet {
                    log::warn!("{}: measured on a busy machine ({:.0}% of the CPUs) after waiting {:.0} s", p.id, quiet.busy * 100.0, quiet.waited_s);
                    summary.busy_batches += 1;
                }
                let before = measure::quiet::CpuCounters::read();
                let (mut records, mismatches, reduced) = measure_batch(&p, &b, &cfg.measure, &machine, quiet)?;
                if let Some(reduced) = reduced {
                    b = reduced;
                }
                let during = before.zip(measure::quiet::CpuCounters::read()).and_then(|(a, z)| a.others_busy(&z));
                if let (Some(policy), Some(busy)) = (&cfg.quiet, during) {
                    if busy > policy.max_busy {
                        if retries < BUSY_RETRIES {
                            retries += 1;
                            summary.remeasured_batches += 1;
                            log::warn!("{}: other processes used {:.0}% of the CPUs while it was measured: measuring again", p.id, busy * 100.0);
                            continue;
                        }
                        log::warn!("{}: still disturbed ({:.0}% of the CPUs) after {BUSY_RETRIES} more tries: kept as noisy", p.id, busy * 100.0);
                        records.iter_mut().for_each(|r| r.noisy = true);
                    }
                }
                for r in &mut records {
                    r.busy_during = during.unwrap_or(0.0);
                    r.busy_retries = retries;
                }
                return Ok((b, (records, mismatches)));
            }
        });
        match outcome {
            Ok((_, (mut records, mismatches))) => {
                let wall = program_start.elapsed().as_secs_f64();
                for r in &mut records {
                    r.batch_wall_s = wall;
                }
                for m in &mismatches {
                    log::error!("{}: MISMATCH (a bug, not stored): {m}", p.id);
                    let line = serde_json::json!({"program_id": p.id, "error": format!("mismatch: {m}")});
                    append(&failed_path, &format!("{line}\n"))?;
                }
                summary.mismatches += mismatches.len();
                if let Some(r) = records.first() {
                    summary.compile_s += r.batch_compile_s;
                    summary.run_s += r.batch_run_s;
                }
                let mut text = String::new();
                for r in &records {
                    text.push_str(&serde_json::to_string(r).expect("plain data"));
                    text.push('\n');
                }
                append(&data_path, &text)?;
                summary.points += records.len();
                summary.programs += 1;
            }
            Err(e) => {
                log::warn!("{e}");
                let line = serde_json::json!({"program_id": p.id, "class": p.class, "error": e.to_string()});
                append(&failed_path, &format!("{line}\n"))?;
                summary.failed += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        bar.set_message(format!("{} points, {:.2} points/s", summary.points, summary.points as f64 / secs.max(1e-9)));
    }
    bar.finish();
    summary.wall_s = start.elapsed().as_secs_f64();
    Ok(summary)
}

#[derive(Deserialize)]
struct Key {
    program_id: String,
    #[serde(default)]
    schedule: String,
}

/// Calls `f` on every line of a JSON Lines file, plain or gzip-compressed (`.gz`).
pub fn for_each_line(path: &Path, mut f: impl FnMut(&str)) -> Result<(), DatagenError> {
    let file = std::fs::File::open(path).map_err(io(path))?;
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(std::io::BufReader::new(file))
    };
    for line in reader.lines() {
        f(&line.map_err(io(path))?);
    }
    Ok(())
}

/// Merges `inputs` (shard directories, whose `shard-*.jsonl` are read, and JSON Lines
/// files, plain or gzip) into one gzip-compressed JSON Lines file, dropping duplicates of
/// (program, schedule). Returns (points written, duplicates dropped).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<(usize, usize), DatagenError> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut shards: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(io(input))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    n.starts_with("shard-") && n.ends_with(".jsonl") && !n.ends_with(".failed.jsonl")
                })
                .collect();
            shards.sort();
            files.extend(shards);
        } else {
            files.push(input.clone());
        }
    }
    // Write to a temporary name first: `out` may also be one of the inputs.
    let tmp = out.with_extension("tmp");
    let file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    let mut gz = flate2::write::GzEncoder::new(std::io::BufWriter::new(file), flate2::Compression::best());
    let mut seen = HashSet::new();
    let (mut written, mut duplicates) = (0, 0);
    let mut error = None;
    for f in &files {
        for_each_line(f, |line| {
            let Ok(k) = serde_json::from_str::<Key>(line) else { return };
            if !seen.insert((k.program_id, k.schedule)) {
                duplicates += 1;
                return;
            }
            if let Err(e) = gz.write_all(line.as_bytes()).and_then(|_| gz.write_all(b"\n")) {
                error.get_or_insert(e);
            }
            written += 1;
        })?;
    }
    if let Some(e) = error {
        return Err(io(&tmp)(e));
    }
    gz.finish().map_err(io(&tmp))?.flush().map_err(io(&tmp))?;
    std::fs::rename(&tmp, out).map_err(io(out))?;
    Ok((written, duplicates))
}

/// Measurement settings for data points: all variants interleaved, repetitions adapted to
/// the run time (about 2 s of timed runs per batch, 3 to 5 samples; over budget, no warm-up
/// and the check run is the first sample), variants 4x slower than the identity cut off after
/// their check run. A noisy batch is not measured again: at real sizes nearly every batch
/// has a variant over 5% spread in 3 repetitions (22 of 24 in a trial), and a second round
/// halved the throughput; its points are flagged `noisy` and down-weighted by the trainer.
pub fn default_measure_config() -> MeasureConfig {
    MeasureConfig {
        warmup: 1,
        reps: 5,
        min_reps: 3,
        rep_budget: Some(Duration::from_secs(2)),
        cutoff: Some(CUTOFF),
        timeout: Duration::from_secs(300),
        compile_timeout: Duration::from_secs(15),
        // Five times the distribution's 99th percentile: a linear layer drawn with its
        // weights walked by columns took the whole 300 s timeout (r2-linear-p302).
        reference_limit: Some(Duration::from_secs(10)),
        remeasure_above: None,
        ..Default::default()
    }
}
