//! The model's input tensors for a batch of candidates, and `.npy` files of them.
//!
//! The tree recursion is expressed with fixed depth and padded index tables (see
//! ARCHITECTURE.md): level `d` has `S` node slots, each with up to `C` computation children
//! (indices into the candidate's computations) and `C` loop children (slots of level
//! `d+1`), and a count of each. Only the depth is fixed (MAX_DEPTH); `K`, `S` and `C` are
//! the batch's own maxima, so a small program costs little. Padding entries index slot 0
//! and are never read past the counts, so the padding does not change the result.

use super::layout::FEATURES;
use super::Featurized;
use crate::limits::MAX_DEPTH;
use std::io::Write;
use std::path::Path;

/// The model's inputs, in order, with their shapes.
pub const INPUTS: &[(&str, &str)] = &[
    ("comps", "f32[B,K,F]"),
    ("comp_children", "i64[B,D,S,C]"),
    ("comp_counts", "i64[B,D,S]"),
    ("loop_children", "i64[B,D,S,C]"),
    ("loop_counts", "i64[B,D,S]"),
    ("root_children", "i64[B,S]"),
    ("root_counts", "i64[B]"),
];

/// What a graph exported with the computation vectors given once each (`onnx/export.py`
/// since the indexed form) takes in place of `comps`, the first of [`INPUTS`]: the rest
/// follow as there.
pub const INDEXED_COMPS: &[(&str, &str)] = &[("unique_comps", "f32[U,F]"), ("comp_index", "i64[B,K]")];

/// A padded batch, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub b: usize,
    pub k: usize,
    /// Features per computation: [`FEATURES`], or fewer after [`Batch::project`].
    pub f: usize,
    pub s: usize,
    pub c: usize,
    pub comps: Vec<f32>,
    pub comp_children: Vec<i64>,
    pub comp_counts: Vec<i64>,
    pub loop_children: Vec<i64>,
    pub loop_counts: Vec<i64>,
    pub root_children: Vec<i64>,
    pub root_counts: Vec<i64>,
}

impl Batch {
    /// Pads `items` to the batch's own maxima (at least 1 each).
    pub fn encode(items: &[&Featurized]) -> Batch {
        let (k, s, c) = Batch::sizes(items);
        Batch::encode_padded(items, k, s, c)
    }

    /// The batch's own maxima (at least 1 each): computations, slots per level, children.
    pub fn sizes(items: &[&Featurized]) -> (usize, usize, usize) {
        let k = items.iter().map(|f| f.comps.len()).max().unwrap_or(0).max(1);
        let mut s = 1;
        let mut c = 1;
        for f in items {
            s = s.max(f.tree.roots.len());
            for level in &f.tree.levels {
                s = s.max(level.len());
                for n in level {
                    c = c.max(n.comps.len()).max(n.loops.len());
                }
            }
        }
        (k, s, c)
    }

    /// Pads to given sizes, which must cover every item.
    pub fn encode_padded(items: &[&Featurized], k: usize, s: usize, c: usize) -> Batch {
        let b = items.len();
        let d = MAX_DEPTH;
        let mut out = Batch {
            b,
            k,
            f: FEATURES,
            s,
            c,
            comps: vec![0.0; b * k * FEATURES],
            comp_children: vec![0; b * d * s * c],
            comp_counts: vec![0; b * d * s],
            loop_children: vec![0; b * d * s * c],
            loop_counts: vec![0; b * d * s],
            root_children: vec![0; b * s],
            root_counts: vec![0; b],
        };
        for (i, f) in items.iter().enumerate() {
            for (j, v) in f.comps.iter().enumerate().take(k) {
                let at = (i * k + j) * FEATURES;
                out.comps[at..at + FEATURES].copy_from_slice(v);
            }
            for (level, nodes) in f.tree.levels.iter().enumerate().take(d) {
                for (slot, n) in nodes.iter().enumerate().take(s) {
                    let node = (i * d + level) * s + slot;
                    out.comp_counts[node] = n.comps.len().min(c) as i64;
                    out.loop_counts[node] = n.loops.len().min(c) as i64;
                    for (x, comp) in n.comps.iter().enumerate().take(c) {
                        out.comp_children[node * c + x] = *comp as i64;
                    }
                    for (x, l) in n.loops.iter().enumerate().take(c) {
                        out.loop_children[node * c + x] = *l as i64;
                    }
                }
            }
            out.root_counts[i] = f.tree.roots.len().min(s) as i64;
            for (x, r) in f.tree.roots.iter().enumerate().take(s) {
                out.root_children[i * s + x] = *r as i64;
            }
        }
        out
    }

    /// Keeps, of every computation vector, the features at `columns` (in that order): the
    /// vectors of an earlier layout (`layout::columns_at`), for a model trained on it.
    pub fn project(mut self, columns: &[usize]) -> Batch {
        let rows = self.b * self.k;
        let mut comps = Vec::with_capacity(rows * columns.len());
        for row in self.comps.chunks_exact(self.f).take(rows) {
            comps.extend(columns.iter().map(|&c| row[c]));
        }
        self.comps = comps;
        self.f = columns.len();
        self
    }

    /// The computation vectors once each ([U, f], in first-seen order) and each candidate's
    /// row among them ([B, K]): the candidates of one search stage share most of theirs.
    pub fn distinct_comps(&self) -> (Vec<f32>, usize, Vec<i64>) {
        let f = self.f.max(1);
        let mut seen: std::collections::HashMap<Vec<u32>, i64> = std::collections::HashMap::new();
        let mut unique = Vec::new();
        let mut index = Vec::with_capacity(self.b * self.k);
        for row in self.comps.chunks_exact(f).take(self.b * self.k) {
            let key: Vec<u32> = row.iter().map(|x| x.to_bits()).collect();
            let next = seen.len() as i64;
            let at = *seen.entry(key).or_insert_with(|| {
                unique.extend_from_slice(row);
                next
            });
            index.push(at);
        }
        (unique, seen.len(), index)
    }

    /// Shapes of the inputs, in [`INPUTS`] order.
    pub fn shapes(&self) -> [Vec<usize>; 7] {
        let (b, k, f, s, c, d) = (self.b, self.k, self.f, self.s, self.c, MAX_DEPTH);
        [vec![b, k, f], vec![b, d, s, c], vec![b, d, s], vec![b, d, s, c], vec![b, d, s], vec![b, s], vec![b]]
    }
}

/// What a graph exported in the shared form (`onnx/export.py` since it, `model.py`'s
/// `shared`) takes: the batch's distinct computation vectors, its trees' distinct nodes per
/// level, and each candidate's root.
pub const SHARED_INPUTS: &[(&str, &str)] = &[
    ("unique_comps", "f32[U,F]"),
    ("node_comps", "i64[D,N,C]"),
    ("node_comp_counts", "i64[D,N]"),
    ("node_loops", "i64[D,N,C]"),
    ("node_loop_counts", "i64[D,N]"),
    ("root_children", "i64[B,S]"),
    ("root_counts", "i64[B]"),
];

/// A batch in the shared form: each distinct computation vector once (`u` rows), and per
/// level each distinct node once (`n` slots per level), a node being its ordered computation
/// children (rows of `unique_comps`) and loop children (nodes of the level below). A node's
/// embedding depends only on its children, and the candidates of one search stage share most
/// of their subtrees (a step on one nest leaves the other nests' nodes as they were), so the
/// model summarizes each once instead of once per candidate. The same tables as
/// `onnx/model.py`'s `to_shared`; padding entries are 0 and lie past the counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    pub b: usize,
    pub u: usize,
    /// Features per computation: [`FEATURES`], or fewer after [`Shared::project`].
    pub f: usize,
    pub n: usize,
    pub c: usize,
    pub s: usize,
    pub unique_comps: Vec<f32>,
    pub node_comps: Vec<i64>,
    pub node_comp_counts: Vec<i64>,
    pub node_loops: Vec<i64>,
    pub node_loop_counts: Vec<i64>,
    pub root_children: Vec<i64>,
    pub root_counts: Vec<i64>,
}

/// A multiply-rotate hash over words (as rustc's FxHasher): keys here are whole computation
/// vectors, a thousand words each, where SipHash was a tenth of a search stage's time.
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<WordHasher>>;

/// A computation vector as a key, compared bit for bit, borrowed (no copy per lookup).
#[derive(Clone, Copy)]
struct Bits<'a>(&'a [f32]);

impl PartialEq for Bits<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(other.0).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for Bits<'_> {}

impl std::hash::Hash for Bits<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for x in self.0 {
            h.write_u32(x.to_bits());
        }
    }
}

impl Shared {
    pub fn encode(items: &[&Featurized]) -> Shared {
        let d = MAX_DEPTH;
        let mut row_of: HashMap<Bits, i64> = HashMap::default();
        let mut unique_comps = Vec::new();
        // Each candidate's computations as rows of `unique_comps`.
        let rows: Vec<Vec<i64>> = items
            .iter()
            .map(|f| {
                f.comps
                    .iter()
                    .map(|v| {
                        let next = row_of.len() as i64;
                        *row_of.entry(Bits(v)).or_insert_with(|| {
                            unique_comps.extend_from_slice(v);
                            next
                        })
                    })
                    .collect()
            })
            .collect();
        // Bottom-up: a node's key holds its children's ids, so equal subtrees get equal ids.
        type Key = (Vec<i64>, Vec<i64>);
        let mut levels: Vec<Vec<Key>> = vec![Vec::new(); d];
        let mut below: Vec<Vec<i64>> = vec![Vec::new(); items.len()];
        for level in (0..d).rev() {
            let mut ids: HashMap<Key, i64> = HashMap::default();
            for (i, f) in items.iter().enumerate() {
                let nodes = f.tree.levels.get(level).map(Vec::as_slice).unwrap_or(&[]);
                let here: Vec<i64> = nodes
                    .iter()
                    .map(|node| {
                        let key: Key = (
                            node.comps.iter().map(|&c| rows[i][c]).collect(),
                            node.loops.iter().map(|&l| below[i][l]).collect(),
                        );
                        if let Some(&id) = ids.get(&key) {
                            return id;
                        }
                        let id = ids.len() as i64;
                        ids.insert(key.clone(), id);
                        levels[level].push(key);
                        id
                    })
                    .collect();
                below[i] = here;
            }
        }
        let mut out = Shared::with_nodes(items, row_of.len(), unique_comps, &levels);
        let s = out.s;
        for (i, f) in items.iter().enumerate() {
            out.root_counts[i] = f.tree.roots.len() as i64;
            for (x, &r) in f.tree.roots.iter().enumerate() {
                out.root_children[i * s + x] = below[i][r];
            }
        }
        out
    }

    /// The tables of `levels` (per level, each node's computation rows and loop children's
    /// slots in the level below), with the roots of `items` left to fill.
    fn with_nodes(items: &[&Featurized], u: usize, unique_comps: Vec<f32>, levels: &[Vec<(Vec<i64>, Vec<i64>)>]) -> Shared {
        let d = MAX_DEPTH;
        let n = levels.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let c = levels.iter().flatten().map(|(cs, ls)| cs.len().max(ls.len())).max().unwrap_or(0).max(1);
        let s = items.iter().map(|f| f.tree.roots.len()).max().unwrap_or(0).max(1);
        let b = items.len();
        let mut out = Shared {
            b,
            u,
            f: FEATURES,
            n,
            c,
            s,
            unique_comps,
            node_comps: vec![0; d * n * c],
            node_comp_counts: vec![0; d * n],
            node_loops: vec![0; d * n * c],
            node_loop_counts: vec![0; d * n],
            root_children: vec![0; b * s],
            root_counts: vec![0; b],
        };
        for (level, nodes) in levels.iter().enumerate() {
            for (j, (cs, ls)) in nodes.iter().enumerate() {
                let node = level * n + j;
                out.node_comp_counts[node] = cs.len() as i64;
                out.node_loop_counts[node] = ls.len() as i64;
                out.node_comps[node * c..node * c + cs.len()].copy_from_slice(cs);
                out.node_loops[node * c..node * c + ls.len()].copy_from_slice(ls);
            }
        }
        out
    }

    /// Keeps, of every computation vector, the features at `columns` (see [`Batch::project`]).
    pub fn project(mut self, columns: &[usize]) -> Shared {
        let mut comps = Vec::with_capacity(self.u * columns.len());
        for row in self.unique_comps.chunks_exact(self.f.max(1)).take(self.u) {
            comps.extend(columns.iter().map(|&c| row[c]));
        }
        self.unique_comps = comps;
        self.f = columns.len();
        self
    }

    /// Shapes of the inputs, in [`SHARED_INPUTS`] order.
    pub fn shapes(&self) -> [Vec<usize>; 7] {
        let (d, n, c) = (MAX_DEPTH, self.n, self.c);
        [vec![self.u, self.f], vec![d, n, c], vec![d, n], vec![d, n, c], vec![d, n], vec![self.b, self.s], vec![self.b]]
    }
}

/// What a graph exported in the cached form (`onnx/export.py` since it, `model.py`'s
/// `cached`) takes beside [`SHARED_INPUTS`]: the embeddings of nests it returned in earlier
/// calls, which `root_children`'s first `K` indices name (the tables' own nests follow).
pub const KNOWN_NESTS: (&str, &str) = ("known_nests", "f32[W,K,H]");

/// Ids of computation vectors and loop-tree nodes that hold across batches: equal content,
/// equal id (bit for bit, as in [`Shared::encode`]). A node is its level, its computations'
/// ids and its loop children's ids, so equal ids mean equal subtrees.
#[derive(Default)]
pub struct Interner {
    comps: HashMap<Vec<u32>, u32>,
    nodes: HashMap<NodeKey, u32>,
    /// Each node's key by id (to walk a nest's subtree).
    keys: Vec<NodeKey>,
}

type NodeKey = (u8, Vec<u32>, Vec<u32>);

impl Interner {
    /// Distinct nodes seen so far.
    pub fn nodes(&self) -> usize {
        self.keys.len()
    }

    fn comp(&mut self, v: &[f32]) -> u32 {
        let next = self.comps.len() as u32;
        *self.comps.entry(v.iter().map(|x| x.to_bits()).collect()).or_insert(next)
    }

    fn node(&mut self, key: NodeKey) -> u32 {
        if let Some(&id) = self.nodes.get(&key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.clone());
        self.nodes.insert(key, id);
        id
    }
}

/// A batch in the cached form: the shared form's tables over the nests not known yet, and
/// what the roots name instead.
pub struct CachedBatch {
    /// The tables of the new nests' subtrees; its `root_children` index the known nests
    /// (`0..known.len()`) and then the tables' level-0 nodes.
    pub shared: Shared,
    /// The known nests the roots name, by interned id, in index order (none is allowed: the
    /// caller passes an unused row then, as the graph takes at least one).
    pub known: Vec<u32>,
    /// The tables' level-0 nodes by interned id, in table order: the nests whose embeddings
    /// the call returns.
    pub new: Vec<u32>,
}

impl Shared {
    /// As [`Shared::encode`], where the nests for which `known` says yes need no tables: only
    /// the new nests' subtrees are summarized (interned in `interner`, which must be the one
    /// the known ids came from).
    pub fn encode_cached(items: &[&Featurized], interner: &mut Interner, known: impl Fn(u32) -> bool) -> CachedBatch {
        let d = MAX_DEPTH;
        // The batch's distinct vectors first (borrowed keys), then their interned ids.
        let mut row_of: HashMap<Bits, usize> = HashMap::default();
        let mut distinct: Vec<&[f32]> = Vec::new();
        let rows: Vec<Vec<usize>> = items
            .iter()
            .map(|f| {
                f.comps
                    .iter()
                    .map(|v| {
                        *row_of.entry(Bits(v)).or_insert_with(|| {
                            distinct.push(v);
                            distinct.len() - 1
                        })
                    })
                    .collect()
            })
            .collect();
        let comp_ids: Vec<u32> = distinct.iter().map(|v| interner.comp(v)).collect();
        let mut vector_of: HashMap<u32, usize> = HashMap::default();
        for (row, &id) in comp_ids.iter().enumerate() {
            vector_of.entry(id).or_insert(row);
        }
        // Every candidate's nests by interned id, bottom-up.
        let roots: Vec<Vec<u32>> = items
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut below: Vec<u32> = Vec::new();
                for level in (0..f.tree.levels.len().min(d)).rev() {
                    below = f.tree.levels[level]
                        .iter()
                        .map(|node| {
                            let cs = node.comps.iter().map(|&c| comp_ids[rows[i][c]]).collect();
                            let ls = node.loops.iter().map(|&l| below[l]).collect();
                            interner.node((level as u8, cs, ls))
                        })
                        .collect();
                }
                f.tree.roots.iter().map(|&r| below[r]).collect()
            })
            .collect();
        // Known nests get an index each, new ones a level-0 slot; then the new nests' subtrees
        // level by level, each distinct node once.
        let mut known_at: HashMap<u32, usize> = HashMap::default();
        let mut known_ids = Vec::new();
        let mut slot_of: Vec<HashMap<u32, usize>> = vec![HashMap::default(); d];
        let mut levels: Vec<Vec<u32>> = vec![Vec::new(); d];
        for &nest in roots.iter().flatten() {
            if known(nest) {
                known_at.entry(nest).or_insert_with(|| {
                    known_ids.push(nest);
                    known_ids.len() - 1
                });
            } else if !slot_of[0].contains_key(&nest) {
                slot_of[0].insert(nest, levels[0].len());
                levels[0].push(nest);
            }
        }
        for level in 1..d {
            let children: Vec<u32> =
                levels[level - 1].iter().flat_map(|&node| interner.keys[node as usize].2.iter().copied()).collect();
            for child in children {
                if !slot_of[level].contains_key(&child) {
                    slot_of[level].insert(child, levels[level].len());
                    levels[level].push(child);
                }
            }
        }
        // The vectors the new subtrees read, once each.
        let mut used: HashMap<u32, i64> = HashMap::default();
        let mut unique_comps: Vec<f32> = Vec::new();
        for nodes in &levels {
            for &node in nodes {
                for &c in &interner.keys[node as usize].1 {
                    used.entry(c).or_insert_with(|| {
                        unique_comps.extend_from_slice(distinct[vector_of[&c]]);
                        (unique_comps.len() / FEATURES - 1) as i64
                    });
                }
            }
        }
        let mut u = used.len();
        if u == 0 {
            // No new nest: one unused row, as the graph takes at least one.
            unique_comps = vec![0.0; FEATURES];
            u = 1;
        }
        // The new subtrees' nodes by the tables' rows and slots.
        let local: Vec<Vec<(Vec<i64>, Vec<i64>)>> = levels
            .iter()
            .enumerate()
            .map(|(level, nodes)| {
                nodes
                    .iter()
                    .map(|&id| {
                        let (_, cs, ls) = &interner.keys[id as usize];
                        (cs.iter().map(|c| used[c]).collect(), ls.iter().map(|l| slot_of[level + 1][l] as i64).collect())
                    })
                    .collect()
            })
            .collect();
        let mut out = Shared::with_nodes(items, u, unique_comps, &local);
        let s = out.s;
        let k = known_ids.len().max(1);
        for (i, nests) in roots.iter().enumerate() {
            out.root_counts[i] = nests.len() as i64;
            for (x, nest) in nests.iter().enumerate() {
                out.root_children[i * s + x] = match known_at.get(nest) {
                    Some(&at) => at as i64,
                    None => (k + slot_of[0][nest]) as i64,
                };
            }
        }
        CachedBatch { shared: out, known: known_ids, new: std::mem::take(&mut levels[0]) }
    }
}

/// Element types `.npy` files are written with.
pub trait NpyElem: Copy {
    const DESCR: &'static str;
    fn write_le(self, out: &mut Vec<u8>);
}

impl NpyElem for f32 {
    const DESCR: &'static str = "<f4";
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpyElem for i64 {
    const DESCR: &'static str = "<i8";
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpyElem for i32 {
    const DESCR: &'static str = "<i4";
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// Writes a C-order array as a `.npy` file (format 1.0).
pub fn write_npy<T: NpyElem>(path: &Path, shape: &[usize], data: &[T]) -> std::io::Result<()> {
    let expected: usize = shape.iter().product();
    if expected != data.len() {
        return Err(std::io::Error::other(format!(
            "{}: shape {shape:?} holds {expected} values, got {}",
            path.display(),
            data.len()
        )));
    }
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}", T::DESCR);
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = Vec::with_capacity(10 + header.len() + data.len() * 8);
    bytes.extend_from_slice(b"\x93NUMPY\x01\x00");
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for x in data {
        x.write_le(&mut bytes);
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(&bytes)?;
    f.flush()
}
