//! `features`: the cost model's input for one program under one schedule: a computation
//! vector per computation ([`layout`]) and the loop tree they hang from ([`ModelTree`]).
//! [`tensors`] pads a batch of them into the model's input tensors; `autosched featurize`
//! writes a dataset's worth for the trainer.

pub mod dataset;
pub mod layout;
pub mod tensors;

use crate::ir::{Access, Bound, CompId, ElemType, LoopId, Program};
use crate::limits::{MAX_ACCESSES, MAX_DEPTH, MAX_DIMS};
use crate::schedule::Schedule;
use layout::{Kind, FEATURES};
use crate::schedule::tree::{Ent, Kid, LoopAt, Scheduled, TreeError};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FeatureError {
    #[error("step {step} of the schedule: {reason}")]
    Schedule { step: usize, reason: String },
    #[error("computation {comp} is {depth} loops deep; the model takes at most {MAX_DEPTH}")]
    TooDeep { comp: String, depth: usize },
    #[error("the program has no modeled loop nest")]
    Empty,
}

impl From<TreeError> for FeatureError {
    fn from(e: TreeError) -> Self {
        FeatureError::Schedule { step: e.step, reason: e.reason }
    }
}

/// A node of the model's tree: its computations (in program order) and its loop
/// children, as slot indices into the next level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelNode {
    pub comps: Vec<usize>,
    pub loops: Vec<usize>,
}

/// The loop tree the model recurses over: `levels[d]` holds the loops at depth `d` (left
/// to right); `roots` are the slots of level 0 under the program's virtual root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelTree {
    pub levels: Vec<Vec<ModelNode>>,
    pub roots: Vec<usize>,
}

/// One program under one schedule, ready for the model.
#[derive(Clone, Debug)]
pub struct Featurized {
    /// One vector of [`FEATURES`] values per computation, in program order.
    pub comps: Vec<Vec<f32>>,
    pub tree: ModelTree,
}

/// Featurizes `program` under `schedule` (which must name the program's loops), for this
/// machine.
pub fn featurize(program: &Program, schedule: &Schedule) -> Result<Featurized, FeatureError> {
    Featurizer::new(program).featurize(schedule)
}

/// The host's cache levels as the features compare working sets with them (bytes): L1 and
/// L2 of one core, the whole L3. A level sysfs did not report is absent.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    pub levels: Vec<f64>,
    /// L1, L2, L3 in bytes as in `levels`, 0 where absent: the host fields of the vector.
    pub sizes: [f64; 3],
}

impl Host {
    /// From caches as `machine::detect_caches` reads them (and the data records them; data
    /// from before 2026-11-26 has no `shared_by`: such a cache counts as private).
    pub fn from_caches(caches: &[crate::machine::Cache]) -> Host {
        let mut sizes = [0.0; 3];
        for level in 1..=3 {
            if let Some(c) = caches.iter().find(|c| c.level == level) {
                let share = if level < 3 { c.shared_by.max(1) as f64 } else { 1.0 };
                sizes[level as usize - 1] = c.bytes as f64 / share;
            }
        }
        Host::from_sizes(sizes)
    }

    /// From L1, L2 (one core's) and L3 sizes in bytes, 0 where absent.
    pub fn from_sizes(sizes: [f64; 3]) -> Host {
        Host { levels: sizes.iter().copied().filter(|&b| b > 0.0).collect(), sizes }
    }

    /// The host a data point records (its `machine.caches`); a point that records none
    /// (hand-made data, the toy dataset) is taken as this machine's.
    pub fn recorded(caches: &[crate::machine::Cache]) -> Host {
        if caches.is_empty() {
            Host::this_machine().clone()
        } else {
            Host::from_caches(caches)
        }
    }

    /// This machine's.
    pub fn this_machine() -> &'static Host {
        static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
        HOST.get_or_init(|| Host::from_caches(crate::machine::caches()))
    }

    /// "L1 32 KiB, L2 512 KiB, L3 32768 KiB": the levels as the features see them.
    pub fn describe(&self) -> String {
        let levels: Vec<String> = self.levels.iter().enumerate().map(|(i, b)| format!("L{} {} KiB", i + 1, (*b as u64) / 1024)).collect();
        if levels.is_empty() {
            "caches not recorded".to_string()
        } else {
            levels.join(", ")
        }
    }

    /// How many of the levels `bytes` exceeds.
    fn exceeded(&self, bytes: f64) -> f64 {
        self.levels.iter().filter(|&&l| bytes > l).count() as f64
    }
}

/// Featurizes one program under many schedules: what no schedule changes (each
/// computation's accesses, types, operations, sizes: all but the loop part of its vector)
/// is computed once. The search featurizes hundreds of candidates per stage.
pub struct Featurizer<'a> {
    program: &'a Program,
    host: Host,
    ranges: Vec<(i64, i64)>,
    /// Per computation, its vector with the loop part zero (or why it has none).
    statics: Vec<Result<Vec<f32>, FeatureError>>,
    /// Per computation and loop level, the [`layout::LOOP_STRIDES`] values (raw).
    strides: Vec<Vec<[f64; STRIDE_FIELDS]>>,
}

impl<'a> Featurizer<'a> {
    /// For this machine.
    pub fn new(program: &'a Program) -> Featurizer<'a> {
        Featurizer::for_host(program, Host::this_machine().clone())
    }

    /// For the host `host` (a dataset's points: the host each was measured on).
    pub fn for_host(program: &'a Program, host: Host) -> Featurizer<'a> {
        let ranges = loop_ranges(program);
        let statics = program.computations.iter().map(|c| static_vector(program, &ranges, &host, c.id)).collect();
        let strides = program.computations.iter().map(|c| strides(program, c.id)).collect();
        Featurizer { program, host, ranges, statics, strides }
    }

    pub fn featurize(&self, schedule: &Schedule) -> Result<Featurized, FeatureError> {
        if self.program.nests.is_empty() {
            return Err(FeatureError::Empty);
        }
        let sched = Scheduled::new(self.program, schedule)?;
        let mut scratch = vec![0f64; layout::ACCESS_PART];
        let comps = self
            .statics
            .iter()
            .enumerate()
            .map(|(c, v)| {
                let mut v = v.clone()?;
                let fixed = Fixed { ranges: &self.ranges, host: &self.host, strides: &self.strides[c] };
                loop_part(self.program, &sched, &fixed, c, &mut scratch, &mut v);
                Ok(v)
            })
            .collect::<Result<Vec<_>, FeatureError>>()?;
        Ok(Featurized { comps, tree: model_tree(&sched) })
    }
}

/// The program's work: iterations of all its computations together, counted as the
/// `iterations` feature counts them (the product of each computation's loop extents). The
/// model's domain is stated in it (`CostModel::min_work`): a program far smaller than any it
/// was trained on is outside what its predictions mean.
pub fn work(program: &Program) -> f64 {
    let ranges = loop_ranges(program);
    program
        .computations
        .iter()
        .map(|c| c.iterators.iter().map(|&l| extent(program, &ranges, l).max(1) as f64).product::<f64>())
        .sum()
}

/// Smallest first and largest last iteration value of every loop, by interval
/// evaluation of the bounds over the outer loops' ranges (symbols count as 0; a `max`
/// lower bound is at least each of its expressions, a `min` upper bound at most each).
fn loop_ranges(program: &Program) -> Vec<(i64, i64)> {
    let mut out = vec![(0i64, 0i64); program.loops.len()];
    let eval = |b: &Bound, out: &[(i64, i64)], upper: bool| -> i64 {
        let mut v = b.constant;
        for t in &b.loops {
            let (lo, hi) = out[t.of];
            let pick = if (t.coeff >= 0) == upper { hi } else { lo };
            v = v.saturating_add(t.coeff.saturating_mul(pick));
        }
        v
    };
    // Loops are stored in pre-order, so outer loops come first.
    for l in &program.loops {
        let lo = l.lowers().map(|b| eval(b, &out, false)).max().expect("a lower bound");
        let hi = l.uppers().map(|b| eval(b, &out, true)).min().expect("an upper bound") - 1;
        out[l.id] = (lo, hi.max(lo));
    }
    out
}

/// Iterations of a loop: its trip count when constant; else the smaller of its range's
/// width and, where an upper and a lower expression differ by a constant (a tile's point
/// loop `ii to min(ii + 32, N)`), that constant.
fn extent(program: &Program, ranges: &[(i64, i64)], id: LoopId) -> i64 {
    let l = &program.loops[id];
    if let Some(t) = l.trip_count {
        return t.max(0);
    }
    let step = l.step.max(1);
    let (lo, hi) = ranges[id];
    let mut span = hi - lo + 1;
    for u in l.uppers() {
        for b in l.lowers() {
            let same = |x: &Bound, y: &Bound| {
                let mut a = x.loops.clone();
                let mut c = y.loops.clone();
                a.sort_by_key(|t| t.of);
                c.sort_by_key(|t| t.of);
                let mut s = x.symbols.clone();
                let mut r = y.symbols.clone();
                s.sort_by_key(|t| t.of);
                r.sort_by_key(|t| t.of);
                a == c && s == r
            };
            if same(u, b) {
                span = span.min(u.constant - b.constant);
            }
        }
    }
    (span.max(0) + step - 1) / step
}

fn elem_bytes(t: ElemType) -> i64 {
    t.bytes()
}

/// A computation's vector without its loop part (zero there), log-transformed: what no
/// schedule changes.
fn static_vector(program: &Program, ranges: &[(i64, i64)], host: &Host, comp: CompId) -> Result<Vec<f32>, FeatureError> {
    let c = &program.computations[comp];
    if c.iterators.len() > MAX_DEPTH {
        return Err(FeatureError::TooDeep { comp: c.name.clone(), depth: c.iterators.len() });
    }
    let mut v = vec![0f64; FEATURES];
    let iterations: f64 = c.iterators.iter().map(|&l| extent(program, ranges, l).max(1) as f64).product();
    let accesses: Vec<(&Access, bool)> =
        std::iter::once((&c.store, true)).chain(c.loads.iter().map(|a| (a, false))).collect();
    for (i, (a, is_store)) in accesses.iter().take(MAX_ACCESSES).enumerate() {
        let buf = &program.buffers[a.buffer];
        v[layout::access_field(i, "present")] = 1.0;
        v[layout::access_field(i, "is_store")] = *is_store as u8 as f64;
        v[layout::access_field(i, "buffer_id")] = a.buffer as f64;
        v[layout::access_field(i, "buffer_rank")] = buf.shape.len() as f64;
        v[layout::access_field(i, "buffer_elements")] = buf.shape.iter().map(|d| *d as f64).product::<f64>();
        v[layout::access_field(i, "element_bytes")] = elem_bytes(buf.element_type) as f64;
        let cols = c.iterators.len();
        for (r, row) in a.matrix.iter().take(MAX_DIMS).enumerate() {
            for (j, coeff) in row.iter().enumerate() {
                let col = if j == cols { MAX_DEPTH } else { j };
                if col < layout::MATRIX_COLS {
                    v[layout::matrix_entry(i, r, col)] = *coeff as f64;
                }
            }
        }
    }
    if let Some(t) = layout::ELEM_TYPES.iter().position(|t| *t == c.element_type) {
        v[layout::TYPE_PART + t] = 1.0;
    }
    for op in &c.ops {
        if let Some(k) = layout::OP_KINDS.iter().position(|k| *k == op.kind) {
            v[layout::OPS_PART + k] += op.count as f64;
        }
    }
    let store_buf = &program.buffers[c.store.buffer];
    v[layout::scalar_field("depth")] = c.iterators.len() as f64;
    v[layout::scalar_field("accesses")] = accesses.len() as f64;
    v[layout::scalar_field("constants")] = c.constants as f64;
    v[layout::scalar_field("invariant_inputs")] = c.invariant_inputs as f64;
    v[layout::scalar_field("iterations")] = iterations;
    v[layout::scalar_field("store_elements")] = store_buf.shape.iter().map(|d| *d as f64).product::<f64>();
    v[layout::scalar_field("position")] = comp as f64;
    for (i, (name, _)) in layout::HOST_SCALARS.iter().enumerate() {
        v[layout::scalar_field(name)] = host.sizes[i];
    }
    Ok(v.iter().zip(layout::kinds()).map(|(x, k)| transform(*x, *k)).collect())
}

const STRIDE_FIELDS: usize = layout::LOOP_STRIDES.len();

/// Per loop level of computation `comp`, how its accesses move when that loop takes one
/// step ([`layout::LOOP_STRIDES`], raw): buffers are row-major with their static shapes.
fn strides(program: &Program, comp: CompId) -> Vec<[f64; STRIDE_FIELDS]> {
    let c = &program.computations[comp];
    let line = crate::schedule::tile_sizes::LINE_BYTES as f64;
    c.iterators
        .iter()
        .enumerate()
        .map(|(level, &l)| {
            let step = program.loops[l].step.max(1) as f64;
            let mut out = [0f64; STRIDE_FIELDS];
            for a in std::iter::once(&c.store).chain(c.loads.iter()) {
                let buf = &program.buffers[a.buffer];
                // Elements between consecutive indices of each dimension, innermost last.
                let mut inner = 1f64;
                let mut elems = 0f64;
                for (r, row) in a.matrix.iter().enumerate().rev() {
                    elems += row.get(level).copied().unwrap_or(0) as f64 * inner;
                    inner *= buf.shape.get(r).copied().unwrap_or(1).max(1) as f64;
                }
                let elems = (elems * step).abs();
                let bytes = elems * buf.element_type.bytes() as f64;
                let class = if elems == 0.0 {
                    0
                } else if elems == 1.0 {
                    1
                } else if bytes < line {
                    2
                } else {
                    3
                };
                out[class] += 1.0;
                out[4] = out[4].max(bytes);
            }
            out
        })
        .collect()
}

/// What the loop part reads that no schedule changes.
struct Fixed<'a> {
    ranges: &'a [(i64, i64)],
    host: &'a Host,
    strides: &'a [[f64; STRIDE_FIELDS]],
}

/// The loop part of a computation's vector under `sched` (`v[..ACCESS_PART]`), through
/// `scratch` (that many values, overwritten).
fn loop_part(program: &Program, sched: &Scheduled, fixed: &Fixed, comp: CompId, scratch: &mut [f64], v: &mut [f32]) {
    let Fixed { ranges, host, strides } = *fixed;
    let c = &program.computations[comp];
    scratch.fill(0.0);
    let enclosing = sched.enclosing(comp);
    for (level, &orig) in c.iterators.iter().enumerate() {
        let l = &program.loops[orig];
        let f = |name| layout::loop_field(level, name);
        let ext = extent(program, ranges, orig);
        scratch[f("present")] = 1.0;
        scratch[f("lower")] = l.lower.constant as f64;
        scratch[f("upper")] = l.upper.constant as f64;
        scratch[f("extent")] = ext as f64;
        scratch[f("step")] = l.step as f64;
        scratch[f("non_rectangular")] = l.is_non_rectangular() as u8 as f64;
        scratch[f("reduction")] = c.reduction_loops.contains(&orig) as u8 as f64;

        // The loops around the computation now (after fusion, the loops it merged into;
        // after distribution, the copies that hold it).
        let live = sched.live(orig);
        let around = |level: u8| enclosing.iter().find(|e| e.loop_id == live && e.tile == level).copied();
        let point = around(0).unwrap_or(Ent::point(live));
        let tile = around(1).unwrap_or(point.at_level(1));
        let tile2 = around(2).unwrap_or(point.at_level(2));
        if let Some(node) = sched.node_of(point) {
            scratch[f("final_depth")] = sched.depth(node) as f64;
            scratch[f("innermost")] = (!sched.has_loop_children(node)) as u8 as f64;
        }
        // What each kind of step left on this loop (its section of the layout).
        crate::schedule::kinds::loop_features(program, sched, &LoopAt { live, point, tile, tile2, comp, level }, &mut |name, x| scratch[f(name)] = x);
        if let Some(node) = sched.node_of(point) {
            let bytes = working_set(program, sched, comp, node);
            scratch[f("working_set_bytes")] = bytes;
            scratch[f("caches_exceeded")] = host.exceeded(bytes);
        }
        if let Some(node) = sched.node_of(tile) {
            let bytes = working_set(program, sched, comp, node);
            scratch[f("tile_working_set_bytes")] = bytes;
            scratch[f("tile_caches_exceeded")] = host.exceeded(bytes);
        }
        for ((name, _), x) in layout::LOOP_STRIDES.iter().zip(strides[level]) {
            scratch[f(name)] = x;
        }
        if let Some((length, interleave)) = chain(program, sched, comp, &enclosing, orig, point, ext) {
            scratch[f("chain")] = 1.0;
            scratch[f("chain_length")] = length;
            scratch[f("chain_interleave")] = interleave;
        }
    }
    for ((out, x), k) in v.iter_mut().zip(scratch.iter()).zip(layout::kinds()) {
        *out = transform(*x, *k);
    }
}

/// Whether the original loop `orig` of computation `comp`, now the point loop `point`,
/// runs the computation's reduction as a dependence chain ([`layout::LOOP_CHAIN`]): it holds
/// the computation directly, the store does not move along it, the values are floating
/// point and the loop is not vectorized. Then the chain's iterations per entry (`extent`, or
/// the tile's size) and the independent chains the body interleaves: the jam factors and
/// vector widths of the loops around it, but for those of the reduction's own loops (their
/// copies update the same accumulator, one chain still).
fn chain(program: &Program, sched: &Scheduled, comp: CompId, enclosing: &[Ent], orig: LoopId, point: Ent, extent: i64) -> Option<(f64, f64)> {
    use crate::schedule::Stage;
    let c = &program.computations[comp];
    let vectorized = |e: Ent| sched.tag(e, Stage::Vectorize).is_some();
    if enclosing.first() != Some(&point) || !c.reduction_loops.contains(&orig) || !c.element_type.is_float() || vectorized(point) {
        return None;
    }
    let reducing: Vec<LoopId> = c.reduction_loops.iter().map(|l| sched.live(*l)).collect();
    let interleave: f64 = enclosing[1..]
        .iter()
        .filter(|e| !reducing.contains(&e.loop_id))
        .map(|e| sched.tag(*e, Stage::Unroll).unwrap_or(1) as f64 * sched.tag(*e, Stage::Vectorize).unwrap_or(1) as f64)
        .product();
    let length = sched.tag(point, Stage::Tile).map_or(extent as f64, |t| (t as i64).min(extent) as f64);
    Some((length, interleave))
}

/// Bytes one run of loop node `node` touches through `comp`'s accesses: per buffer, the
/// largest box of its accesses (accesses of one buffer at small offsets, as a stencil's,
/// overlap almost wholly).
fn working_set(program: &Program, sched: &Scheduled, comp: CompId, node: usize) -> f64 {
    let c = &program.computations[comp];
    let mut per_buffer: Vec<(usize, f64)> = Vec::new();
    let ranges = sched.box_ranges(program, comp, node);
    for a in std::iter::once(&c.store).chain(c.loads.iter()) {
        let bytes = Scheduled::box_of(program, a, &ranges) * program.buffers[a.buffer].element_type.bytes() as f64;
        match per_buffer.iter_mut().find(|(b, _)| *b == a.buffer) {
            Some((_, x)) => *x = x.max(bytes),
            None => per_buffer.push((a.buffer, bytes)),
        }
    }
    per_buffer.iter().map(|(_, x)| x).sum()
}

/// A raw feature value as the model reads it: the log transform on non-boolean fields.
fn transform(x: f64, k: Kind) -> f32 {
    if k == Kind::Log {
        layout::log_transform(x)
    } else {
        x as f32
    }
}

/// The scheduled tree without tile-space loops, level by level.
fn model_tree(sched: &Scheduled) -> ModelTree {
    let mut tree = ModelTree::default();
    // Children of a node in the model: tile-space loops are looked through.
    fn kids(sched: &Scheduled, node: usize, out: &mut Vec<Kid>) {
        for k in &sched.nodes[node].children {
            match k {
                Kid::Node(n) if sched.nodes[*n].ent.is_tile() => kids(sched, *n, out),
                other => out.push(*other),
            }
        }
    }
    fn place(sched: &Scheduled, tree: &mut ModelTree, node: usize, depth: usize) -> usize {
        if tree.levels.len() <= depth {
            tree.levels.push(Vec::new());
        }
        let slot = tree.levels[depth].len();
        tree.levels[depth].push(ModelNode::default());
        let mut list = Vec::new();
        kids(sched, node, &mut list);
        let mut m = ModelNode::default();
        for k in list {
            match k {
                Kid::Comp(c) => m.comps.push(c),
                Kid::Node(n) => m.loops.push(place(sched, tree, n, depth + 1)),
            }
        }
        tree.levels[depth][slot] = m;
        slot
    }
    let mut top = Vec::new();
    for r in &sched.roots {
        if sched.nodes[*r].ent.is_tile() {
            kids(sched, *r, &mut top);
        } else {
            top.push(Kid::Node(*r));
        }
    }
    for k in top {
        if let Kid::Node(n) = k {
            let slot = place(sched, &mut tree, n, 0);
            tree.roots.push(slot);
        }
    }
    tree
}
