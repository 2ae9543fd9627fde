//===- Parallelize.h - Loop parallelization -----------------------*- C -*-===//
//
// The C entry of the parallelize kind (passes/kinds/Parallelize.cpp), called from
// src/schedule/kinds/parallelize.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_PARALLELIZE_H
#define AFFINE_AUTOSCHED_KINDS_PARALLELIZE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Turns every loop named `name` into an affine.parallel loop (MLIR's affineParallelize).
///
/// Refuses (AUTOSCHED_TX_REFUSED_DEPENDENCE) a loop that carries a dependence or a
/// reduction through iter_args, and (AUTOSCHED_TX_REFUSED) one holding an operation whose
/// memory effects the dependence analysis cannot see.
int32_t autosched_tx_parallelize(MlirOperation func, const char *name,
                                 AutoschedTxReportFn fn, void *ctx);

/// What autosched_tx_parallelize would decide for `name`, without changing `func`: the
/// same refusals with the same reasons. With `dependences` zero, only what is cheap (the
/// loops exist, none carries a reduction through iter_args): for a caller that knows the
/// dependence verdict already (the search's shortcut, src/search/mod.rs).
int32_t autosched_tx_parallelize_check(MlirOperation func, const char *name,
                                       int32_t dependences,
                                       AutoschedTxReportFn fn, void *ctx);

/// autosched_tx_parallelize for a step already checked on this very function (or proven
/// legal from a checked one): the dependence analysis is not run again.
int32_t autosched_tx_parallelize_checked(MlirOperation func, const char *name,
                                         AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_PARALLELIZE_H
