//! The program representation of the Tiramisu cost model (MLSys 2021, §3; thesis ch. 3):
//! a loop tree whose leaves are computations, each computation described by its enclosing
//! loops, its store, its loads with their access matrices, and counts of its operations.
//!
//! These types are the one definition of the JSON that `dump-representation=true` and
//! `autosched describe` print: what you read is their serde form.

use serde::{Deserialize, Serialize};

/// Bumped whenever the serialized form changes incompatibly.
pub const SCHEMA_VERSION: u32 = 1;

/// Index of a loop in [`Program::loops`]: unique per function, across all its nests.
pub type LoopId = usize;
/// Index of a computation in [`Program::computations`].
pub type CompId = usize;
/// Index of a buffer in [`Program::buffers`].
pub type BufferId = usize;
/// Index of a symbol in [`Program::symbols`].
pub type SymbolId = usize;

/// One function's modeled loop nests. Sibling nests of one function form one program, so
/// that fusion can be weighed against keeping them apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    pub schema_version: u32,
    /// The function's symbol name.
    pub function: String,
    /// Memrefs read or written by the modeled nests, numbered in order of first use.
    pub buffers: Vec<Buffer>,
    /// Index-typed function arguments that appear in loop bounds.
    pub symbols: Vec<Symbol>,
    /// The modeled top-level nests, in program order.
    pub nests: Vec<Nest>,
    /// All loops of all modeled nests, in pre-order; `Nest::root` points into it.
    pub loops: Vec<Loop>,
    /// All computations, in program order (which is their sequential execution order).
    pub computations: Vec<Computation>,
    /// Nests of the function that were left alone, with the reason.
    pub not_modeled: Vec<NotModeledNest>,
}

/// Where a buffer comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferOrigin {
    /// The function's argument at this position.
    Argument(usize),
    /// A `memref.alloc` / `memref.alloca` / `memref.get_global` outside the nests.
    Local(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    pub id: BufferId,
    pub origin: BufferOrigin,
    /// Static sizes, outermost first (rank 0 for a scalar memref).
    pub shape: Vec<i64>,
    pub element_type: ElemType,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub id: SymbolId,
    /// Position of the index argument in the function's signature.
    pub argument: usize,
}

/// Element types a computation can store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    F16,
    Bf16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    Index,
}

impl ElemType {
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::Bf16 | ElemType::F32 | ElemType::F64)
    }

    /// Bytes per element.
    pub fn bytes(self) -> i64 {
        match self {
            ElemType::F16 | ElemType::Bf16 | ElemType::I16 => 2,
            ElemType::F32 | ElemType::I32 => 4,
            ElemType::F64 | ElemType::I64 | ElemType::Index => 8,
            ElemType::I1 | ElemType::I8 => 1,
        }
    }
}

/// A top-level `affine.for` nest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nest {
    /// Index among the function's modeled nests.
    pub index: usize,
    /// Position of the nest's root among all operations of its block, to tell which other
    /// operations (and unmodeled nests) stand between two siblings.
    pub position: usize,
    pub location: String,
    pub root: LoopId,
}

/// One loop bound: `constant + Σ coeff·iv(loop) + Σ coeff·symbol`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    pub constant: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<Term<LoopId>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<Term<SymbolId>>,
}

impl Bound {
    pub fn as_constant(&self) -> Option<i64> {
        (self.loops.is_empty() && self.symbols.is_empty()).then_some(self.constant)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Term<T> {
    pub of: T,
    pub coeff: i64,
}

/// A child of a loop, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Child {
    Loop(LoopId),
    Computation(CompId),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    pub id: LoopId,
    /// Stable name: `L<nest>` for a root, then `.<i>` for the i-th loop child, e.g. `L0.0.1`.
    pub name: String,
    pub nest: usize,
    pub parent: Option<LoopId>,
    /// 0 for the root of a nest.
    pub depth: usize,
    /// Inclusive lower bound: with `lower_max`, the largest of them (a `max` bound map,
    /// as tiling and clean-up loops make).
    pub lower: Bound,
    /// The further results of a `max` lower bound map (empty for one expression).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lower_max: Vec<Bound>,
    /// Exclusive upper bound: with `upper_min`, the smallest of them.
    pub upper: Bound,
    /// The further results of a `min` upper bound map (empty for one expression).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upper_min: Vec<Bound>,
    pub step: i64,
    /// Number of iterations when both bounds are constants.
    pub trip_count: Option<i64>,
    /// True when some computation reduces along this loop.
    pub is_reduction: bool,
    pub children: Vec<Child>,
    pub location: String,
}

impl Loop {
    /// Every expression of the lower bound (the loop starts at their maximum).
    pub fn lowers(&self) -> impl Iterator<Item = &Bound> {
        std::iter::once(&self.lower).chain(self.lower_max.iter())
    }

    /// Every expression of the upper bound (the loop ends before their minimum).
    pub fn uppers(&self) -> impl Iterator<Item = &Bound> {
        std::iter::once(&self.upper).chain(self.upper_min.iter())
    }

    /// The outer loops any bound expression depends on (with repeats).
    pub fn bound_loops(&self) -> impl Iterator<Item = LoopId> + '_ {
        self.lowers().chain(self.uppers()).flat_map(|b| b.loops.iter().map(|t| t.of))
    }

    /// Whether some bound expression depends on an outer loop or a symbol.
    pub fn is_non_rectangular(&self) -> bool {
        self.lowers().chain(self.uppers()).any(|b| b.as_constant().is_none())
    }
}

/// An access `buffer[matrix · (iv_0, …, iv_{d-1}, 1)]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub buffer: BufferId,
    /// One row per memref dimension; one column per enclosing loop of the computation
    /// (outermost first), then the constant column.
    pub matrix: Vec<Vec<i64>>,
}

/// Operation kinds counted in a computation's right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Neg,
    Fma,
    Max,
    Min,
    Cmp,
    Select,
    Bitwise,
    Shift,
    Cast,
    Abs,
    Sqrt,
    Exp,
    Log,
    Pow,
    Trig,
    Round,
    OtherMath,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpCount {
    pub kind: OpKind,
    /// Result type of the counted operations.
    #[serde(rename = "type")]
    pub ty: ElemType,
    pub count: u32,
}

/// One `affine.store` and the expression it stores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Computation {
    pub id: CompId,
    /// `S<id>`.
    pub name: String,
    /// Innermost enclosing loop.
    pub parent: LoopId,
    /// Enclosing loops, outermost first: the columns of every access matrix.
    pub iterators: Vec<LoopId>,
    pub element_type: ElemType,
    pub store: Access,
    /// Loads the stored value depends on, in the order the expression reads them.
    pub loads: Vec<Access>,
    /// Counts by kind and type, sorted.
    pub ops: Vec<OpCount>,
    /// Constants among the expression's leaves.
    pub constants: u32,
    /// Loop-invariant values defined outside the nest (e.g. a scalar argument `alpha`).
    pub invariant_inputs: u32,
    /// Loops in which the stored location is invariant and which read that location.
    pub reduction_loops: Vec<LoopId>,
    pub location: String,
}

/// A nest the pass leaves untouched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotModeledNest {
    pub position: usize,
    pub location: String,
    pub reason: String,
}

impl Program {
    /// Loops of one nest in pre-order.
    pub fn nest_loops(&self, nest: usize) -> impl Iterator<Item = &Loop> {
        self.loops.iter().filter(move |l| l.nest == nest)
    }

    /// Computations of one nest in program order.
    pub fn nest_computations(&self, nest: usize) -> impl Iterator<Item = &Computation> {
        self.computations.iter().filter(move |c| self.loops[c.parent].nest == nest)
    }
}

/// What the pass prints for one nest with `dump-representation=true`: the nest and the
/// loops, computations and buffers it owns, as the same types [`Program`] holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestReport {
    pub schema_version: u32,
    pub function: String,
    pub nest: Nest,
    pub loops: Vec<Loop>,
    pub computations: Vec<Computation>,
    pub buffers: Vec<Buffer>,
    pub symbols: Vec<Symbol>,
}

impl Program {
    /// The report of one nest; ids stay those of the whole program.
    pub fn nest_report(&self, nest: usize) -> NestReport {
        let computations: Vec<Computation> = self.nest_computations(nest).cloned().collect();
        let mut buffer_ids: Vec<BufferId> = computations
            .iter()
            .flat_map(|c| std::iter::once(c.store.buffer).chain(c.loads.iter().map(|a| a.buffer)))
            .collect();
        buffer_ids.sort_unstable();
        buffer_ids.dedup();
        let loops: Vec<Loop> = self.nest_loops(nest).cloned().collect();
        let mut symbol_ids: Vec<SymbolId> = loops
            .iter()
            .flat_map(|l| l.lowers().chain(l.uppers()).flat_map(|b| b.symbols.iter().map(|t| t.of)))
            .collect();
        symbol_ids.sort_unstable();
        symbol_ids.dedup();
        NestReport {
            schema_version: self.schema_version,
            function: self.function.clone(),
            nest: self.nests[nest].clone(),
            loops,
            computations,
            buffers: buffer_ids.iter().map(|b| self.buffers[*b].clone()).collect(),
            symbols: symbol_ids.iter().map(|s| self.symbols[*s].clone()).collect(),
        }
    }
}
