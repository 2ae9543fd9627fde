//===- Unroll.h - Unrolling and unroll-and-jam --------------------*- C -*-===//
//
// The C entry of the unroll kind (passes/kinds/Unroll.cpp), called from
// src/schedule/kinds/unroll.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_UNROLL_H
#define AFFINE_AUTOSCHED_KINDS_UNROLL_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Unrolls every loop named `name` by `factor`: an innermost loop with MLIR's
/// loopUnrollByFactor, an outer loop by unroll-and-jam (loopUnrollJamByFactor). The
/// clean-up loop keeps the name; for non-constant bounds its lower bound is clamped to
/// the original one and a promoted clean-up body is guarded by the original loop's
/// condition.
///
/// Refuses a loop of fewer iterations than `factor`; one with a max or min bound whose
/// trip count is not a known multiple of `factor`; one carrying a reduction through
/// iter_args whose clean-up loop is not supported. Unroll-and-jam is also refused through
/// a reduction carried by an inner loop, through inner bounds that vary with the loop,
/// through an affine.parallel loop, below an imperfect nest, and
/// (AUTOSCHED_TX_REFUSED_DEPENDENCE) where jamming would reverse a dependence the loop
/// carries.
int32_t autosched_tx_unroll(MlirOperation func, const char *name, int64_t factor,
                            AutoschedTxReportFn fn, void *ctx);

/// Whether unrolling every loop named `name` by `factor` is MLIR's loopUnrollByFactor and
/// nothing more (what upstream's transform.loop.unroll does): each is innermost, has
/// constant bounds and at least `factor` iterations. Changes nothing.
bool autosched_tx_unroll_is_plain(MlirOperation func, const char *name, int64_t factor);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_UNROLL_H
