//! `adapt`: the shipped cost model fine-tuned for this machine (`autosched adapt --budget N
//! --out model.onnx`). Measures about N points here (the data generator's random walks
//! through the search's own space, over generated programs at real sizes; resumable),
//! featurizes them, has `onnx/adapt.py` fine-tune the shipped network on part of them and
//! report ranking on held-out programs before and after, and exports the result with
//! `onnx/export.py` (parity checked) for the pass's `model=`. An ensemble is adapted whole:
//! the other members are the checkpoints beside `--base` named `<stem>.seed<K>.pt`, as
//! `onnx/report.py` ships them.

use crate::datagen::{self, DatagenConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Schedules measured per program (besides the identity), as for the shipped dataset.
pub const SCHEDULES_PER_PROGRAM: usize = 16;
/// How many of them are long walks (`autosched datagen --long-walks`): the search ends with
/// long schedules, and the adapted model must rank those too.
pub const LONG_WALKS: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum AdaptError {
    #[error("--base: no checkpoint at '{0}' (onnx/report.py ships onnx/model.pt with the model; or name train.py's model.pt)")]
    NoBase(PathBuf),
    #[error("--budget must be at least {min} points (a few programs to fine-tune on and a few to hold out)")]
    Budget { min: u64 },
    #[error("--mode must be tree, head or all, got '{0}'")]
    Mode(String),
    #[error("measuring: {0}")]
    Datagen(#[from] datagen::DatagenError),
    #[error("featurizing: {0}")]
    Features(String),
    #[error("{step}: {reason}")]
    Python { step: &'static str, reason: String },
}

pub struct AdaptConfig {
    /// Points to measure on this machine.
    pub budget: u64,
    pub out: PathBuf,
    pub base: PathBuf,
    pub work: PathBuf,
    pub mode: String,
    /// Programs of another stream than the shipped dataset's (seed 1).
    pub seed: u64,
    pub sizes: datagen::programs::Sizes,
    pub python: PathBuf,
    pub root: PathBuf,
    pub progress: bool,
    /// Skip the from-scratch comparison (faster; for smoke tests).
    pub no_scratch: bool,
    /// Measure without waiting for a quiet machine (smoke tests).
    pub no_quiet_wait: bool,
}

/// The members of the ensemble whose first member is `base`: `base`, then the checkpoints
/// beside it named `<stem>.seed<K>.pt`, by K.
pub fn members(base: &Path) -> Vec<PathBuf> {
    let mut out = vec![base.to_path_buf()];
    let (Some(dir), Some(stem)) = (base.parent(), base.file_stem().and_then(|s| s.to_str())) else {
        return out;
    };
    let prefix = format!("{stem}.seed");
    let mut others: Vec<(u32, PathBuf)> = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir })
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.to_string();
                    let k = name.strip_prefix(&prefix)?.strip_suffix(".pt")?.parse::<u32>().ok()?;
                    Some((k, dir.join(name)))
                })
                .collect()
        })
        .unwrap_or_default();
    others.sort();
    out.extend(others.into_iter().map(|(_, p)| p));
    out
}

/// The smallest budget: 4 programs' points.
pub const MIN_BUDGET: u64 = 4 * (SCHEDULES_PER_PROGRAM as u64 + 1);

/// Runs the whole adaptation; returns the summary line of `onnx/adapt.py`.
pub fn run(cfg: &AdaptConfig) -> Result<String, AdaptError> {
    if !cfg.base.is_file() {
        return Err(AdaptError::NoBase(cfg.base.clone()));
    }
    if !["tree", "head", "all"].contains(&cfg.mode.as_str()) {
        return Err(AdaptError::Mode(cfg.mode.clone()));
    }
    if cfg.budget < MIN_BUDGET {
        return Err(AdaptError::Budget { min: MIN_BUDGET });
    }
    let programs = cfg.budget.div_ceil(SCHEDULES_PER_PROGRAM as u64 + 1);
    let raw = cfg.work.join("raw");
    log::info!("measuring {programs} programs ({} points at most) into {}", programs * 17, raw.display());
    let summary = datagen::run(&DatagenConfig {
        seed: cfg.seed,
        programs,
        schedules_per_program: SCHEDULES_PER_PROGRAM,
        long_walks: LONG_WALKS,
        lookahead_walks: 0,
        neighbours: Default::default(),
        out: raw.clone(),
        shard: (0, 1),
        measure: datagen::default_measure_config(),
        progress: cfg.progress,
        resume_from: Vec::new(),
        quiet: (!cfg.no_quiet_wait).then(crate::measure::quiet::QuietPolicy::default),
        sizes: cfg.sizes,
        class: None,
        remeasure: None,
    })?;
    log::info!("{} points measured in this run ({} programs already done)", summary.points, summary.skipped);
    let dataset = cfg.work.join("dataset.jsonl.gz");
    datagen::merge(&[raw], &dataset)?;
    let features = cfg.work.join("features");
    crate::features::dataset::featurize_dataset(&[dataset.clone()], &features, None)
        .map_err(|e| AdaptError::Features(e.to_string()))?;
    let model_dir = cfg.work.join("model");
    let bases = members(&cfg.base);
    log::info!("adapting {} member(s): {}", bases.len(), bases.iter().map(|b| b.display().to_string()).collect::<Vec<_>>().join(", "));
    let mut adapt = vec![path_arg(&cfg.root.join("onnx/adapt.py")), "--base".into()];
    adapt.extend(bases.iter().map(|b| path_arg(b)));
    adapt.extend([
        "--data".into(),
        path_arg(&features),
        "--out".into(),
        path_arg(&model_dir),
        "--mode".into(),
        cfg.mode.clone(),
    ]);
    if cfg.no_scratch {
        adapt.push("--no-scratch".into());
    }
    if !cfg.progress {
        adapt.push("--quiet".into());
    }
    let line = python(&cfg.python, "onnx/adapt.py", &adapt)?;
    let mut export = vec![path_arg(&cfg.root.join("onnx/export.py")), "--checkpoint".into()];
    export.extend((0..bases.len()).map(|k| path_arg(&model_dir.join(if k == 0 { "model.pt".to_string() } else { format!("model.seed{k}.pt") }))));
    export.extend([
        "--data".into(),
        path_arg(&features),
        "--dataset".into(),
        path_arg(&dataset),
        "--out".into(),
        path_arg(&cfg.out),
        "--reference".into(),
        path_arg(&cfg.work.join("reference.json")),
    ]);
    python(&cfg.python, "onnx/export.py", &export)?;
    Ok(line)
}

fn path_arg(p: &Path) -> String {
    p.display().to_string()
}

/// Runs a Python step; its last line of output, or its error output.
fn python(python: &Path, step: &'static str, args: &[String]) -> Result<String, AdaptError> {
    let out = Command::new(python)
        .args(args)
        .output()
        .map_err(|e| AdaptError::Python { step, reason: format!("cannot run {}: {e}", python.display()) })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(AdaptError::Python { step, reason: format!("exit {}:\n{}", out.status, tail.join("\n")) });
    }
    Ok(stdout.lines().last().unwrap_or_default().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ensembles_members_are_found_beside_its_first() {
        let dir = std::env::temp_dir().join(format!("autosched-members-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["model.pt", "model.seed2.pt", "model.seed1.pt", "model.seedx.pt", "other.seed1.pt", "model.seed1.pt.bak"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let found = members(&dir.join("model.pt"));
        let names: Vec<_> = found.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["model.pt", "model.seed1.pt", "model.seed2.pt"]);
        assert_eq!(members(&dir.join("other.pt")).len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
