//! The computation vector's layout, defined once. The seeds' layout (thesis Table 3.3):
//! a loop part per loop level (bounds, reduction tag, transformation tags and
//! parameters), then the assignment part (access matrices with buffer ids, operation
//! counts). Non-boolean features are log-transformed (thesis §3.3.2): `sign(x)·ln(1+|x|)`.
//!
//! [`spec`] is the machine-readable form the Python trainer reads (onnx/layout.json); its
//! `hash` is stored in the exported model, so a model trained on another layout is refused.

use crate::ir::{ElemType, OpKind};
use crate::limits::{MAX_ACCESSES, MAX_DEPTH, MAX_DIMS};
use serde::Serialize;

/// How a raw value is turned into a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 0 or 1, kept as is.
    Bool,
    /// `sign(x)·ln(1+|x|)`.
    Log,
}

/// Per loop level of the computation's original nest (outermost first), the loop itself.
pub const LOOP_BASE: &[(&str, Kind)] = &[
    ("present", Kind::Bool),
    ("lower", Kind::Log),
    ("upper", Kind::Log),
    ("extent", Kind::Log),
    ("step", Kind::Log),
    ("non_rectangular", Kind::Bool),
    ("reduction", Kind::Bool),
];

/// Where the loop ended up after the schedule.
pub const LOOP_PLACEMENT: &[(&str, Kind)] = &[("final_depth", Kind::Log), ("innermost", Kind::Bool)];

/// What one run of the loop touches, after the schedule: the bytes of the boxes its
/// computation's accesses cover (one box per buffer, the largest), and how many of the
/// host's cache levels (L1, L2 per core, L3) that exceeds; the same for the loop's tile
/// loop when it is tiled (zero otherwise). The cache levels are the host's the point was
/// measured on (the pass: this machine's): relative to the caches, so that a model trained
/// on some hosts says something of another. Since layout [`WORKING_SET_SINCE`].
pub const LOOP_WORKING_SET: &[(&str, Kind)] = &[
    ("working_set_bytes", Kind::Log),
    ("caches_exceeded", Kind::Log),
    ("tile_working_set_bytes", Kind::Log),
    ("tile_caches_exceeded", Kind::Log),
];
pub const WORKING_SET_SINCE: u32 = 4;

/// How the computation's accesses walk memory when this loop advances one iteration (its
/// step), from each access matrix's column of the loop and its buffer's row-major shape:
/// how many accesses stay put (reuse along the loop), move one element (contiguous: what
/// vectorizes and what the prefetcher follows), move less than a cache line, or a line or
/// more (a new line every iteration); and the largest move in bytes. They describe the
/// original loop and are read with [`LOOP_PLACEMENT`]: from the matrices alone the model has
/// to multiply coefficients by dimension sizes to see that an interchange put a
/// large-stride loop innermost, which it did not learn (the convolution interchanges of
/// onnx/REPORT.md that ran 0.05x). Since layout [`STRIDES_SINCE`].
pub const LOOP_STRIDES: &[(&str, Kind)] = &[
    ("stride_invariant", Kind::Log),
    ("stride_unit", Kind::Log),
    ("stride_in_line", Kind::Log),
    ("stride_new_line", Kind::Log),
    ("stride_max_bytes", Kind::Log),
];
pub const STRIDES_SINCE: u32 = 5;

/// Whether the loop, after the schedule, runs a floating-point reduction as a dependence
/// chain: it is the innermost loop around the computation, the computation's store does not
/// move along it, and it is not vectorized (LLVM vectorizes a floating-point reduction only
/// under reassociation, which the pass does not allow, so each iteration waits for the
/// previous add, or for the store-to-load forwarding of an accumulator in memory); then the
/// chain's length per entry of the loop (its tile's size when tiled, its extent otherwise),
/// and how many independent chains the innermost body interleaves (the jam factors and
/// vector widths of the loops around it that are not themselves the reduction's). The other
/// fields say each of these only in pieces (`reduction` of the original loop, `innermost`,
/// the unroll factors of other levels); syrk's interchange that makes its reduction innermost
/// was predicted at 3.19x and ran 0.72x. A pair continued with them alone ranked held-out
/// data no better (onnx/REPORT.md, "Not shipped (2026-12-04, night)"); continued further with
/// the ranking pairs weighed toward each program's fastest schedules it was shipped (REPORT,
/// "Shipped since 2026-12-04, late"). Since layout [`CHAIN_SINCE`].
pub const LOOP_CHAIN: &[(&str, Kind)] = &[
    ("chain", Kind::Bool),
    ("chain_length", Kind::Log),
    ("chain_interleave", Kind::Log),
];
pub const CHAIN_SINCE: u32 = 7;

/// The loop part of one level in layout `version`: [`LOOP_BASE`], then the sections of the
/// structural kinds (which build the loop structure), [`LOOP_PLACEMENT`], then the sections
/// of the kinds that refine loops in place, each group in registry order
/// (`schedule::kinds::FEATURE_SECTIONS`: every kind names its own fields), keeping the
/// sections that version has, then [`LOOP_WORKING_SET`], [`LOOP_STRIDES`] and
/// [`LOOP_CHAIN`] from their versions on.
pub fn loop_fields_at(version: u32) -> Vec<(&'static str, Kind)> {
    let sections = crate::schedule::kinds::FEATURE_SECTIONS;
    let group = |structural: bool| {
        sections.iter().filter(move |(s, since, _)| *s == structural && *since <= version).flat_map(|(_, _, f)| f.iter().copied())
    };
    let mut out: Vec<(&'static str, Kind)> = LOOP_BASE.to_vec();
    out.extend(group(true));
    out.extend(LOOP_PLACEMENT.iter().copied());
    out.extend(group(false));
    if version >= WORKING_SET_SINCE {
        out.extend(LOOP_WORKING_SET.iter().copied());
    }
    if version >= STRIDES_SINCE {
        out.extend(LOOP_STRIDES.iter().copied());
    }
    if version >= CHAIN_SINCE {
        out.extend(LOOP_CHAIN.iter().copied());
    }
    out
}

/// The loop part of one level in the current layout.
pub fn loop_fields() -> &'static [(&'static str, Kind)] {
    static FIELDS: std::sync::OnceLock<Vec<(&'static str, Kind)>> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        let out = loop_fields_at(LAYOUT_VERSION);
        debug_assert_eq!(out.len(), LOOP_WIDTH);
        out
    })
}

const fn sections_since(sections: &[(bool, u32, &[(&str, Kind)])]) -> u32 {
    let mut v = 1;
    let mut i = 0;
    while i < sections.len() {
        if sections[i].1 > v {
            v = sections[i].1;
        }
        i += 1;
    }
    v
}

/// The current layout version: the latest that a kind's features, the working set, the
/// strides, the host or the chains added. A model trained on an earlier version is given that version's columns
/// ([`columns_at`]).
pub const LAYOUT_VERSION: u32 =
    later(sections_since(crate::schedule::kinds::FEATURE_SECTIONS), later(WORKING_SET_SINCE, later(STRIDES_SINCE, later(HOST_SINCE, CHAIN_SINCE))));

const fn later(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

const fn sections_width(sections: &[(bool, u32, &[(&str, Kind)])]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < sections.len() {
        n += sections[i].2.len();
        i += 1;
    }
    n
}

/// Per memory access: the store first, then the loads in expression order.
pub const ACCESS_HEAD: &[(&str, Kind)] = &[
    ("present", Kind::Bool),
    ("is_store", Kind::Bool),
    ("buffer_id", Kind::Log),
    ("buffer_rank", Kind::Log),
    ("buffer_elements", Kind::Log),
    ("element_bytes", Kind::Log),
];
/// Access matrix: MAX_DIMS rows × (MAX_DEPTH loop columns + the constant column).
pub const MATRIX_COLS: usize = MAX_DEPTH + 1;
pub const ACCESS_WIDTH: usize = ACCESS_HEAD.len() + MAX_DIMS * MATRIX_COLS;

/// Element types, one-hot.
pub const ELEM_TYPES: [ElemType; 10] = [
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
    ElemType::F64,
    ElemType::I1,
    ElemType::I8,
    ElemType::I16,
    ElemType::I32,
    ElemType::I64,
    ElemType::Index,
];

/// Operation counts by kind (all result types together).
pub const OP_KINDS: [OpKind; 22] = [
    OpKind::Add,
    OpKind::Sub,
    OpKind::Mul,
    OpKind::Div,
    OpKind::Rem,
    OpKind::Neg,
    OpKind::Fma,
    OpKind::Max,
    OpKind::Min,
    OpKind::Cmp,
    OpKind::Select,
    OpKind::Bitwise,
    OpKind::Shift,
    OpKind::Cast,
    OpKind::Abs,
    OpKind::Sqrt,
    OpKind::Exp,
    OpKind::Log,
    OpKind::Pow,
    OpKind::Trig,
    OpKind::Round,
    OpKind::OtherMath,
];

/// Whole-computation scalars after the one-hot type and the op counts.
pub const COMP_SCALARS: &[(&str, Kind)] = &[
    ("depth", Kind::Log),
    ("accesses", Kind::Log),
    ("constants", Kind::Log),
    ("invariant_inputs", Kind::Log),
    ("iterations", Kind::Log),
    ("store_elements", Kind::Log),
    ("position", Kind::Log),
];

/// The host the point was measured on (the pass: this machine), as the featurizer's
/// [`super::Host`] sees it: L1 and L2 of one core, the whole L3, in bytes (0: a level sysfs
/// did not report). The same in every computation of a program. The data is measured on
/// several machine kinds (the card's host table) and which schedule wins differs between
/// them (vector width, cache sizes); without these the model averages over the hosts. In the
/// data so far the cache sizes also tell the AVX2 hosts (L2 512 KiB) from the AVX-512 ones,
/// whose ISA the first points did not record. Since layout [`HOST_SINCE`].
pub const HOST_SCALARS: &[(&str, Kind)] =
    &[("host_l1_bytes", Kind::Log), ("host_l2_bytes", Kind::Log), ("host_l3_bytes", Kind::Log)];
pub const HOST_SINCE: u32 = 6;

/// The whole-computation scalars of layout `version`.
pub fn scalars_at(version: u32) -> Vec<(&'static str, Kind)> {
    let mut out = COMP_SCALARS.to_vec();
    if version >= HOST_SINCE {
        out.extend(HOST_SCALARS.iter().copied());
    }
    out
}

pub const LOOP_PART: usize = 0;
pub const LOOP_WIDTH: usize =
    LOOP_BASE.len() + LOOP_PLACEMENT.len() + sections_width(crate::schedule::kinds::FEATURE_SECTIONS)
    + LOOP_WORKING_SET.len()
    + LOOP_STRIDES.len()
    + LOOP_CHAIN.len();
pub const ACCESS_PART: usize = LOOP_PART + MAX_DEPTH * LOOP_WIDTH;
pub const TYPE_PART: usize = ACCESS_PART + MAX_ACCESSES * ACCESS_WIDTH;
pub const OPS_PART: usize = TYPE_PART + ELEM_TYPES.len();
pub const SCALAR_PART: usize = OPS_PART + OP_KINDS.len();
/// Length of a computation vector.
pub const FEATURES: usize = SCALAR_PART + COMP_SCALARS.len() + HOST_SCALARS.len();

/// Offset of a loop field at `level`.
pub fn loop_field(level: usize, name: &str) -> usize {
    LOOP_PART + level * LOOP_WIDTH + index_of(loop_fields(), name)
}

/// Offset of an access head field.
pub fn access_field(access: usize, name: &str) -> usize {
    ACCESS_PART + access * ACCESS_WIDTH + index_of(ACCESS_HEAD, name)
}

/// Offset of an access matrix entry.
pub fn matrix_entry(access: usize, row: usize, col: usize) -> usize {
    ACCESS_PART + access * ACCESS_WIDTH + ACCESS_HEAD.len() + row * MATRIX_COLS + col
}

pub fn scalar_field(name: &str) -> usize {
    match COMP_SCALARS.iter().position(|(n, _)| *n == name) {
        Some(i) => SCALAR_PART + i,
        None => SCALAR_PART + COMP_SCALARS.len() + index_of(HOST_SCALARS, name),
    }
}

fn index_of(fields: &[(&str, Kind)], name: &str) -> usize {
    fields.iter().position(|(n, _)| *n == name).unwrap_or_else(|| panic!("no feature field {name}"))
}

/// Name and kind of every feature of layout `version`, in order.
pub fn fields_at(version: u32) -> Vec<(String, Kind)> {
    let loop_fields = loop_fields_at(version);
    let mut out = Vec::new();
    for level in 0..MAX_DEPTH {
        out.extend(loop_fields.iter().map(|(n, k)| (format!("loop{level}.{n}"), *k)));
    }
    for a in 0..MAX_ACCESSES {
        out.extend(ACCESS_HEAD.iter().map(|(n, k)| (format!("access{a}.{n}"), *k)));
        for r in 0..MAX_DIMS {
            for c in 0..MATRIX_COLS {
                let col = if c == MAX_DEPTH { "const".to_string() } else { format!("l{c}") };
                out.push((format!("access{a}.m{r}.{col}"), Kind::Log));
            }
        }
    }
    out.extend(ELEM_TYPES.iter().map(|t| (format!("type.{}", serde_json::to_value(t).unwrap().as_str().unwrap_or("?")), Kind::Bool)));
    out.extend(OP_KINDS.iter().map(|k| (format!("ops.{}", serde_json::to_value(k).unwrap().as_str().unwrap_or("?")), Kind::Log)));
    out.extend(scalars_at(version).into_iter().map(|(n, k)| (n.to_string(), k)));
    out
}

/// Name and kind of every feature of the current layout, in order.
pub fn fields() -> Vec<(String, Kind)> {
    let out = fields_at(LAYOUT_VERSION);
    debug_assert_eq!(out.len(), FEATURES);
    out
}

/// Where the features of layout `version` are in a current vector (their positions, in
/// that version's order): a model trained on it is given these columns.
pub fn columns_at(version: u32) -> Vec<usize> {
    let at: std::collections::HashMap<String, usize> = fields().into_iter().enumerate().map(|(i, (n, _))| (n, i)).collect();
    fields_at(version).into_iter().map(|(n, _)| at[&n]).collect()
}

/// The kind of every feature, in order (computed once).
pub fn kinds() -> &'static [Kind] {
    static KINDS: std::sync::OnceLock<Vec<Kind>> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| fields().into_iter().map(|(_, k)| k).collect())
}

/// The log transform of non-boolean features.
pub fn log_transform(x: f64) -> f32 {
    // Most fields are zero or small integers (access matrices, counts): those come from a
    // table of the same values (featurizing the search's candidates was mostly ln_1p).
    const SMALL: usize = 256;
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let a = x.abs();
    if a < SMALL as f64 && a.fract() == 0.0 {
        let table = TABLE.get_or_init(|| (0..SMALL).map(|k| (k as f64).ln_1p()).collect());
        return (x.signum() * table[a as usize]) as f32;
    }
    (x.signum() * a.ln_1p()) as f32
}

/// A layout in the machine-readable form the trainer reads (onnx/layout.json).
#[derive(Clone, Debug, Serialize)]
pub struct Spec {
    pub version: u32,
    pub hash: String,
    pub features: usize,
    pub max_depth: usize,
    pub max_accesses: usize,
    pub max_dims: usize,
    pub parts: Vec<(String, usize, usize)>,
    pub fields: Vec<SpecField>,
    /// Inputs of the model, in order, with their shapes (B: candidates, K: computations,
    /// D: MAX_DEPTH levels, S: node slots per level, C: children per node).
    pub inputs: Vec<(String, String)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SpecField {
    pub name: String,
    pub kind: Kind,
}

/// The layout as the trainer reads it.
pub fn spec() -> Spec {
    spec_at(LAYOUT_VERSION)
}

/// Layout `version` (its fields, parts and hash), to recognise a model trained on it.
pub fn spec_at(version: u32) -> Spec {
    let fields: Vec<SpecField> = fields_at(version).into_iter().map(|(name, kind)| SpecField { name, kind }).collect();
    // FNV-1a over the version and every field: a stable fingerprint of the layout.
    let mut h: u64 = 0xcbf29ce484222325;
    let mut feed = |s: &str| {
        for b in s.bytes().chain(std::iter::once(0)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    };
    feed(&version.to_string());
    for f in &fields {
        feed(&f.name);
        feed(if f.kind == Kind::Bool { "b" } else { "l" });
    }
    let access = MAX_DEPTH * loop_fields_at(version).len();
    let types = access + MAX_ACCESSES * ACCESS_WIDTH;
    let ops = types + ELEM_TYPES.len();
    let scalars = ops + OP_KINDS.len();
    let features = scalars + scalars_at(version).len();
    debug_assert_eq!(features, fields.len());
    Spec {
        version,
        hash: format!("{h:016x}"),
        features,
        max_depth: MAX_DEPTH,
        max_accesses: MAX_ACCESSES,
        max_dims: MAX_DIMS,
        parts: vec![
            ("loops".into(), 0, access),
            ("accesses".into(), access, types),
            ("element_type".into(), types, ops),
            ("ops".into(), ops, scalars),
            ("scalars".into(), scalars, features),
        ],
        fields,
        inputs: super::tensors::INPUTS.iter().map(|(n, s)| (n.to_string(), s.to_string())).collect(),
    }
}
