//! `ir`: reads affine loop nests into the program representation of the Tiramisu cost model.
//!
//! Input: a `func.func` (as an MLIR C-API handle). Output: a [`Program`] — the loop tree,
//! the computations with their access matrices and operation counts, reduction loops — and
//! for every nest it cannot describe, the reason. This module only reads IR, and knows
//! nothing of features, schedules or search.

mod build;
pub mod canonical;
mod display;
mod linear;
pub mod mlir;
mod repr;

pub use build::{analyze_function, elem_type, op_kind, Analysis, AnalysisError, NotModeled};
pub use linear::{ceil_div, floor_div, modulo};
pub use repr::*;
