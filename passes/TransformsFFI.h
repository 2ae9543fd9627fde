//===- TransformsFFI.h - The transformation layer's C ABI -------*- C++ -*-===//
//
// The status codes, the report callback and the transaction entries, implemented in
// passes/Transforms.cpp and called from src/transform/ through the bindings that build.rs
// generates with bindgen. Each kind's entry is declared in passes/kinds/<Kind>.h (and
// implemented in passes/kinds/<Kind>.cpp). Loops are named by the `autosched.loop` string
// attribute that Rust attaches to a clone of the function.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_TRANSFORMS_FFI_H
#define AFFINE_AUTOSCHED_TRANSFORMS_FFI_H

#include "mlir-c/IR.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// REFUSED: the step is outside what the transformation supports; REFUSED_DEPENDENCE: it
/// would break a dependence (the claim the fuzzer's oracle checks).
enum {
  AUTOSCHED_TX_OK = 0,
  AUTOSCHED_TX_REFUSED = 1,
  AUTOSCHED_TX_FAILED = 2,
  AUTOSCHED_TX_REFUSED_DEPENDENCE = 3
};

/// Receives the reason of a refusal or failure.
typedef void (*AutoschedTxReportFn)(void *ctx, const char *msg, size_t len);

/// A detached deep copy of `func`, to transform as a transaction.
MlirOperation autosched_tx_clone(MlirOperation func);
/// A detached copy of `func` holding only the top-level loops that contain a loop named one
/// of `names` (and every operation of its body that is not a loop without results): what a
/// step touching only those loops is checked on, at the cost of copying them alone. A
/// function of several blocks is copied whole.
MlirOperation autosched_tx_clone_for(MlirOperation func, const char *const *names, size_t n);
/// The positions in the function's body of the loops that autosched_tx_clone_for(func,
/// names, n) keeps, the first `cap` of them written to `positions`; returns how many there
/// are (SIZE_MAX for a function of several blocks, which is copied whole), and sets `loops`
/// to the number of loops the body holds: two calls that keep the same loops make the
/// same copy.
size_t autosched_tx_kept_for(MlirOperation func, const char *const *names, size_t n,
                             size_t *positions, size_t cap, size_t *loops);
/// Destroys a detached operation (a discarded clone).
void autosched_tx_destroy(MlirOperation op);
/// Verifies the (transformed) function.
int32_t autosched_tx_verify(MlirOperation func, AutoschedTxReportFn fn, void *ctx);
/// Moves the clone's body into `original`, drops the name tags, destroys the clone.
void autosched_tx_commit(MlirOperation original, MlirOperation clone);
/// Drops the name tags from a (transformed) clone that is kept as a function of its own.
void autosched_tx_strip_tags(MlirOperation func);
/// Moves the clone's body into `original` with its name tags (a Transform-dialect script
/// applies the next step to them), destroys the clone.
void autosched_tx_commit_tagged(MlirOperation original, MlirOperation clone);

/// Marks every floating-point add, subtract and multiply of `func` `fastmath<contract>`
/// (the pass's fp-contract=true): LLVM may then fuse a multiply into the add or subtract
/// that uses it (one rounding instead of two, as clang's -ffp-contract). Returns how many
/// operations it marked (those already marked are not counted).
int64_t autosched_tx_allow_contraction(MlirOperation func);

/// Whether an operation of `func` carries a fast-math flag that lets LLVM change how a
/// value is rounded (contract, reassoc, arcp, afn or nsz, or `fast`): then a loop nest and
/// its transformed copy, compiled alike, may differ in the last bits.
bool autosched_tx_rounding_may_change(MlirOperation func);

/// Asks LLVM to vectorize `func` (and the OpenMP regions outlined from it) for vectors of
/// `bits` bits: the LLVM function attribute prefer-vector-width, through func.func's
/// `passthrough` attribute, which the lowering to the LLVM dialect carries over (the
/// pass's prefer-vector-width). Replaces a prefer-vector-width the function had.
void autosched_tx_prefer_vector_width(MlirOperation func, int64_t bits);

/// The vector width `func` asks LLVM for: the bits of the prefer-vector-width in its
/// `passthrough` attribute (set by the pass's prefer-vector-width or by the user), or 0
/// where it has none or its value is not a positive integer.
int64_t autosched_tx_preferred_vector_width(MlirOperation func);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_TRANSFORMS_FFI_H
