//! `tune`: offline tuning (`autosched tune FILES... --records DB`). Every function of many
//! files is searched with a measuring evaluator and its decision recorded, within a time
//! budget; a second run skips what the records already hold for this machine, so an
//! interrupted or over-budget run resumes where it stopped. `--shard I/N` splits the
//! functions among machines of one kind (a cluster); their databases merge
//! (`autosched records merge`).

use crate::cost_model::CostModel;
use crate::mlir::LoadedModule;
use crate::options::Evaluator;
use crate::records::{self, Store};
use crate::search::OptimizeConfig;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("--evaluator {0}: tuning measures; use hybrid or execution")]
    NotMeasuring(&'static str),
    #[error("--budget '{0}': expected a duration such as 90s, 30m, 2h or 1h30m")]
    Budget(String),
    #[error("--shard '{0}': expected I/N with 0 <= I < N")]
    Shard(String),
    #[error("{path}: {reason}")]
    Input { path: PathBuf, reason: String },
    #[error("--records: {0}")]
    Records(#[from] records::RecordsError),
}

/// What `autosched tune` was asked.
pub struct TuneConfig {
    pub inputs: Vec<PathBuf>,
    pub optimize: OptimizeConfig,
    /// Functions are not started after this long (one under way finishes).
    pub budget: Option<Duration>,
    pub jobs: usize,
    /// This process's part of the functions: (i, n) takes every n-th function from the i-th.
    pub shard: (usize, usize),
    /// Tune functions the records already hold for this machine again.
    pub retune: bool,
    pub progress: bool,
}

/// What became of one function.
#[derive(Clone, Debug, Serialize)]
pub struct TuneRow {
    pub file: PathBuf,
    pub function: String,
    pub status: Status,
    /// The decision ('' keeps the original) and its measured speedup.
    pub schedule: String,
    pub speedup: Option<f64>,
    pub measurements: usize,
    pub seconds: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Searched, measured and recorded.
    Tuned,
    /// The records already hold a measuring decision for it on this machine.
    InRecords,
    /// The budget ran out before it started.
    Later,
    /// Nothing to tune: no loop nest the pass models, or no legal schedule to measure.
    Nothing(String),
    /// The search or the records failed.
    Failed(String),
}

/// Parses `90s`, `30m`, `2h`, `1h30m`, or plain seconds.
pub fn parse_budget(text: &str) -> Result<Duration, TuneError> {
    let bad = || TuneError::Budget(text.into());
    let t = text.trim();
    if let Ok(s) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(s).map_err(|_| bad());
    }
    let mut total = 0.0;
    let mut number = String::new();
    for c in t.chars() {
        match c {
            '0'..='9' | '.' => number.push(c),
            'h' | 'm' | 's' => {
                let n: f64 = number.parse().map_err(|_| bad())?;
                total += n * match c {
                    'h' => 3600.0,
                    'm' => 60.0,
                    _ => 1.0,
                };
                number.clear();
            }
            _ => return Err(bad()),
        }
    }
    if !number.is_empty() || t.is_empty() {
        return Err(bad());
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// Parses `I/N`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), TuneError> {
    let bad = || TuneError::Shard(text.into());
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The `.mlir` files of `inputs` (directories searched recursively), sorted.
pub fn mlir_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, TuneError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "mlir") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk(input, &mut out).map_err(|e| TuneError::Input { path: input.clone(), reason: e.to_string() })?;
        } else if input.is_file() {
            out.push(input.clone());
        } else {
            return Err(TuneError::Input { path: input.clone(), reason: "no such file or directory".into() });
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Tunes every function of the inputs into the records at `db`.
pub fn run(cfg: &TuneConfig, db: &Path, model: Option<&CostModel>) -> Result<Vec<TuneRow>, TuneError> {
    if cfg.optimize.evaluator == Evaluator::Model {
        return Err(TuneError::NotMeasuring("model"));
    }
    let store = Mutex::new(Store::open(db)?);
    let files = mlir_files(&cfg.inputs)?;
    // Functions are numbered over all files in order, so shards do not depend on `jobs`.
    let mut work: Vec<(PathBuf, Vec<(usize, String)>)> = Vec::new();
    let mut index = 0;
    for file in &files {
        let module = LoadedModule::from_file(file).map_err(|e| TuneError::Input { path: file.clone(), reason: e.to_string() })?;
        let mut mine = Vec::new();
        for f in module.functions() {
            if index % cfg.shard.1 == cfg.shard.0 {
                mine.push((index, f.string_attr("sym_name").unwrap_or_default()));
            }
            index += 1;
        }
        if !mine.is_empty() {
            work.push((file.clone(), mine));
        }
    }
    let total: usize = work.iter().map(|(_, fs)| fs.len()).sum();
    let bar = if cfg.progress { indicatif::ProgressBar::new(total as u64) } else { indicatif::ProgressBar::hidden() };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} functions, {msg}, ETA {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<(usize, TuneRow)>> = Mutex::new(Vec::new());
    let progress = Mutex::new((0usize, 0usize, None::<f64>)); // tuned, measured, best speedup
    let over_budget = || cfg.budget.is_some_and(|b| started.elapsed() >= b);
    // Each worker takes whole files: a module and its context stay on one thread.
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::SeqCst);
        let Some((file, functions)) = work.get(k) else { break };
        let module = match LoadedModule::from_file(file) {
            Ok(m) => m,
            Err(e) => {
                let mut rows = rows.lock().unwrap_or_else(|p| p.into_inner());
                for (i, name) in functions {
                    rows.push((*i, row(file, name, Status::Failed(e.to_string()))));
                }
                bar.inc(functions.len() as u64);
                continue;
            }
        };
        let funcs = module.functions();
        for (i, name) in functions {
            let r = if over_budget() {
                row(file, name, Status::Later)
            } else {
                match funcs.iter().find(|f| f.string_attr("sym_name").as_deref() == Some(name.as_str())) {
                    Some(&f) => tune_one(f, file, name, cfg, &store, model),
                    None => row(file, name, Status::Failed("not found on reloading".into())),
                }
            };
            if r.status == Status::Tuned {
                let mut p = progress.lock().unwrap_or_else(|p| p.into_inner());
                p.0 += 1;
                p.1 += r.measurements;
                if let Some(s) = r.speedup {
                    p.2 = Some(p.2.map_or(s, |b: f64| b.max(s)));
                }
                bar.set_message(format!(
                    "{} tuned, {} candidates measured, best {}",
                    p.0,
                    p.1,
                    p.2.map_or("-".into(), |b| format!("{b:.2}x"))
                ));
            }
            bar.inc(1);
            rows.lock().unwrap_or_else(|p| p.into_inner()).push((*i, r));
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.jobs.max(1) {
            scope.spawn(worker);
        }
    });
    bar.finish_and_clear();
    let mut rows = rows.into_inner().unwrap_or_else(|p| p.into_inner());
    rows.sort_by_key(|(i, _)| *i);
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

fn row(file: &Path, function: &str, status: Status) -> TuneRow {
    TuneRow { file: file.to_path_buf(), function: function.into(), status, schedule: String::new(), speedup: None, measurements: 0, seconds: 0.0 }
}

fn tune_one(
    func: crate::ir::mlir::Op,
    file: &Path,
    name: &str,
    cfg: &TuneConfig,
    store: &Mutex<Store>,
    model: Option<&CostModel>,
) -> TuneRow {
    let t = Instant::now();
    let hash = crate::ir::canonical::function_hash(func);
    let machine = crate::machine::fingerprint();
    let known = store.lock().unwrap_or_else(|p| p.into_inner()).has(&hash, machine, cfg.optimize.evaluator.name());
    match known {
        Ok(true) if !cfg.retune => {
            let mut r = row(file, name, Status::InRecords);
            let best = store.lock().unwrap_or_else(|p| p.into_inner()).lookup(&hash, machine).ok().and_then(|l| l.best);
            if let Some(best) = best {
                r.schedule = best.schedule;
                r.speedup = Some(best.speedup);
            }
            return r;
        }
        Err(e) => return row(file, name, Status::Failed(e.to_string())),
        _ => {}
    }
    let program = match crate::ir::analyze_function(func) {
        Ok(a) if !a.program.nests.is_empty() => a.program,
        Ok(_) => return row(file, name, Status::Nothing("no loop nest the pass models".into())),
        Err(e) => return row(file, name, Status::Failed(e.to_string())),
    };
    // Tuning measures even when the records know the function (a retune, or another
    // evaluator's record): the search runs without a lookup, and its result is added.
    let decision = match crate::search::optimize(func, &program, model, &cfg.optimize) {
        Ok(d) => d,
        Err(e) => return row(file, name, Status::Failed(format!("the search failed: {e}"))),
    };
    let record = records::Record::of_decision(&hash, name, &decision, &cfg.optimize, model);
    let Some(record) = record else {
        let why = decision.kept.clone().unwrap_or_else(|| "nothing was measured".into());
        return row(file, name, Status::Nothing(why));
    };
    if let Err(e) = store.lock().unwrap_or_else(|p| p.into_inner()).insert(std::slice::from_ref(&record)) {
        return row(file, name, Status::Failed(e.to_string()));
    }
    TuneRow {
        file: file.to_path_buf(),
        function: name.into(),
        status: Status::Tuned,
        schedule: record.schedule,
        speedup: Some(record.speedup),
        measurements: decision.measurements,
        seconds: t.elapsed().as_secs_f64(),
    }
}

/// The summary table: one line per function, then the counts.
pub fn summary(rows: &[TuneRow], wall: Duration) -> String {
    let mut out = format!("{:<32} {:<20} {:<12} {:>8} {:>6} {:>8}  schedule\n", "file", "function", "status", "speedup", "runs", "seconds");
    for r in rows {
        let file = r.file.file_name().map_or_else(|| r.file.display().to_string(), |f| f.to_string_lossy().into_owned());
        let status = match &r.status {
            Status::Tuned => "tuned".to_string(),
            Status::InRecords => "in records".into(),
            Status::Later => "not started".into(),
            Status::Nothing(_) => "nothing".into(),
            Status::Failed(_) => "failed".into(),
        };
        let detail = match &r.status {
            Status::Failed(why) | Status::Nothing(why) => why.clone(),
            Status::Tuned if r.schedule.is_empty() => "(the original)".into(),
            _ => r.schedule.clone(),
        };
        out.push_str(&format!(
            "{:<32} {:<20} {:<12} {:>8} {:>6} {:>8.1}  {detail}\n",
            file,
            format!("@{}", r.function),
            status,
            r.speedup.map_or("-".into(), |s| format!("{s:.2}x")),
            r.measurements,
            r.seconds
        ));
    }
    let count = |s: fn(&Status) -> bool| rows.iter().filter(|r| s(&r.status)).count();
    let later = count(|s| *s == Status::Later);
    out.push_str(&format!(
        "{} functions: {} tuned, {} already in the records, {} not started{}, {} with nothing to tune, {} failed; {:.0} s\n",
        rows.len(),
        count(|s| *s == Status::Tuned),
        count(|s| *s == Status::InRecords),
        later,
        if later > 0 { " (the budget ran out: the same command resumes)" } else { "" },
        count(|s| matches!(s, Status::Nothing(_))),
        count(|s| matches!(s, Status::Failed(_))),
        wall.as_secs_f64()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_and_shards_parse() {
        assert_eq!(parse_budget("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_budget("30m").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_budget("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_budget("45").unwrap(), Duration::from_secs(45));
        for bad in ["", "m", "3x", "1h30", "-5", "inf", "1e30"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        for bad in ["4/4", "1/0", "x/2", "3"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
