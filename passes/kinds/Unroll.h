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

/// What autosched_tx_unroll checks before it changes anything (the same status and
/// reason), without changing anything: the search's shortcut.
int32_t autosched_tx_unroll_check(MlirOperation func, const char *name, int64_t factor,
                                  AutoschedTxReportFn fn, void *ctx);

/// The status of autosched_tx_unroll_check for each of `nFactors` factors, into
/// `statuses`, without reasons: the dependences of a jam are analysed once for all of
/// them, and only if the first factor needs them (its preconditions pass); a factor left
/// undecided because the first was refused before that is -1. Changes nothing. Returns
/// AUTOSCHED_TX_OK.
int32_t autosched_tx_unroll_verdicts(MlirOperation func, const char *name,
                                     const int64_t *factors, size_t nFactors,
                                     int32_t *statuses);

/// As autosched_tx_unroll, for a step whose check accepted it on this very function: the
/// jam's dependence analysis is not run again (its preconditions are).
int32_t autosched_tx_unroll_checked(MlirOperation func, const char *name, int64_t factor,
                                    AutoschedTxReportFn fn, void *ctx);

/// Whether unrolling every loop named `name` by `factor` is MLIR's loopUnrollByFactor and
/// nothing more (what upstream's transform.loop.unroll does): each is innermost, has
/// constant bounds and at least `factor` iterations. Changes nothing.
bool autosched_tx_unroll_is_plain(MlirOperation func, const char *name, int64_t factor);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_UNROLL_H
