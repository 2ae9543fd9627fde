//===- Interchange.h - Loop interchange ---------------------------*- C -*-===//
//
// The C entry of the interchange kind (passes/kinds/Interchange.cpp), called from
// src/schedule/kinds/interchange.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_INTERCHANGE_H
#define AFFINE_AUTOSCHED_KINDS_INTERCHANGE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Reorders every perfectly nested band whose loops carry the `n` names `names` (as a
/// set) so that they run in the order of `names`, outermost first (MLIR's permuteLoops).
///
/// Refuses when the loops do not form such a band, when the band is not rectangular, when
/// a loop of it carries a reduction through iter_args, and
/// (AUTOSCHED_TX_REFUSED_DEPENDENCE) when the new order would make a dependence carried
/// by the band lexicographically negative.
int32_t autosched_tx_interchange(MlirOperation func, const char *const *names, size_t n,
                                 AutoschedTxReportFn fn, void *ctx);

/// The verdicts of autosched_tx_interchange on `func` (unchanged) for `k` orders of the
/// band of the `n` names `names`, its dependences analysed once: order o runs
/// names[orders[o * n + j]] j-th. Returns AUTOSCHED_TX_OK and sets statuses[o] to
/// AUTOSCHED_TX_OK or AUTOSCHED_TX_REFUSED_DEPENDENCE (no reason); or returns the refusal
/// that every order shares (no such band, not rectangular, iter_args), with its reason.
int32_t autosched_tx_interchange_orders(MlirOperation func, const char *const *names, size_t n,
                                        const uint32_t *orders, size_t k, int32_t *statuses,
                                        AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_INTERCHANGE_H
