//===- Pack.h - Packing: copy a tile of a buffer into a local one -*- C -*-===//
//
// The C entry of the pack kind (passes/kinds/Pack.cpp), called from
// src/schedule/kinds/pack.rs through the bindings that build.rs generates.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_KINDS_PACK_H
#define AFFINE_AUTOSCHED_KINDS_PACK_H

#include "TransformsFFI.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Before every loop named `name`, copies the part of the function's memref argument
/// `argument` that the loop reads (the bounding box of its loads, for the current
/// iterations of the loops around it) into a local buffer of that box's constant shape,
/// and makes the loop read the buffer; the buffer is allocated just before the loop and
/// freed just after it. MLIR's generateCopyForMemRegion makes the copy. Where every value
/// the loop loads from the copy is used only by arith.mulf with one value defined before
/// the copy, the copy stores those products and the loop uses them (exact: the same
/// operands and flags). With `order` (`orderLength` entries, a permutation of the
/// memref's dimensions; none: the buffer's order), the copy's dimension d is the memref's
/// dimension order[d]: `[1, 0]` copies a matrix's tile transposed, so that a loop moving
/// along its rows reads the copy contiguously.
///
/// Refuses (dependence) a loop that writes the memref: the copy would go stale. Refuses a
/// loop that does not read it; one that touches it other than through affine.load (vector
/// loads: pack before vectorizing; calls, views); one holding an operation with memory
/// effects the analysis cannot see; a box whose size is not a constant (it depends on a
/// loop around or a symbol) or is over the size limit; an argument that is not a memref of
/// identity layout; an order that is not a permutation of its dimensions. Distinct memrefs are taken not to alias, as MLIR's affine dependence
/// analysis does.
int32_t autosched_tx_pack(MlirOperation func, const char *name, int64_t argument,
                          const int64_t *order, int64_t orderLength, AutoschedTxReportFn fn,
                          void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_KINDS_PACK_H
