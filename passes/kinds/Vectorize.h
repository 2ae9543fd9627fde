//===- Vectorize.h - Vectorization of an innermost loop -----------*- C -*-===//
//
// The C entry of the vectorize kind (passes/kinds/Vectorize.cpp), called from
// src/schedule/kinds/vectorize.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_VECTORIZE_H
#define AFFINE_AUTOSCHED_KINDS_VECTORIZE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Vectorizes every loop named `name` by `width` lanes (MLIR's super-vectorizer,
/// vectorizeAffineLoopNest); the vector loop keeps the name. A loop whose trip count is not
/// a known multiple of `width` is split first: the vector loop runs the whole groups, a
/// scalar copy after it (same name) the remaining iterations.
///
/// Refuses a loop that is not innermost, has a step other than 1, runs fewer iterations
/// than `width`, or needs a remainder but has a max or min bound; one with
/// an access that does not move by 0 or 1 element per iteration, an induction variable
/// used as a value, a body the vectorizer does not support, or vector values already; and
/// (AUTOSCHED_TX_REFUSED_DEPENDENCE) one carrying a reduction through iter_args or a
/// dependence shorter than `width` iterations from an operation to one before it in the
/// body (or to itself).
int32_t autosched_tx_vectorize(MlirOperation func, const char *name, int64_t width,
                               AutoschedTxReportFn fn, void *ctx);

/// The dependence verdict autosched_tx_vectorize would reach for each of `widths`, for each
/// loop named `name` (pre-order), func unchanged: carried[loop * nWidths + k] is 0 (no
/// dependence stops width k), 1 (one does) or 2 (not decided here: left to the step). The
/// accesses are analysed once for all widths. *nLoops: how many loops carry the name (at
/// most `capacity` are written). Refused when there is none.
int32_t autosched_tx_vectorize_carried(MlirOperation func, const char *name,
                                       const int64_t *widths, size_t nWidths, uint8_t *carried,
                                       size_t capacity, size_t *nLoops, AutoschedTxReportFn fn,
                                       void *ctx);

/// autosched_tx_vectorize with the verdicts autosched_tx_vectorize_carried gave for this
/// width on this function (one per loop): the same status and reason, without analysing
/// the dependences again.
int32_t autosched_tx_vectorize_known(MlirOperation func, const char *name, int64_t width,
                                     const uint8_t *carried, size_t nLoops,
                                     AutoschedTxReportFn fn, void *ctx);

/// As autosched_tx_vectorize, for a step whose check accepted it on this very function:
/// the dependence analysis is not run again (the other checks are).
int32_t autosched_tx_vectorize_checked(MlirOperation func, const char *name, int64_t width,
                                       AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_VECTORIZE_H
