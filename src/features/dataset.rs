//! `autosched featurize`: a measured dataset (JSON Lines, as `autosched datagen` writes)
//! turned into the `.npy` tensors and the `meta.json` the trainer (onnx/train.py) reads.
//!
//! Files written to the output directory:
//! - `layout.json`: the computation vector's layout ([`super::layout::spec`]);
//! - `comps.npy` f32[M, F]: every computation vector of every point, point after point,
//!   and `comp_offsets.npy` i64[N+1]: point `i` owns rows `offsets[i]..offsets[i+1]`;
//! - the tree tables of [`super::tensors::INPUTS`] for all N points, padded to the
//!   dataset's maxima (`comp_children.npy`, ...);
//! - `speedup.npy` f32[N], `program.npy` i32[N] (index into meta's programs),
//!   `noisy.npy` i32[N], `class.npy` i32[N], `censored.npy` i32[N] (1: the speedup is an
//!   upper bound, see `datagen::Record::censored`), `identity_time.npy` f32[N] (seconds of
//!   the program's identity run, for metrics by run-time bucket), `host.npy` i32[N] (index
//!   into meta's hosts: the caches of the host the point was measured on, as the features
//!   see them, for metrics by host);
//! - `meta.json`: programs, classes, schedules, sizes, the layout hash.

use super::tensors::{write_npy, Batch};
use super::{featurize, layout, Featurized, Featurizer, Host};
use crate::ir::Program;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("I/O error on {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}:{line}: {message}")]
    Record { path: PathBuf, line: usize, message: String },
}

/// The fields of a dataset record the features need.
#[derive(Deserialize)]
struct Point {
    program_id: String,
    class: String,
    representation: Program,
    schedule: String,
    speedup: f64,
    #[serde(default)]
    noisy: bool,
    #[serde(default)]
    censored: bool,
    #[serde(default)]
    identity_time_s: f64,
    /// The host it was measured on (its caches: the working-set features compare with them).
    #[serde(default)]
    machine: Option<PointHost>,
}

#[derive(Deserialize)]
struct PointHost {
    #[serde(default)]
    caches: Vec<crate::machine::Cache>,
}

#[derive(Serialize)]
pub struct Meta {
    pub layout_hash: String,
    pub features: usize,
    pub points: usize,
    pub computations: usize,
    /// Padded sizes of the tree tables: slots per level and children per node.
    pub slots: usize,
    pub children: usize,
    pub max_computations: usize,
    pub programs: Vec<String>,
    /// Each program's work ([`super::work`]), in the order of `programs`.
    pub work: Vec<f64>,
    pub classes: Vec<String>,
    pub schedules: Vec<String>,
    /// The hosts the points were measured on, as the features see them ([`Host::describe`]).
    pub hosts: Vec<String>,
    pub skipped: Vec<String>,
}

/// Featurizes every point of `inputs`, keeping at most `limit` programs (all when None).
pub fn featurize_dataset(inputs: &[PathBuf], out: &Path, limit: Option<usize>) -> Result<Meta, DatasetError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| DatasetError::Io { path: p.clone(), message: e.to_string() }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let mut items: Vec<Featurized> = Vec::new();
    let mut speedup = Vec::new();
    let mut program = Vec::new();
    let mut noisy = Vec::new();
    let mut censored = Vec::new();
    let mut identity_time = Vec::new();
    let mut class = Vec::new();
    let mut host_of: Vec<i32> = Vec::new();
    let mut hosts: Vec<String> = Vec::new();
    let mut programs: Vec<String> = Vec::new();
    let mut work: Vec<f64> = Vec::new();
    let mut program_index: HashMap<String, i32> = HashMap::new();
    let mut classes: Vec<String> = Vec::new();
    let mut schedules = Vec::new();
    let mut skipped = Vec::new();
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(indicatif::ProgressStyle::with_template("{spinner} featurizing: {pos} points ({per_sec})").expect("valid template"));
    for input in inputs {
        let mut line_no = 0;
        let mut failure: Option<DatasetError> = None;
        crate::datagen::for_each_line(input, |line| {
            line_no += 1;
            if failure.is_some() || line.trim().is_empty() {
                return;
            }
            let p: Point = match serde_json::from_str(line) {
                Ok(p) => p,
                Err(e) => {
                    failure = Some(DatasetError::Record { path: input.clone(), line: line_no, message: e.to_string() });
                    return;
                }
            };
            if !program_index.contains_key(&p.program_id) {
                if limit.is_some_and(|l| programs.len() >= l) {
                    return;
                }
                program_index.insert(p.program_id.clone(), programs.len() as i32);
                programs.push(p.program_id.clone());
                work.push(super::work(&p.representation));
            }
            let schedule: Schedule = match p.schedule.parse() {
                Ok(s) => s,
                Err(e) => {
                    skipped.push(format!("{} '{}': {e}", p.program_id, p.schedule));
                    return;
                }
            };
            let host = Host::recorded(p.machine.as_ref().map_or(&[][..], |m| &m.caches));
            let described = host.describe();
            match Featurizer::for_host(&p.representation, host).featurize(&schedule) {
                Ok(f) => {
                    let c = classes.iter().position(|c| *c == p.class).unwrap_or_else(|| {
                        classes.push(p.class.clone());
                        classes.len() - 1
                    });
                    items.push(f);
                    speedup.push(p.speedup as f32);
                    program.push(program_index[&p.program_id]);
                    noisy.push(p.noisy as i32);
                    censored.push(p.censored as i32);
                    identity_time.push(p.identity_time_s as f32);
                    class.push(c as i32);
                    let h = hosts.iter().position(|h| *h == described).unwrap_or_else(|| {
                        hosts.push(described);
                        hosts.len() - 1
                    });
                    host_of.push(h as i32);
                    schedules.push(p.schedule);
                    bar.inc(1);
                }
                Err(e) => skipped.push(format!("{} '{}': {e}", p.program_id, p.schedule)),
            }
        })
        .map_err(|e| DatasetError::Io { path: input.clone(), message: e.to_string() })?;
        if let Some(e) = failure {
            return Err(e);
        }
    }
    bar.finish_and_clear();

    let n = items.len();
    let refs: Vec<&Featurized> = items.iter().collect();
    // The tree tables only: computation vectors are written unpadded below.
    let (max_k, slots, children) = Batch::sizes(&refs);
    let tree = Batch::encode_padded(&refs, 0, slots, children);
    let shapes = tree.shapes();
    let mut comps = Vec::new();
    let mut offsets = vec![0i64];
    for f in &items {
        for v in &f.comps {
            comps.extend_from_slice(v);
        }
        offsets.push(offsets[offsets.len() - 1] + f.comps.len() as i64);
    }
    let m = offsets[n] as usize;
    let w = |name: &str| out.join(name);
    write_npy(&w("comps.npy"), &[m, layout::FEATURES], &comps).map_err(io(out))?;
    write_npy(&w("comp_offsets.npy"), &[n + 1], &offsets).map_err(io(out))?;
    write_npy(&w("comp_children.npy"), &shapes[1], &tree.comp_children).map_err(io(out))?;
    write_npy(&w("comp_counts.npy"), &shapes[2], &tree.comp_counts).map_err(io(out))?;
    write_npy(&w("loop_children.npy"), &shapes[3], &tree.loop_children).map_err(io(out))?;
    write_npy(&w("loop_counts.npy"), &shapes[4], &tree.loop_counts).map_err(io(out))?;
    write_npy(&w("root_children.npy"), &shapes[5], &tree.root_children).map_err(io(out))?;
    write_npy(&w("root_counts.npy"), &shapes[6], &tree.root_counts).map_err(io(out))?;
    write_npy(&w("speedup.npy"), &[n], &speedup).map_err(io(out))?;
    write_npy(&w("program.npy"), &[n], &program).map_err(io(out))?;
    write_npy(&w("noisy.npy"), &[n], &noisy).map_err(io(out))?;
    write_npy(&w("censored.npy"), &[n], &censored).map_err(io(out))?;
    write_npy(&w("identity_time.npy"), &[n], &identity_time).map_err(io(out))?;
    write_npy(&w("class.npy"), &[n], &class).map_err(io(out))?;
    write_npy(&w("host.npy"), &[n], &host_of).map_err(io(out))?;
    let spec = layout::spec();
    let spec_text = serde_json::to_string_pretty(&spec).expect("layout serializes");
    std::fs::write(w("layout.json"), spec_text).map_err(io(out))?;
    let meta = Meta {
        layout_hash: spec.hash,
        features: layout::FEATURES,
        points: n,
        computations: m,
        slots,
        children,
        max_computations: max_k,
        programs,
        work,
        classes,
        schedules,
        hosts,
        skipped,
    };
    let meta_text = serde_json::to_string(&meta).expect("meta serializes");
    std::fs::write(w("meta.json"), meta_text).map_err(io(out))?;
    Ok(meta)
}

/// What [`unlabeled_vectors`] wrote.
#[derive(Debug, Serialize)]
pub struct UnlabeledMeta {
    pub layout_hash: String,
    pub features: usize,
    pub programs: usize,
    pub schedules: usize,
    pub vectors: usize,
    /// Schedules the featurizer refused (an untested walk can name a loop an earlier step
    /// removed).
    pub skipped: usize,
}

/// Computation vectors of random programs (`datagen::programs`, seed `seed`) under random
/// untested walks through the search's space, `schedules` per program: the unlabeled data
/// the computation encoder is pre-trained on (an autoencoder, onnx/pretrain.py), written
/// to `out/vectors.npy` ([N, FEATURES] f32) with `out/meta.json`. Nothing is compiled or run.
pub fn unlabeled_vectors(
    seed: u64,
    programs: u64,
    schedules: usize,
    sizes: crate::datagen::programs::Sizes,
    out: &Path,
    progress: bool,
) -> Result<UnlabeledMeta, DatasetError> {
    use crate::datagen::{programs as gen, rng::Rng, sampler};
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| DatasetError::Io { path: p.clone(), message: e.to_string() }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let bar = if progress { indicatif::ProgressBar::new(programs) } else { indicatif::ProgressBar::hidden() };
    let mut vectors: Vec<f32> = Vec::new();
    let (mut n, mut skipped, mut made) = (0usize, 0usize, 0usize);
    for index in 0..programs {
        bar.inc(1);
        let p = gen::generate_sized(seed, index, sizes);
        let Ok(module) = crate::mlir::LoadedModule::from_source(&p.mlir) else { continue };
        let Some(func) = module.functions().first().copied() else { continue };
        let Ok(analysis) = crate::ir::analyze_function(func) else { continue };
        let program = analysis.program;
        let mut rng = Rng::for_item(seed ^ 0x0a7e_c0de, index);
        for k in 0..schedules.max(1) {
            let schedule = if k == 0 { Schedule::default() } else { sampler::walk_unchecked(&program, &mut rng, 12) };
            made += 1;
            match featurize(&program, &schedule) {
                Ok(f) => {
                    for c in &f.comps {
                        vectors.extend_from_slice(c);
                        n += 1;
                    }
                }
                Err(_) => skipped += 1,
            }
        }
    }
    bar.finish_and_clear();
    write_npy(&out.join("vectors.npy"), &[n, layout::FEATURES], &vectors).map_err(io(out))?;
    let meta = UnlabeledMeta {
        layout_hash: layout::spec().hash,
        features: layout::FEATURES,
        programs: programs as usize,
        schedules: made,
        vectors: n,
        skipped,
    };
    let text = serde_json::to_string_pretty(&meta).expect("plain data");
    std::fs::write(out.join("meta.json"), text).map_err(io(out))?;
    Ok(meta)
}
