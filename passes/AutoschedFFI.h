//===- AutoschedFFI.h - The C ABI of the Rust core --------------*- C++ -*-===//
//
// Declarations of the extern "C" functions in src/ffi.rs. Keep the two in sync:
// AutoschedOptions mirrors the #[repr(C)] struct of the same name.
//
//===----------------------------------------------------------------------===//
#ifndef AFFINE_AUTOSCHED_FFI_H
#define AFFINE_AUTOSCHED_FFI_H

#include "mlir-c/IR.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Pass options as parsed by MLIR; strings are NUL-terminated and owned by the caller.
typedef struct {
  bool dump_representation;
  const char *dump_file;
  const char *schedule;
  int64_t beam_width;
  int64_t max_depth;
  const char *model;
  const char *evaluator;
  int64_t measure_top_k;
  int64_t confidence;
  const char *records;
  const char *report;
  const char *emit_transform;
  bool fp_contract;
  int64_t prefer_vector_width;
} AutoschedOptions;

/// Severity values passed to AutoschedEmitFn.
enum { AUTOSCHED_REMARK = 0, AUTOSCHED_WARNING = 1, AUTOSCHED_ERROR = 2 };

/// Emits one diagnostic at `op` (a null op means: no particular operation).
typedef void (*AutoschedEmitFn)(void *ctx, MlirOperation op, int32_t severity,
                                const char *msg, size_t len);

/// Default values of the integer options (one definition, in src/options.rs).
void autosched_default_options(int64_t *beam_width, int64_t *max_depth,
                               int64_t *measure_top_k, int64_t *confidence);

/// Validates the options once per pipeline run; 0 on success, 1 after emitting errors.
int32_t autosched_begin_run(const AutoschedOptions *options,
                            AutoschedEmitFn emit, void *ctx);

/// Results of autosched_run_on_function.
enum { AUTOSCHED_UNCHANGED = 0, AUTOSCHED_FAILED = 1, AUTOSCHED_TRANSFORMED = 2 };

/// Runs the pass on one func.func: AUTOSCHED_UNCHANGED, AUTOSCHED_TRANSFORMED (a schedule
/// was applied), or AUTOSCHED_FAILED after emitting errors (the IR is unchanged).
int32_t autosched_run_on_function(MlirOperation func,
                                  const AutoschedOptions *options,
                                  AutoschedEmitFn emit, void *ctx);

/// Transform-dialect ops (passes/transform/): 0 on success, 1 after emitting errors (the
/// function is unchanged). See src/ffi.rs.
int32_t autosched_transform_name_loops(MlirOperation func, AutoschedEmitFn emit, void *ctx);
int32_t autosched_transform_step(MlirOperation func, const char *schedule,
                                 AutoschedEmitFn emit, void *ctx);
void autosched_transform_clear_names(MlirOperation func);
/// The pass's code generation options on one function (fp_contract: nonzero for
/// fp-contract=true; vector_width: 0, or 128, 256, 512 for prefer-vector-width): 0, or 1 with
/// the IR unchanged (another width; the reason emitted).
int32_t autosched_transform_codegen(MlirOperation func, int32_t fp_contract, int64_t vector_width,
                                    AutoschedEmitFn emit, void *ctx);
/// The pass on one function with `options` in their text form: AUTOSCHED_UNCHANGED,
/// AUTOSCHED_TRANSFORMED or AUTOSCHED_FAILED.
int32_t autosched_transform_optimize(MlirOperation func, const char *options,
                                     AutoschedEmitFn emit, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // AFFINE_AUTOSCHED_FFI_H
