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

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_PARALLELIZE_H
