// Options that are malformed or out of range fail the pipeline with an error naming the
// option; nothing is printed as output.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{beam-width=0}))' %s 2>&1 | FileCheck %s --check-prefix=BEAM
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{beam-width=many}))' %s 2>&1 | FileCheck %s --check-prefix=BEAMTEXT
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{max-depth=33}))' %s 2>&1 | FileCheck %s --check-prefix=DEPTH
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{measure-top-k=0}))' %s 2>&1 | FileCheck %s --check-prefix=TOPK
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{evaluator=oracle}))' %s 2>&1 | FileCheck %s --check-prefix=EVAL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{model=%t.missing.onnx}))' %s 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{dump-representation=maybe}))' %s 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{no-such-option=1}))' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{dump-file=/nonexistent-dir/x.jsonl}))' %s 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{report=/nonexistent-dir/x.jsonl}))' %s 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{records=/nonexistent-dir/x.db}))' %s 2>&1 | FileCheck %s --check-prefix=RECORDS
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0,32)"}))' %s 2>&1 | FileCheck %s --check-prefix=SCHED
// In-range values are accepted.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched{beam-width=256 max-depth=0 measure-top-k=64 evaluator=hybrid}))' %s | FileCheck %s --check-prefix=OK

// BEAM: error: affine-autosched: option 'beam-width' must be in [1, 256], got 0
// BEAM-NOT: func.func
// BEAMTEXT: for the --beam-width option: 'many' value invalid for long argument!
// DEPTH: error: affine-autosched: option 'max-depth' must be in [0, 32], got 33
// TOPK: error: affine-autosched: option 'measure-top-k' must be in [1, 64], got 0
// EVAL: error: affine-autosched: option 'evaluator' must be one of model, execution, hybrid, got 'oracle'
// MODEL: error: affine-autosched: option 'model': no model file at '{{.*}}.missing.onnx'
// BOOL: for the --dump-representation option: 'maybe' is invalid value for boolean argument
// UNKNOWN: no such option no-such-option
// DUMP: error: affine-autosched: option 'dump-file': cannot write '/nonexistent-dir/x.jsonl'
// REPORT: error: affine-autosched: option 'report': cannot write '/nonexistent-dir/x.jsonl'
// RECORDS: error: affine-autosched: option 'records': '/nonexistent-dir/x.db': unable to open database file
// SCHED: error: affine-autosched: option 'schedule': schedule:8: expected ':' and a tile size after L0, found ','
// OK: func.func @f

func.func @f(%A: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %A[%i] : memref<8xf32>
  }
  return
}
