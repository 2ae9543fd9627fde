//! `cost_model`: the trained speedup model (onnx/model.onnx), run through ONNX Runtime.
//!
//! ONNX Runtime is loaded at run time (`ort`'s load-dynamic) from the Python venv's
//! onnxruntime wheel: `$AUTOSCHED_ONNXRUNTIME` (or `$ORT_DYLIB_PATH`) when set, else the
//! `.venv` found above the running executable, the plugin library, or the working
//! directory. One session per model file is shared by every thread of the process (mlir-opt
//! runs the pass on several functions at once); calls on it are serialized. A missing
//! runtime, a missing or corrupt model, or a model trained on another feature layout is a
//! typed error: the caller leaves the IR untouched.

use crate::features::layout;
use crate::features::tensors::{Batch, CachedBatch, Interner, Shared, INDEXED_COMPS, INPUTS, KNOWN_NESTS, SHARED_INPUTS};
use crate::features::Featurized;
use crate::limits::MAX_DEPTH;
use ort::session::Session;
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("ONNX Runtime not found: set AUTOSCHED_ONNXRUNTIME to libonnxruntime.so (looked for .venv/lib/python3*/site-packages/onnxruntime/capi/ above {0})")]
    RuntimeNotFound(String),
    #[error("cannot load ONNX Runtime from {path}: {message}")]
    Runtime { path: PathBuf, message: String },
    #[error("no model file at '{0}'")]
    MissingModel(PathBuf),
    #[error("no model given and none found (looked for onnx/model.onnx above {0})")]
    NoDefaultModel(String),
    #[error("'{path}' is not a usable ONNX model: {message}")]
    BadModel { path: PathBuf, message: String },
    #[error("'{path}' was trained on feature layout {model}, but this build's layout is {ours}: retrain or export it again (onnx/train.py, onnx/export.py)")]
    LayoutMismatch { path: PathBuf, model: String, ours: String },
    #[error("inference failed: {0}")]
    Inference(String),
}

/// A loaded model: one network, or an ensemble of several exported as one graph (its
/// output has one column per member), whose spread is the model's uncertainty.
pub struct CostModel {
    path: PathBuf,
    session: Mutex<Session>,
    /// The output's columns are one network's error interval (its two ends), not an
    /// ensemble's members (metadata `output` = `interval`, from `train.py --laplace`).
    interval: bool,
    /// The two-sided coverage the interval is calibrated to (metadata `coverage`).
    coverage: Option<f64>,
    /// The layout version it was trained on, and that version's columns of a current
    /// computation vector when it is an earlier one.
    version: u32,
    columns: Option<Vec<usize>>,
    /// The file's bytes as loaded, and the first 16 hex digits of their SHA-256 (the tuning
    /// records' provenance), computed when first asked: hashing 15 MB took 0.15 s of every
    /// pass run, and only runs with records need it.
    bytes: Vec<u8>,
    file_hash: std::sync::OnceLock<String>,
    /// The smallest work ([`crate::features::work`]) of the programs it was trained on
    /// (metadata `min_work`; none in models exported before it was recorded).
    min_work: Option<f64>,
    /// The newest search space ([`crate::datagen::sampler::SPACE`]) its training data was
    /// drawn from (metadata `data_space`; 0 in models exported before it was recorded).
    data_space: u32,
    /// What the graph takes (from its input names).
    form: Form,
}

/// The input forms graphs have been exported in, newest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The shared form, also taking the embeddings of nests it returned before
    /// ([`KNOWN_NESTS`]): networks and embedding size of a nest's.
    Cached { networks: usize, embed: usize },
    /// Each distinct computation vector and each distinct tree node once (`SHARED_INPUTS`).
    Shared,
    /// Each distinct computation vector once, every candidate's tree (`INDEXED_COMPS` + `INPUTS`).
    Indexed,
    /// Every candidate's computations and tree (`INPUTS`).
    Plain,
}

/// The geometric mean of positive predictions (the ensemble's point estimate).
pub fn geometric_mean(xs: &[f32]) -> f32 {
    if xs.is_empty() {
        return f32::NAN;
    }
    (xs.iter().map(|x| (*x as f64).max(1e-30).ln()).sum::<f64>() / xs.len() as f64).exp() as f32
}

/// The predicted speedup of a schedule over the original, from the members' predictions of
/// both (each member's own ratio: members disagree on scale as much as on order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Geometric mean of the members' ratios.
    pub point: f32,
    /// The most pessimistic and the most optimistic member.
    pub lo: f32,
    pub hi: f32,
}

impl Interval {
    /// The interval of a schedule's speedup from the model's outputs for it and for the
    /// original: members' own ratios for an ensemble; for a network's error interval
    /// (`interval`), its ends over the original's point estimate (over the original's own
    /// ends, the widths would cancel).
    pub fn of(schedule: &[f32], original: &[f32], interval: bool) -> Interval {
        if interval {
            let o = geometric_mean(original);
            return Interval {
                point: geometric_mean(schedule) / o,
                lo: schedule.iter().copied().fold(f32::INFINITY, f32::min) / o,
                hi: schedule.iter().copied().fold(f32::NEG_INFINITY, f32::max) / o,
            };
        }
        let ratios: Vec<f32> = schedule.iter().zip(original).map(|(s, o)| s / o).collect();
        Interval {
            point: geometric_mean(&ratios),
            lo: ratios.iter().copied().fold(f32::INFINITY, f32::min),
            hi: ratios.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        }
    }

    /// The interval of a Laplace network's output (ends calibrated to `coverage`, two-sided)
    /// re-read at a one-sided `confidence`: the low end is the speedup the model gives that
    /// probability of being beaten (0.5: the point estimate). A Laplace interval at coverage
    /// a is exp(mu ± b ln(1/(1-a))), so the ends give b and any other level follows.
    pub fn at_confidence(self, confidence: f64, coverage: f64) -> Interval {
        if !(self.lo > 0.0 && self.hi > self.lo && self.point > 0.0) {
            return self;
        }
        let b = ((self.hi as f64).ln() - (self.lo as f64).ln()) / (2.0 * (1.0 / (1.0 - coverage)).ln());
        let k = b * -(2.0 * (1.0 - confidence)).ln();
        let mid = (self.point as f64).ln();
        Interval { point: self.point, lo: (mid - k).exp() as f32, hi: (mid + k).exp() as f32 }
    }

    /// Whether the members disagree at all (one network gives a point).
    pub fn is_spread(&self) -> bool {
        self.hi > self.lo
    }
}

impl std::fmt::Debug for CostModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CostModel").field("path", &self.path).finish()
    }
}

/// Where to look for `.venv` and `onnx/model.onnx`: the directories holding the running
/// executable, the library this code is in (the mlir-opt plugin), and the working
/// directory, with their ancestors.
fn anchors() -> Vec<PathBuf> {
    let mut starts = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        starts.push(exe);
    }
    if let Some(lib) = this_library() {
        starts.push(lib);
    }
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd.join("."));
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for s in starts {
        for dir in s.ancestors().skip(1).take(6) {
            if !out.iter().any(|d| d == dir) {
                out.push(dir.to_path_buf());
            }
        }
    }
    out
}

/// The file this code was loaded from (the plugin's .so, or the executable), read from
/// /proc/self/maps.
fn this_library() -> Option<PathBuf> {
    let addr = this_library as *const () as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    for line in maps.lines() {
        let mut parts = line.split_whitespace();
        let range = parts.next()?;
        let (lo, hi) = range.split_once('-')?;
        let (lo, hi) = (usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?);
        if (lo..hi).contains(&addr) {
            return parts.nth(4).map(PathBuf::from);
        }
    }
    None
}

fn describe_anchors(a: &[PathBuf]) -> String {
    a.iter().take(3).map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// The ONNX Runtime library to load.
pub fn runtime_path() -> Result<PathBuf, ModelError> {
    for var in ["AUTOSCHED_ONNXRUNTIME", "ORT_DYLIB_PATH"] {
        if let Some(p) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    let mut venvs: Vec<PathBuf> = std::env::var_os("VIRTUAL_ENV").map(PathBuf::from).into_iter().collect();
    let anchors = anchors();
    venvs.extend(anchors.iter().map(|a| a.join(".venv")));
    for venv in venvs {
        let Ok(entries) = std::fs::read_dir(venv.join("lib")) else { continue };
        let mut pythons: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        pythons.sort();
        for py in pythons {
            let capi = py.join("site-packages/onnxruntime/capi");
            let Ok(files) = std::fs::read_dir(&capi) else { continue };
            let mut libs: Vec<PathBuf> = files
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libonnxruntime.so")))
                .collect();
            // The fully versioned name first (libonnxruntime.so.1.31.1).
            libs.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
            if let Some(l) = libs.into_iter().next() {
                return Ok(l);
            }
        }
    }
    Err(ModelError::RuntimeNotFound(describe_anchors(&anchors)))
}

/// The shipped model: onnx/model.onnx above the executable, the plugin or the working directory.
pub fn default_model_path() -> Result<PathBuf, ModelError> {
    let anchors = anchors();
    anchors
        .iter()
        .map(|a| a.join("onnx/model.onnx"))
        .find(|p| p.is_file())
        .ok_or_else(|| ModelError::NoDefaultModel(describe_anchors(&anchors)))
}

/// ONNX Runtime's environment: one per process, made on first use.
fn environment() -> Result<&'static ort::environment::Environment, ModelError> {
    static ENV: OnceLock<Result<ort::environment::Environment, ModelError>> = OnceLock::new();
    ENV.get_or_init(|| {
        let path = runtime_path()?;
        if !path.is_file() {
            return Err(ModelError::Runtime { path, message: "no such file".into() });
        }
        let runtime = |message: String| ModelError::Runtime { path: path.clone(), message };
        guard(|| {
            ort::init_from(&path)
                .map_err(|e| runtime(e.to_string()))?
                .with_name("affine-autosched")
                .build()
                .map_err(|e| runtime(e.to_string()))
        })
        .unwrap_or_else(|panic| Err(runtime(panic)))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Runs `f`, turning a panic inside ort into an error message.
fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "ONNX Runtime panicked".into())
    })
}

/// The metadata key of a graph optimized at export, and how (onnx/preoptimize.py).
const OPTIMIZED_KEY: &str = "graph_optimized";

/// Every model loaded by this process (a model is loaded once per file, and kept).
static MODELS: Mutex<Vec<(PathBuf, Arc<CostModel>)>> = Mutex::new(Vec::new());

impl CostModel {
    /// Loads `path`, or returns the already loaded model of that file.
    pub fn load(path: &Path) -> Result<Arc<CostModel>, ModelError> {
        Self::load_kept(path, None)
    }

    /// Loads `path` once per process and `data_space` taken in place of its own (None: its
    /// own), each such load kept under a key of its own.
    fn load_kept(path: &Path, data_space: Option<u32>) -> Result<Arc<CostModel>, ModelError> {
        if !path.is_file() {
            return Err(ModelError::MissingModel(path.to_path_buf()));
        }
        let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let key = match data_space {
            None => real.clone(),
            Some(space) => PathBuf::from(format!("{}#data_space={space}", real.display())),
        };
        let mut models = MODELS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, m)) = models.iter().find(|(p, _)| *p == key) {
            return Ok(m.clone());
        }
        let mut model = Self::open(&real)?;
        if let Some(space) = data_space {
            model.data_space = space;
        }
        let model = Arc::new(model);
        models.push((key, model.clone()));
        Ok(model)
    }

    /// This model as the process shares it, for another thread to predict with (every model
    /// comes from [`CostModel::load`], which keeps it).
    pub fn shared(&self) -> Option<Arc<CostModel>> {
        let models = MODELS.lock().unwrap_or_else(|p| p.into_inner());
        models.iter().find(|(_, m)| std::ptr::eq(Arc::as_ptr(m), self)).map(|(_, m)| m.clone())
    }

    fn open(path: &Path) -> Result<CostModel, ModelError> {
        let started = std::time::Instant::now();
        let env = environment()?;
        log::debug!("ONNX Runtime ready in {:.3} s", started.elapsed().as_secs_f64());
        let bad = |message: String| ModelError::BadModel { path: path.to_path_buf(), message };
        // Read once: the session is made from these bytes, and the file hash taken from them.
        let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        use ort::session::builder::GraphOptimizationLevel;
        let session_at = |level: GraphOptimizationLevel| {
            guard(|| -> Result<Session, ModelError> {
                let builder = Session::builder(env).map_err(|e| bad(e.to_string()))?;
                // Calls take turns on the session (a mutex), so a call may use two threads; they
                // do not spin between calls, which would take a core from mlir-opt's other threads.
                let builder = builder.with_intra_threads(2).map_err(|e| bad(e.to_string()))?;
                let builder = builder.with_intra_op_spinning(false).map_err(|e| bad(e.to_string()))?;
                let mut builder = builder.with_optimization_level(level).map_err(|e| bad(e.to_string()))?;
                builder.commit_from_memory(&bytes).map_err(|e| bad(e.to_string()))
            })
            .map_err(bad)?
        };
        // A graph optimized at export (onnx/preoptimize.py) is not optimized again (half of
        // the session's making); another is, in a second session.
        let mut session = session_at(GraphOptimizationLevel::Disable)?;
        let optimized = session.metadata().map_err(|e| bad(e.to_string()))?.custom(OPTIMIZED_KEY);
        match optimized {
            Some(level) => log::debug!("{}: graph optimized at export ({level})", path.display()),
            None => {
                log::debug!("{}: graph not optimized at export (onnx/preoptimize.py): optimizing it", path.display());
                session = session_at(GraphOptimizationLevel::All)?;
            }
        }
        log::debug!("{}: session ready in {:.3} s", path.display(), started.elapsed().as_secs_f64());
        let meta = session.metadata().map_err(|e| bad(e.to_string()))?;
        // A model trained on an earlier layout version is given that version's columns, and
        // is not asked about the kinds added since (`knows`).
        let version = match meta.custom("layout_hash") {
            Some(h) => match (1..=layout::LAYOUT_VERSION).rev().find(|v| layout::spec_at(*v).hash == h) {
                Some(v) => v,
                None => {
                    let ours = layout::spec().hash;
                    return Err(ModelError::LayoutMismatch { path: path.to_path_buf(), model: h, ours });
                }
            },
            None => return Err(bad("no layout_hash in its metadata (not exported by onnx/export.py)".into())),
        };
        let columns = (version < layout::LAYOUT_VERSION).then(|| layout::columns_at(version));
        let interval = meta.custom("output").is_some_and(|o| o == "interval");
        let coverage = match meta.custom("coverage") {
            Some(c) => match c.parse::<f64>() {
                Ok(c) if c > 0.0 && c < 1.0 => Some(c),
                _ => return Err(bad(format!("metadata coverage '{c}' is not a probability"))),
            },
            None => None,
        };
        let min_work = match meta.custom("min_work") {
            Some(w) => Some(w.parse::<f64>().map_err(|_| bad(format!("metadata min_work '{w}' is not a number")))?),
            None => None,
        };
        let data_space = match meta.custom("data_space") {
            Some(v) => v.parse::<u32>().map_err(|_| bad(format!("metadata data_space '{v}' is not a number")))?,
            None => 0,
        };
        drop(meta);
        let names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        let plain: Vec<&str> = INPUTS.iter().map(|(n, _)| *n).collect();
        let by_index: Vec<&str> = INDEXED_COMPS.iter().chain(&INPUTS[1..]).map(|(n, _)| *n).collect();
        let shared: Vec<&str> = SHARED_INPUTS.iter().map(|(n, _)| *n).collect();
        let cached: Vec<&str> = shared.iter().copied().chain([KNOWN_NESTS.0]).collect();
        let form = if names == cached {
            // [W, K, H]: W and H fixed in the graph.
            let dims = session.inputs()[cached.len() - 1].dtype().tensor_shape().map(|s| s.to_vec()).unwrap_or_default();
            match dims[..] {
                [w, _, h] if w > 0 && h > 0 && session.outputs().len() == 2 => {
                    Form::Cached { networks: w as usize, embed: h as usize }
                }
                _ => return Err(bad(format!("input {} has shape {dims:?}, expected [W, K, H] (and two outputs)", KNOWN_NESTS.0))),
            }
        } else if names == shared {
            Form::Shared
        } else if names == by_index {
            Form::Indexed
        } else if names == plain {
            Form::Plain
        } else {
            return Err(bad(format!("inputs are {names:?}, expected {cached:?} (or {shared:?}, {by_index:?}, {plain:?})")));
        };
        Ok(CostModel {
            path: path.to_path_buf(),
            session: Mutex::new(session),
            interval,
            coverage,
            version,
            columns,
            bytes,
            file_hash: Default::default(),
            min_work,
            data_space,
            form,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What identifies the model file: the first 16 hex digits of its SHA-256.
    pub fn file_hash(&self) -> &str {
        self.file_hash.get_or_init(|| {
            use sha2::{Digest, Sha256};
            crate::ir::canonical::hex(&Sha256::digest(&self.bytes)[..8])
        })
    }

    /// The smallest work of the programs the model was trained on, when its export recorded it.
    pub fn min_work(&self) -> Option<f64> {
        self.min_work
    }

    /// The newest search space its training data was drawn from (0 where not recorded).
    pub fn data_space(&self) -> u32 {
        self.data_space
    }

    /// Loads `path` as if its training data were of search space `space` (kept apart from
    /// the file's own load): what the search leaves out for a model of older data (peeling
    /// before `SPACE_PEELING`) can then be checked with whichever model ships.
    #[doc(hidden)]
    pub fn load_assuming_data_space(path: &Path, space: u32) -> Result<Arc<CostModel>, ModelError> {
        Self::load_kept(path, Some(space))
    }

    /// Whether the output's columns are an error interval's ends rather than members.
    pub fn interval_output(&self) -> bool {
        self.interval
    }

    /// The two-sided coverage the interval's ends were calibrated to, when its export recorded it.
    pub fn interval_coverage(&self) -> Option<f64> {
        self.coverage
    }

    /// The layout version the model was trained on.
    pub fn layout_version(&self) -> u32 {
        self.version
    }

    /// Whether the model sees steps of this kind (its features are in the model's layout).
    pub fn knows(&self, stage: crate::schedule::Stage) -> bool {
        stage.since_layout() <= self.version
    }

    /// Whether the model sees this step (a second level of tiles needs a later layout than
    /// tiling itself).
    pub fn knows_step(&self, step: &crate::schedule::Transform) -> bool {
        step.layout_needed() <= self.version
    }

    /// Predicted speedups of `items` (candidates, typically of one program), one call: an
    /// ensemble's geometric mean.
    pub fn predict(&self, items: &[&Featurized]) -> Result<Vec<f32>, ModelError> {
        Ok(self.predict_members(items)?.iter().map(|m| geometric_mean(m)).collect())
    }

    /// Every member's prediction of every item (one per member; one for a single network).
    pub fn predict_members(&self, items: &[&Featurized]) -> Result<Vec<Vec<f32>>, ModelError> {
        // Without a cache of its own, the call's own nests only.
        self.predict_members_cached(items, &mut NestCache::default())
    }

    /// As [`CostModel::predict_members`], keeping the embeddings of the nests it summarizes in
    /// `cache` and reusing those found there (a graph in the cached form; any other predicts as
    /// without a cache). One cache serves one model and one program's candidates: keys are
    /// the nests' contents, so any candidate may use any entry.
    pub fn predict_members_cached(&self, items: &[&Featurized], cache: &mut NestCache) -> Result<Vec<Vec<f32>>, ModelError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(f) = items.iter().find(|f| f.tree.levels.len() > MAX_DEPTH) {
            return Err(ModelError::Inference(format!("a tree is {} levels deep (max {MAX_DEPTH})", f.tree.levels.len())));
        }
        match self.form {
            Form::Cached { .. } => self.predict_cached(items, cache),
            Form::Shared => self.predict_shared(Shared::encode(items)),
            Form::Indexed | Form::Plain => self.predict_batch_members(Batch::encode(items)),
        }
    }

    fn predict_cached(&self, items: &[&Featurized], cache: &mut NestCache) -> Result<Vec<Vec<f32>>, ModelError> {
        let Form::Cached { networks, embed } = self.form else { unreachable!("a graph of the cached form") };
        if let Some(model) = &cache.model {
            if model != &self.path {
                return Err(ModelError::Inference(format!("a nest cache of {} used with {}", model.display(), self.path.display())));
            }
        }
        cache.model = Some(self.path.clone());
        if cache.interner.nodes() > NEST_CACHE_NODES {
            log::debug!("nest cache: {} nodes, emptied", cache.interner.nodes());
            *cache = NestCache { model: cache.model.take(), ..NestCache::default() };
        }
        let embeddings = &cache.embeddings;
        let CachedBatch { shared, known, new } = Shared::encode_cached(items, &mut cache.interner, |id| embeddings.contains_key(&id));
        let batch = match &self.columns {
            Some(columns) if shared.f == layout::FEATURES => shared.project(columns),
            _ => shared,
        };
        // [W, K, H], K at least 1 (an unused row when none is known).
        let k = known.len().max(1);
        let mut rows = vec![0f32; networks * k * embed];
        for (at, id) in known.iter().enumerate() {
            let e = &cache.embeddings[id];
            for w in 0..networks {
                rows[(w * k + at) * embed..(w * k + at + 1) * embed].copy_from_slice(&e[w * embed..(w + 1) * embed]);
            }
        }
        let inf = |e: ort::Error| ModelError::Inference(e.to_string());
        let (b, u, n, c) = (batch.b, batch.u, batch.n, batch.c);
        let started = std::time::Instant::now();
        let (speedups, nests) = guard(|| -> Result<(Vec<f32>, Vec<f32>), ModelError> {
            let mut inputs = shared_inputs(batch)?;
            inputs.extend(ort::inputs!["known_nests" => Tensor::from_array((vec![networks, k, embed], rows)).map_err(inf)?]);
            let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let outputs = session.run(inputs).map_err(inf)?;
            let (_, speedups) = outputs[0].try_extract_tensor::<f32>().map_err(inf)?;
            let (shape, nests) = outputs[1].try_extract_tensor::<f32>().map_err(inf)?;
            if shape[..] != [networks as i64, n as i64, embed as i64] {
                return Err(ModelError::Inference(format!("nests of shape {:?}, expected [{networks}, {n}, {embed}]", &shape[..])));
            }
            Ok((speedups.to_vec(), nests.to_vec()))
        })
        .map_err(ModelError::Inference)??;
        for (j, id) in new.iter().enumerate() {
            let mut e = Vec::with_capacity(networks * embed);
            for w in 0..networks {
                e.extend_from_slice(&nests[(w * n + j) * embed..(w * n + j + 1) * embed]);
            }
            cache.embeddings.insert(*id, e.into_boxed_slice());
        }
        cache.reused += known.len();
        cache.summarized += new.len();
        log::trace!(
            "batch of {b} ({} nests known, {} new: {u} distinct computations, {n} nodes per level, {c} children): {:.1} ms",
            known.len(),
            new.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
        split_members(speedups, b)
    }

    /// Every member's prediction of every item of a batch in the shared form.
    fn predict_shared(&self, batch: Shared) -> Result<Vec<Vec<f32>>, ModelError> {
        let batch = match &self.columns {
            Some(columns) if batch.f == layout::FEATURES => batch.project(columns),
            _ => batch,
        };
        let (b, u, n, c) = (batch.b, batch.u, batch.n, batch.c);
        let started = std::time::Instant::now();
        let result = guard(|| self.run(shared_inputs(batch)?)).map_err(ModelError::Inference)??;
        log::trace!("batch of {b} ({u} distinct computations, {n} nodes per level, {c} children): {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
        split_members(result, b)
    }

    fn run(&self, inputs: Vec<(std::borrow::Cow<'_, str>, ort::session::SessionInputValue<'_>)>) -> Result<Vec<f32>, ModelError> {
        let inf = |e: ort::Error| ModelError::Inference(e.to_string());
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let outputs = session.run(inputs).map_err(inf)?;
        let (_, values) = outputs[0].try_extract_tensor::<f32>().map_err(inf)?;
        Ok(values.to_vec())
    }

    /// Every member's prediction of every item of a batch in the per-candidate forms.
    fn predict_batch_members(&self, batch: Batch) -> Result<Vec<Vec<f32>>, ModelError> {
        let batch = match &self.columns {
            Some(columns) if batch.f == layout::FEATURES => batch.project(columns),
            _ => batch,
        };
        let inf = |e: ort::Error| ModelError::Inference(e.to_string());
        let b = batch.b;
        let started = std::time::Instant::now();
        let dims = (batch.k, batch.s, batch.c);
        let shapes = batch.shapes();
        let (first, distinct) = if self.form == Form::Indexed {
            let (unique, u, index) = batch.distinct_comps();
            let comps = Tensor::from_array((vec![u, batch.f], unique)).map_err(inf)?;
            let index = Tensor::from_array((vec![batch.b, batch.k], index)).map_err(inf)?;
            (ort::inputs!["unique_comps" => comps, "comp_index" => index], u)
        } else {
            let comps = Tensor::from_array((shapes[0].clone(), batch.comps)).map_err(inf)?;
            (ort::inputs!["comps" => comps], batch.b * batch.k)
        };
        let result = guard(|| -> Result<Vec<f32>, ModelError> {
            let t = |i: usize, v: Vec<i64>| Tensor::from_array((shapes[i].clone(), v)).map_err(inf);
            let mut inputs = first;
            inputs.extend(ort::inputs![
                "comp_children" => t(1, batch.comp_children)?,
                "comp_counts" => t(2, batch.comp_counts)?,
                "loop_children" => t(3, batch.loop_children)?,
                "loop_counts" => t(4, batch.loop_counts)?,
                "root_children" => t(5, batch.root_children)?,
                "root_counts" => t(6, batch.root_counts)?,
            ]);
            self.run(inputs)
        })
        .map_err(ModelError::Inference)??;
        log::trace!("batch of {b} (computations, slots, children {dims:?}; {distinct} computation rows run): {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
        split_members(result, b)
    }
}

/// A cache this large (interned nodes) is emptied before its next use: a search's stages
/// intern a few thousand.
const NEST_CACHE_NODES: usize = 1 << 20;

/// The embeddings of the nests a model summarized, by their contents (interned), for the
/// next calls of one search: a stage's candidates keep most nests of the states they extend,
/// and one state's children share the nests the step leaves alone.
#[derive(Default)]
pub struct NestCache {
    interner: Interner,
    /// By interned node id: `networks * embed` values, one network after the other.
    embeddings: std::collections::HashMap<u32, Box<[f32]>>,
    /// The model the embeddings are of.
    model: Option<PathBuf>,
    /// Nests named from the cache, and summarized by the model, over all calls.
    pub reused: usize,
    pub summarized: usize,
}

/// A batch in the shared form as the graph's inputs ([`SHARED_INPUTS`]).
fn shared_inputs(batch: Shared) -> Result<Vec<(std::borrow::Cow<'static, str>, ort::session::SessionInputValue<'static>)>, ModelError> {
    let inf = |e: ort::Error| ModelError::Inference(e.to_string());
    let shapes = batch.shapes();
    let t = |i: usize, v: Vec<i64>| Tensor::from_array((shapes[i].clone(), v)).map_err(inf);
    Ok(ort::inputs![
        "unique_comps" => Tensor::from_array((shapes[0].clone(), batch.unique_comps)).map_err(inf)?,
        "node_comps" => t(1, batch.node_comps)?,
        "node_comp_counts" => t(2, batch.node_comp_counts)?,
        "node_loops" => t(3, batch.node_loops)?,
        "node_loop_counts" => t(4, batch.node_loop_counts)?,
        "root_children" => t(5, batch.root_children)?,
        "root_counts" => t(6, batch.root_counts)?,
    ])
}

/// The output's rows: [b] for one network, [b, members] for an ensemble.
fn split_members(result: Vec<f32>, b: usize) -> Result<Vec<Vec<f32>>, ModelError> {
    if b == 0 || result.is_empty() || result.len() % b != 0 {
        return Err(ModelError::Inference(format!("{} outputs for {b} candidates", result.len())));
    }
    let members = result.len() / b;
    Ok(result.chunks(members).map(|c| c.to_vec()).collect())
}

/// Loads the model `path`, or the shipped one when `None`.
pub fn load(path: Option<&Path>) -> Result<Arc<CostModel>, ModelError> {
    match path {
        Some(p) => CostModel::load(p),
        None => CostModel::load(&default_model_path()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_read_again_at_another_confidence() {
        // Ends calibrated to 80% two-sided: its low end is the 90% one-sided level.
        let i = Interval { point: 2.0, lo: 1.0, hi: 4.0 };
        let same = i.at_confidence(0.9, 0.8);
        assert!((same.lo - 1.0).abs() < 1e-5 && (same.hi - 4.0).abs() < 1e-5);
        // 50%: the point estimate.
        let point = i.at_confidence(0.5, 0.8);
        assert!((point.lo - 2.0).abs() < 1e-5 && (point.hi - 2.0).abs() < 1e-5);
        // Higher confidence: a lower low end, symmetric in log space about the point.
        let sure = i.at_confidence(0.99, 0.8);
        assert!(sure.lo < 1.0 && (sure.lo * sure.hi - 4.0).abs() < 1e-4);
        // Laplace: the 99% quantile is ln(50)/ln(5) scales below the median.
        assert!((sure.lo.ln() - (2f32.ln() - 2f32.ln() * 50f32.ln() / 5f32.ln())).abs() < 1e-4);
        // A point (no spread) stays a point.
        let flat = Interval { point: 1.5, lo: 1.5, hi: 1.5 };
        assert_eq!(flat.at_confidence(0.99, 0.8), flat);
    }
}
