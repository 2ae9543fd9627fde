//===- Accumulate.h - Register accumulation (scalar replacement) --*- C -*-===//
//
// The C entry of the accumulate kind (passes/kinds/Accumulate.cpp), called from
// src/schedule/kinds/accumulate.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_ACCUMULATE_H
#define AFFINE_AUTOSCHED_KINDS_ACCUMULATE_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// In every loop named `name`, each load-modify-store of one memref element whose
/// subscripts do not vary in the loop (C[i][j] in the k loop: a load and a store of the
/// same element, directly in the loop's body, the load first) becomes an iter_args
/// accumulator: loaded once before the loop, carried as a value, stored once after it.
/// Unroll-and-jam of the loops around it then keeps a register tile of accumulators.
///
/// Refuses a loop that may not run for some iterations of the loops around it (the
/// accumulator is loaded and stored whether or not the loop runs); one with no such pair;
/// one where anything else in the loop touches the memref of a pair (another load or store
/// of it, a vector transfer, a call: its element would be read or written behind the
/// accumulator); and one holding an operation with
/// memory effects the analysis cannot see. Distinct memrefs are taken not to alias, as
/// MLIR's affine dependence analysis does.
int32_t autosched_tx_accumulate(MlirOperation func, const char *name,
                                AutoschedTxReportFn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_ACCUMULATE_H
