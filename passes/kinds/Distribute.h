//===- Distribute.h - Loop distribution ---------------------------*- C -*-===//
//
// The C entry of the distribute kind (passes/kinds/Distribute.cpp), called from
// src/schedule/kinds/distribute.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_DISTRIBUTE_H
#define AFFINE_AUTOSCHED_KINDS_DISTRIBUTE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Splits every loop named `name` into one loop per child (a loop or a store, with the
/// pure operations that feed it), named `name.d0`, `name.d1`, ... in order.
///
/// Refuses a loop carrying a reduction through iter_args, one with a single child, one
/// holding an operation with memory effects other than affine loads and stores, one where
/// a value computed for one part is used by another, and
/// (AUTOSCHED_TX_REFUSED_DEPENDENCE) one where a later part touches at one iteration what
/// an earlier part touches at a later one, one of the two writing. Every copy of the loop
/// is checked before any is changed.
int32_t autosched_tx_distribute(MlirOperation func, const char *name,
                                AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_DISTRIBUTE_H
