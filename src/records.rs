//! `records`: the tuning records. What measuring runs found, kept so that a later run on the
//! same machine applies it without searching (`records=PATH`, `autosched tune`).
//!
//! A record is one decision of a measuring run (hybrid, execution, `autosched run`): the
//! function's canonical hash (`ir::canonical`), the machine's fingerprint, the schedule
//! language version, the schedule chosen and its measured speedup, and every finalist
//! measured beside it. A lookup on this machine takes the record with the best measured
//! speedup; records of other machines are never applied (they may seed a measuring search).
//! Measured speedups do not depend on the model that proposed the schedules, so the model's
//! version is kept as provenance, not as part of the key.
//!
//! The store is SQLite (bundled): transactions, a lock that serializes writers across
//! threads and processes with readers alongside, integrity checks, and merging by
//! `INSERT OR IGNORE` on a uniqueness constraint, so merges are idempotent. The default
//! rollback journal keeps a committed database one file; writes are one short transaction
//! per function, so WAL's concurrency is not needed. JSON Lines export and import keep
//! records reviewable and diffable.

use crate::machine::Fingerprint;
use crate::schedule::{Schedule, LANGUAGE_VERSION};
use crate::search::{Decision, RecordOrigin, Source, WiderVectors};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The database's format (SQLite `user_version`); a database of another format is refused.
pub const FORMAT_VERSION: i32 = 1;
/// SQLite `application_id`: "AARD" (affine-autosched records database).
const APPLICATION_ID: i32 = 0x4141_5244;
/// How long a writer waits for another's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    #[error("'{path}' is not a records database: {reason}")]
    NotRecords { path: PathBuf, reason: String },
    #[error("'{path}' is a records database of format {found}; this build reads format {FORMAT_VERSION} (export it with the build that wrote it, or start a new one)")]
    Version { path: PathBuf, found: i32 },
    #[error("'{path}' is corrupt: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error("'{path}': {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("'{path}': {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("'{path}': not added: {reason}")]
    BadRecord { path: PathBuf, reason: String },
    #[error("{path}:{line}: not a record: {reason}")]
    BadLine { path: PathBuf, line: usize, reason: String },
}

/// One schedule measured against the original.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The schedule's text ('' for the original).
    pub schedule: String,
    pub speedup: f64,
    /// The vector width it was compiled for where the measuring run chose one over LLVM's
    /// default (`search::WiderVectors`): the decision's own schedule, measured at that width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_width: Option<u32>,
}

/// One decision of a measuring run. Its serde form is the JSON Lines export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// `ir::canonical::function_hash`.
    pub function_hash: String,
    /// The function's name when it was measured (information only: not part of the key).
    pub function: String,
    pub machine: Fingerprint,
    pub language_version: u32,
    /// The first 16 hex digits of the SHA-256 of the model file that proposed the
    /// schedules (None: no model took part).
    pub model_version: Option<String>,
    /// `hybrid`, `execution` or `run`.
    pub evaluator: String,
    /// The decision ('' keeps the original).
    pub schedule: String,
    /// The decision's measured speedup over the original (1 for the original).
    pub speedup: f64,
    pub original_seconds: Option<f64>,
    /// OpenMP threads of the measurement.
    pub threads: usize,
    /// Every schedule measured in the run, with its speedup.
    pub measured: Vec<Measurement>,
    /// Unix seconds.
    pub measured_at: i64,
}

impl Record {
    /// The record of a measuring decision taken with `cfg` (and `model`, which proposed
    /// the schedules unless the evaluator is execution), or None when nothing was measured
    /// (model mode, a decision that came from the records).
    pub fn of_decision(
        function_hash: &str,
        function: &str,
        decision: &Decision,
        cfg: &crate::search::OptimizeConfig,
        model: Option<&crate::cost_model::CostModel>,
    ) -> Option<Record> {
        if decision.source != Source::Search || decision.finalists.is_empty() {
            return None;
        }
        let evaluator = cfg.evaluator.name();
        let model_version = (cfg.evaluator != crate::options::Evaluator::Execution)
            .then(|| model.map(|m| m.file_hash().to_string()))
            .flatten();
        let threads = cfg.final_measure.threads;
        let speedup = if decision.schedule.is_identity() { 1.0 } else { decision.measured? };
        Some(Record {
            function_hash: function_hash.into(),
            function: function.into(),
            machine: crate::machine::fingerprint().clone(),
            language_version: LANGUAGE_VERSION,
            model_version,
            evaluator: evaluator.into(),
            schedule: decision.schedule.to_string(),
            speedup,
            original_seconds: decision.original_seconds,
            threads,
            measured: decision
                .finalists
                .iter()
                .map(|(s, m)| Measurement { schedule: s.to_string(), speedup: *m, vector_width: None })
                .chain(decision.vector_width.map(|w| Measurement {
                    schedule: decision.schedule.to_string(),
                    speedup: w.speedup,
                    vector_width: Some(w.bits),
                }))
                .collect(),
            measured_at: now(),
        })
    }
}

impl Record {
    /// What a record must be to be stored: a hex hash, finite positive speedups, threads.
    pub fn validate(&self) -> Result<(), String> {
        let what = format!("the record of @{} ({})", self.function, self.schedule);
        if self.function_hash.is_empty() || !self.function_hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{what}: the function hash '{}' is not hexadecimal", self.function_hash));
        }
        let bad = |x: f64| !(x.is_finite() && x > 0.0);
        if bad(self.speedup) || self.measured.iter().any(|m| bad(m.speedup)) {
            return Err(format!("{what}: a speedup is not a finite positive number"));
        }
        if self.threads == 0 {
            return Err(format!("{what}: threads is 0"));
        }
        Ok(())
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// What the records say about a function.
#[derive(Clone, Debug, Default)]
pub struct Lookup {
    /// The record of this machine with the best measured speedup.
    pub best: Option<Record>,
    /// The best record of each other machine (never applied).
    pub foreign: Vec<Record>,
}

impl Lookup {
    /// The decision the best record of this machine stands for: its schedule when it beat
    /// the original by more than `min_gain`, else the original.
    pub fn decision(&self, min_gain: f64) -> Option<Decision> {
        let r = self.best.as_ref()?;
        let origin = RecordOrigin { measured_at: r.measured_at, evaluator: r.evaluator.clone() };
        let schedule: Option<Schedule> = r.schedule.parse().ok();
        match schedule {
            Some(s) if !s.is_identity() && r.speedup > min_gain => {
                let mut d = Decision::without_search(s, Source::Records(origin));
                d.measured = Some(r.speedup);
                d.original_seconds = r.original_seconds;
                // The width the run chose, with its schedule's figure at the default width (a
                // record written by hand without one: its own figure).
                let own = |m: &&Measurement| m.schedule == r.schedule;
                if let Some(bits) = r.measured.iter().filter(own).find_map(|m| m.vector_width) {
                    let default_speedup = r.measured.iter().filter(own).find(|m| m.vector_width.is_none()).map_or(r.speedup, |m| m.speedup);
                    d.vector_width = Some(WiderVectors { bits, speedup: r.speedup, default_speedup });
                }
                Some(d)
            }
            _ => {
                let mut d = Decision::without_search(Schedule::default(), Source::Records(origin));
                d.kept = Some(if r.schedule.is_empty() {
                    "no schedule was measured faster than the original".into()
                } else {
                    format!("the best schedule measured, {}, ran {:.2}x", r.schedule, r.speedup)
                });
                Some(d)
            }
        }
    }

    /// Schedules worth measuring here from other machines' records: each machine's decision
    /// and its other finalists that beat the original there, best first, without repeats.
    pub fn seeds(&self, limit: usize) -> Vec<Schedule> {
        let mut all: Vec<(f64, &str)> = Vec::new();
        for r in &self.foreign {
            all.push((r.speedup, &r.schedule));
            all.extend(r.measured.iter().map(|m| (m.speedup, m.schedule.as_str())));
        }
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut out: Vec<Schedule> = Vec::new();
        for (speedup, text) in all {
            if out.len() >= limit || speedup <= 1.0 {
                break;
            }
            if let Ok(s) = text.parse::<Schedule>() {
                if !s.is_identity() && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }
}

/// Classifies SQLite's errors: "not a database" and "corrupt" are about the file.
fn classify(path: &Path, source: rusqlite::Error) -> RecordsError {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    let path = path.to_path_buf();
    match source.sqlite_error_code() {
        Some(NotADatabase) => RecordsError::NotRecords { path, reason: source.to_string() },
        Some(DatabaseCorrupt) => RecordsError::Corrupt { path, reason: source.to_string() },
        _ => RecordsError::Sqlite { path, source },
    }
}

/// The database's application id, format version and number of schema objects.
fn identity(conn: &Connection) -> rusqlite::Result<(i32, i32, i64)> {
    let app = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    Ok((app, version, tables))
}

/// A records database of this format: its application id and version say so.
fn expect_ours(path: &Path, app: i32, version: i32) -> Result<(), RecordsError> {
    if app != APPLICATION_ID {
        return Err(RecordsError::NotRecords {
            path: path.to_path_buf(),
            reason: format!("a SQLite database of another application (application_id {app:#x})"),
        });
    }
    if version != FORMAT_VERSION {
        return Err(RecordsError::Version { path: path.to_path_buf(), found: version });
    }
    Ok(())
}

/// An open records database.
pub struct Store {
    path: PathBuf,
    conn: Connection,
    read_only: bool,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    function_hash TEXT NOT NULL,
    function TEXT NOT NULL,
    machine_id TEXT NOT NULL,
    machine TEXT NOT NULL,
    language_version INTEGER NOT NULL,
    model_version TEXT,
    evaluator TEXT NOT NULL,
    schedule TEXT NOT NULL,
    speedup REAL NOT NULL,
    original_seconds REAL,
    threads INTEGER NOT NULL,
    measured TEXT NOT NULL,
    measured_at INTEGER NOT NULL,
    UNIQUE (function_hash, machine_id, language_version, evaluator, schedule, speedup, measured_at)
);
CREATE INDEX IF NOT EXISTS records_by_function ON records (function_hash, language_version);
";

const COLUMNS: &str = "function_hash, function, machine, language_version, model_version, evaluator, schedule, \
                       speedup, original_seconds, threads, measured, measured_at";

impl Store {
    /// Opens `path`, creating an empty database when there is no file (or an empty one).
    /// A file that is not a records database, one of another format, or a corrupt one is an
    /// error; nothing is written to it then.
    /// A database the process may not write (checked into a repository, a read-only
    /// mount) is opened read-only: lookups work, additions fail (a warning in the pass).
    pub fn open(path: &Path) -> Result<Store, RecordsError> {
        let sql = |source| RecordsError::Sqlite { path: path.to_path_buf(), source };
        let existing = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let writable = std::fs::OpenOptions::new().append(true).open(path).is_ok();
        if existing && !writable {
            return Store::open_existing(path);
        }
        let conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let mut store = Store { path: path.to_path_buf(), conn, read_only: false };
        store.initialize()?;
        Ok(store)
    }

    /// Opens an existing database read-only (merge sources, `records show`/`export`): a
    /// missing file is an error, not a new empty database.
    pub fn open_existing(path: &Path) -> Result<Store, RecordsError> {
        use rusqlite::OpenFlags;
        if !path.is_file() {
            return Err(RecordsError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
        let sql = |source| RecordsError::Sqlite { path: path.to_path_buf(), source };
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let store = Store { path: path.to_path_buf(), conn, read_only: true };
        store.check()?;
        Ok(store)
    }

    /// Whether additions will fail (opened read-only).
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Checks an existing database's identity, format and integrity without writing.
    fn check(&self) -> Result<(), RecordsError> {
        let (app, version, tables) = identity(&self.conn).map_err(|e| self.err(e))?;
        if app == 0 && version == 0 && tables == 0 {
            return Err(RecordsError::NotRecords { path: self.path.clone(), reason: "an empty database".into() });
        }
        expect_ours(&self.path, app, version)?;
        self.quick_check()
    }

    fn quick_check(&self) -> Result<(), RecordsError> {
        let check: String = self.conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| self.err(e))?;
        if check != "ok" {
            return Err(RecordsError::Corrupt { path: self.path.clone(), reason: check });
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: rusqlite::Error) -> RecordsError {
        classify(&self.path, source)
    }

    fn initialize(&mut self) -> Result<(), RecordsError> {
        let path = self.path.clone();
        let err = |e| classify(&path, e);
        // One immediate transaction: two processes creating the same new database take
        // turns, and the second finds the first's tables.
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(err)?;
        let (app, version, tables) = identity(&tx).map_err(err)?;
        if app == 0 && version == 0 && tables == 0 {
            tx.execute_batch(SCHEMA).map_err(err)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID).map_err(err)?;
            tx.pragma_update(None, "user_version", FORMAT_VERSION).map_err(err)?;
        } else {
            expect_ours(&path, app, version)?;
        }
        tx.commit().map_err(err)?;
        self.quick_check()
    }

    /// Adds records in one transaction; returns how many were new (a record already there,
    /// field for field, is not added twice).
    pub fn insert(&mut self, records: &[Record]) -> Result<usize, RecordsError> {
        for r in records {
            r.validate().map_err(|reason| RecordsError::BadRecord { path: self.path.clone(), reason })?;
        }
        let path = self.path.clone();
        let err = |e| classify(&path, e);
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(err)?;
        let mut added = 0;
        {
            let mut stmt = tx
                .prepare_cached(&format!(
                    "INSERT OR IGNORE INTO records (machine_id, {COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                ))
                .map_err(err)?;
            for r in records {
                let machine = serde_json::to_string(&r.machine).unwrap_or_default();
                let measured = serde_json::to_string(&r.measured).unwrap_or_default();
                added += stmt
                    .execute(params![
                        r.machine.id(),
                        r.function_hash,
                        r.function,
                        machine,
                        r.language_version,
                        r.model_version,
                        r.evaluator,
                        r.schedule,
                        r.speedup,
                        r.original_seconds,
                        r.threads as i64,
                        measured,
                        r.measured_at
                    ])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        Ok(added)
    }

    fn read_rows(&self, where_clause: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<Record>, RecordsError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM records {where_clause} ORDER BY function_hash, machine_id, measured_at, evaluator, schedule, speedup"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(args, |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, u32>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                    row.get::<_, f64>(7)?,
                    row.get::<_, Option<f64>>(8)?,
                    row.get::<_, i64>(9)?,
                    row.get::<_, String>(10)?,
                    row.get::<_, i64>(11)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (function_hash, function, machine, language_version, model_version, evaluator, schedule, speedup, original_seconds, threads, measured, measured_at) =
                row.map_err(|e| self.err(e))?;
            let corrupt = |what: &str, e: serde_json::Error| RecordsError::Corrupt {
                path: self.path.clone(),
                reason: format!("a record of {function_hash} has an unreadable {what}: {e}"),
            };
            out.push(Record {
                machine: serde_json::from_str(&machine).map_err(|e| corrupt("machine", e))?,
                measured: serde_json::from_str(&measured).map_err(|e| corrupt("measured list", e))?,
                function_hash,
                function,
                language_version,
                model_version,
                evaluator,
                schedule,
                speedup,
                original_seconds,
                threads: threads.max(0) as usize,
                measured_at,
            });
        }
        Ok(out)
    }

    /// Every record, in a fixed order (function, machine, time).
    pub fn all(&self) -> Result<Vec<Record>, RecordsError> {
        self.read_rows("", &[])
    }

    /// What the records say about `function_hash` on `machine` with its cores as threads.
    pub fn lookup(&self, function_hash: &str, machine: &Fingerprint) -> Result<Lookup, RecordsError> {
        let rows = self.read_rows(
            "WHERE function_hash = ?1 AND language_version = ?2",
            &[&function_hash, &LANGUAGE_VERSION],
        )?;
        let ours = machine.id();
        let better = |a: &Record, b: &Record| a.speedup > b.speedup || (a.speedup == b.speedup && a.measured_at > b.measured_at);
        let mut lookup = Lookup::default();
        // This machine's: each schedule counts with its latest measurement (a retune
        // measures again what it finds best, and replaces a lucky figure), the best of those
        // wins. A schedule this build cannot read (a kind of a newer build) is skipped. A
        // machine that cannot be told apart from others (no CPU model, no ISA) applies none.
        let mut latest: Vec<Record> = Vec::new();
        for r in rows {
            if r.machine.id() == ours && machine.is_specific() {
                if r.threads != machine.cores {
                    continue;
                }
                if r.schedule.parse::<Schedule>().is_err() {
                    log::info!("record of {} skipped: this build cannot read its schedule '{}'", r.function_hash, r.schedule);
                    continue;
                }
                match latest.iter_mut().find(|l| l.schedule == r.schedule) {
                    Some(l) if r.measured_at > l.measured_at => *l = r,
                    Some(_) => {}
                    None => latest.push(r),
                }
            } else {
                match lookup.foreign.iter_mut().find(|f| f.machine.id() == r.machine.id()) {
                    Some(f) if better(&r, f) => *f = r,
                    Some(_) => {}
                    None => lookup.foreign.push(r),
                }
            }
        }
        lookup.best = latest.into_iter().reduce(|a, b| if better(&b, &a) { b } else { a });
        lookup.foreign.sort_by(|a, b| b.speedup.total_cmp(&a.speedup));
        Ok(lookup)
    }

    /// Whether this machine has a record of `function_hash` from `evaluator` (what
    /// `autosched tune` skips when it resumes).
    pub fn has(&self, function_hash: &str, machine: &Fingerprint, evaluator: &str) -> Result<bool, RecordsError> {
        self.conn
            .query_row(
                "SELECT 1 FROM records WHERE function_hash = ?1 AND machine_id = ?2 AND language_version = ?3 AND evaluator = ?4 LIMIT 1",
                params![function_hash, machine.id(), LANGUAGE_VERSION, evaluator],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(|e| self.err(e))
    }

    /// Adds every record of the database at `other`; returns (records read, records new).
    pub fn merge_from(&mut self, other: &Path) -> Result<(usize, usize), RecordsError> {
        let records = Store::open_existing(other)?.all()?;
        let added = self.insert(&records)?;
        Ok((records.len(), added))
    }

    /// Writes every record as one JSON line, in the fixed order of [`Store::all`].
    pub fn export_jsonl(&self, out: &mut dyn Write) -> Result<usize, RecordsError> {
        let records = self.all()?;
        let io = |source| RecordsError::Io { path: self.path.clone(), source };
        for r in &records {
            let line = serde_json::to_string(r).map_err(|e| io(std::io::Error::other(e)))?;
            writeln!(out, "{line}").map_err(io)?;
        }
        Ok(records.len())
    }

    /// Adds the records of a JSON Lines file (an export); returns (read, new).
    pub fn import_jsonl(&mut self, path: &Path) -> Result<(usize, usize), RecordsError> {
        let io = |source| RecordsError::Io { path: path.to_path_buf(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut records = Vec::new();
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let r: Record = serde_json::from_str(&line).map_err(|e| RecordsError::BadLine {
                path: path.to_path_buf(),
                line: i + 1,
                reason: e.to_string(),
            })?;
            records.push(r);
        }
        let added = self.insert(&records)?;
        Ok((records.len(), added))
    }
}

/// The databases this process has open, one connection each, shared by mlir-opt's threads.
static OPEN: std::sync::Mutex<Vec<(PathBuf, std::sync::Arc<std::sync::Mutex<Store>>)>> = std::sync::Mutex::new(Vec::new());

/// Opens `path` afresh (checked again: once per pipeline run) and shares it under that path.
pub fn open_shared(path: &Path) -> Result<std::sync::Arc<std::sync::Mutex<Store>>, RecordsError> {
    let store = std::sync::Arc::new(std::sync::Mutex::new(Store::open(path)?));
    let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
    open.retain(|(p, _)| p != path);
    open.push((path.to_path_buf(), store.clone()));
    Ok(store)
}

/// The shared store of `path`, opened if no run opened it yet.
pub fn shared(path: &Path) -> Result<std::sync::Arc<std::sync::Mutex<Store>>, RecordsError> {
    if let Some((_, s)) = OPEN.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|(p, _)| p == path) {
        return Ok(s.clone());
    }
    open_shared(path)
}

/// How many schedules of other machines' records a measuring search also measures.
pub const FOREIGN_SEEDS: usize = 3;

/// What the records hold for a function, looked up once ([`look`]) and then decided on
/// ([`decide_looked`]): the pass looks before it loads the cost model, which a hit never needs.
pub struct Looked {
    hash: String,
    lookup: Lookup,
    /// Trouble reading the database (the search goes on without it).
    warnings: Vec<String>,
    /// Why this machine's record was not applied, where there was one.
    notes: Vec<String>,
    /// The decision of this machine's best record, checked by this build.
    hit: Option<Decision>,
}

impl Looked {
    /// Whether this machine's records decide the function (no search, no model).
    pub fn is_hit(&self) -> bool {
        self.hit.is_some()
    }
}

/// Looks `func` up in the records: this machine's best record, checked by this build, and
/// the other machines' (see [`decide_looked`]).
pub fn look(func: crate::ir::mlir::Op, program: &crate::ir::Program, store: &std::sync::Mutex<Store>) -> Looked {
    let hash = crate::ir::canonical::function_hash(func);
    let mut warnings = Vec::new();
    let lookup = match store.lock().unwrap_or_else(|p| p.into_inner()).lookup(&hash, crate::machine::fingerprint()) {
        Ok(l) => l,
        Err(e) => {
            warnings.push(format!("the tuning records could not be read ({e}); searching"));
            Lookup::default()
        }
    };
    let mut notes = Vec::new();
    let mut hit = None;
    if let Some(mut d) = lookup.decision(crate::search::MIN_MEASURED_GAIN) {
        // A record this build no longer accepts (its checks changed) is searched again.
        match crate::transform::check(func, &d.schedule) {
            Ok(()) => {
                d.warnings = std::mem::take(&mut warnings);
                hit = Some(d);
            }
            Err(e) => notes.push(format!(
                "the tuning records' schedule for @{}, {}, is refused by this build ({e}): searching instead",
                program.function, d.schedule
            )),
        }
    }
    Looked { hash, lookup, warnings, notes, hit }
}

/// A decision for `func`, with the records when there are some: this machine's best record
/// is applied without a search; otherwise the search runs (a measuring one also measures
/// the best schedules other machines recorded), and what a measuring search measured is
/// recorded. Trouble with the database after it opened (a lock held too long, a full disk)
/// is a warning: the search's decision stands. Returns the decision and, with a store, the
/// function's hash (without one, nothing needs it here).
pub fn decide(
    func: crate::ir::mlir::Op,
    program: &crate::ir::Program,
    model: Option<&crate::cost_model::CostModel>,
    cfg: &crate::search::OptimizeConfig,
    store: Option<&std::sync::Mutex<Store>>,
) -> Result<(Decision, Option<String>), crate::search::SearchError> {
    let Some(store) = store else {
        return crate::search::optimize(func, program, model, cfg).map(|d| (d, None));
    };
    decide_looked(func, program, model, cfg, store, look(func, program, store))
}

/// [`decide`] on what [`look`] found for `func` in `store`.
pub fn decide_looked(
    func: crate::ir::mlir::Op,
    program: &crate::ir::Program,
    model: Option<&crate::cost_model::CostModel>,
    cfg: &crate::search::OptimizeConfig,
    store: &std::sync::Mutex<Store>,
    looked: Looked,
) -> Result<(Decision, Option<String>), crate::search::SearchError> {
    use crate::options::Evaluator;
    let Looked { hash, lookup, warnings, mut notes, hit } = looked;
    if let Some(d) = hit {
        return Ok((d, Some(hash)));
    }
    let lock = || store.lock().unwrap_or_else(|p| p.into_inner());
    let mut cfg = cfg.clone();
    if !lookup.foreign.is_empty() {
        let machines: Vec<String> = lookup.foreign.iter().map(|r| r.machine.describe()).collect();
        if cfg.evaluator == Evaluator::Model {
            notes.push(format!(
                "the tuning records hold measurements of @{} from another machine ({}): not applied here; evaluator=hybrid would measure them on this one",
                program.function,
                machines.join("; ")
            ));
        } else {
            cfg.seeds = lookup.seeds(FOREIGN_SEEDS);
            notes.push(format!(
                "the tuning records hold measurements of @{} from another machine ({}): {} of their schedules were measured here among the finalists",
                program.function,
                machines.join("; "),
                cfg.seeds.len()
            ));
        }
    }
    let mut d = crate::search::optimize(func, program, model, &cfg)?;
    d.notes.extend(notes);
    d.warnings.splice(0..0, warnings);
    if let Some(r) = Record::of_decision(&hash, &program.function, &d, &cfg, model) {
        if let Err(e) = lock().insert(&[r]) {
            d.warnings.push(format!("what was measured could not be added to the tuning records: {e}"));
        }
    }
    Ok((d, Some(hash)))
}
