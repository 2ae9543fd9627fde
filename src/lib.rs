//! affine-autosched: a learned loop-nest optimizer for MLIR's affine dialect.
//!
//! Data flows one way (see ARCHITECTURE.md): [`ir`] reads affine nests into the program
//! representation; later stages featurize it, search schedules and rewrite the IR. [`pass`]
//! is what the mlir-opt plugin runs per function; [`ffi`] is its C ABI; [`mlir`] parses
//! files for the command line and the tests.

pub mod adapt;
pub mod cost_model;
pub mod datagen;
pub mod features;
pub mod ffi;
pub mod fuzz;
pub mod ir;
pub mod limits;
pub mod machine;
pub mod measure;
pub mod mlir;
pub mod options;
pub mod pass;
pub mod records;
pub mod report;
pub mod schedule;
pub mod search;
pub mod transform;
pub mod tune;
