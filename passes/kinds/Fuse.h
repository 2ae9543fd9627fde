//===- Fuse.h - Loop fusion ---------------------------------------*- C -*-===//
//
// The C entry of the fuse kind (passes/kinds/Fuse.cpp), called from
// src/schedule/kinds/fuse.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_FUSE_H
#define AFFINE_AUTOSCHED_KINDS_FUSE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Fuses the nest named `first` into the later sibling nest named `second` at `depth`
/// (MLIR's canFuseLoops and fuseLoops), then erases `first`'s nest: its loops at the
/// fused depths run as the matching iterations of `second`'s.
///
/// Refuses unless there is exactly one loop of each name, both top-level nests of the
/// function with `first` before `second` and only memory-effect-free operations between
/// them; nests holding affine.parallel loops, vector transfers or reductions through
/// iter_args; nests that are not perfectly nested to `depth`, or whose loops at a fused
/// depth differ in constant bounds or step; what canFuseLoops rejects (a broken
/// dependence is AUTOSCHED_TX_REFUSED_DEPENDENCE); and a slice that is not exactly one
/// iteration of `first` per iteration of `second`, or that does not run all of `first`'s
/// iterations.
int32_t autosched_tx_fuse(MlirOperation func, const char *first, const char *second,
                          int64_t depth, AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_FUSE_H
