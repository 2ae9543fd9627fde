//! Size limits shared by the representation, the data generator and (later) the features
//! and the model: defined here once.

/// Deepest loop nest the generator produces and the model accepts (the seeds' maximum).
pub const MAX_DEPTH: usize = 7;
/// Most computations in one generated program.
pub const MAX_COMPUTATIONS: usize = 4;
