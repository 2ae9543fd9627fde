//! Size limits shared by the representation, the data generator, the features and the
//! model: defined here once. The Python trainer reads them from the layout spec that
//! `autosched featurize` writes (see [`crate::features::layout`]).

/// Deepest loop nest the generator produces and the model accepts (the seeds' maximum).
pub const MAX_DEPTH: usize = 7;
/// Most computations in one generated program (the model itself takes any number).
pub const MAX_COMPUTATIONS: usize = 4;
/// Memory accesses (the store, then the loads) described per computation; more are
/// counted but not described (the seeds' maximum, 21 terms).
pub const MAX_ACCESSES: usize = 21;
/// Buffer ranks described per access matrix; deeper ranks are cut.
pub const MAX_DIMS: usize = 4;
