// The whole pass: with no options it searches every modeled nest with the shipped model and
// says, in one remark per function, what it chose (or why it kept the original), the
// predicted speedup, the candidates scored and the search time. It composes with the passes
// around it, and its output verifies. The schedules chosen depend on the shipped model, so
// only their form is checked.
//
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched,cse),lower-affine,canonicalize)' \
// RUN:   %S/gemm.mlir 2> %t.gemm.remarks | mlir-opt-22 -o /dev/null
// RUN: FileCheck %s --check-prefix=GEMM < %t.gemm.remarks
// GEMM: remark: affine-autosched: @gemm: applied {{.+}} (predicted speedup {{[0-9.]+}}x{{( \[[0-9.]+x, [0-9.]+x\])?}}; evaluator model, {{[0-9]+}} candidates scored, search {{[0-9.]+}} s)
//
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{beam-width=4 max-depth=4}))' %S/2mm.mlir \
// RUN:   2> %t.2mm.remarks | mlir-opt-22 -o /dev/null
// RUN: FileCheck %s --check-prefix=MM2 < %t.2mm.remarks
// MM2: remark: affine-autosched: @kernel_2mm: {{(applied|kept the original)}}
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{beam-width=4 max-depth=4}))' %S/conv2d.mlir \
// RUN:   2> %t.conv.remarks | mlir-opt-22 -o /dev/null
// RUN: FileCheck %s --check-prefix=CONV < %t.conv.remarks
// CONV: remark: affine-autosched: @conv2d: {{(applied|kept the original)}}
//
// The same decision from the command line, and the same IR.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(affine-autosched))' %S/gemm.mlir -o %t.pass.mlir 2>/dev/null
// RUN: %autosched optimize %S/gemm.mlir -o %t.cli.mlir --report %t.report.jsonl 2>/dev/null
// RUN: diff %t.pass.mlir %t.cli.mlir
// RUN: %python -c "import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d['function'], d['applied'], d['scored'] > 10)" %t.report.jsonl | FileCheck %s --check-prefix=REPORT
// REPORT: gemm True True
//
// Outside the model's domain: a 4-iteration copy is smaller than every program the shipped
// model was trained on, so its predictions are not trusted there; the IR is kept, with the reason.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.tiny.mlir 2> %t.tiny.remarks
// RUN: FileCheck %s --check-prefix=TINY < %t.tiny.remarks
// RUN: mlir-opt-22 %s | diff - %t.tiny.mlir
// TINY: remark: affine-autosched: @tiny: kept the original: the function runs 4 iterations, fewer than any program the model was trained on (at least {{[0-9]+}}): its predictions do not cover it (evaluator=hybrid measures instead)
//
// hybrid: the model's best finalists and the original are compiled, run and checked side by
// side; the fastest measured wins, and only by a clear margin. (Model mode's own choice, when
// it is measured as a finalist of its own and wins, is reported without a predicted figure. On
// a host with AVX-512 the winner may also be taken with 512-bit vectors, which the remark says.)
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{evaluator=hybrid measure-top-k=2 beam-width=4}))' \
// RUN:   %S/gemm.mlir 2> %t.hybrid.remarks | mlir-opt-22 -o /dev/null
// RUN: FileCheck %s --check-prefix=HYBRID < %t.hybrid.remarks
// HYBRID: remark: affine-autosched: @gemm: {{(applied .+ \((predicted speedup [0-9.]+x( \[[0-9.]+x, [0-9.]+x\])?, )?measured speedup [0-9.]+x( with prefer-vector-width=512 \([0-9.]+x at LLVM's default width in the same run\))?; evaluator hybrid, [0-9]+ candidates scored, [0-9]+ measured|kept the original: (no finalist was measured faster|the fastest finalist))}}
// HYBRID-NOT: warning

func.func @tiny(%A: memref<4xf32>, %B: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %a = affine.load %A[%i] : memref<4xf32>
    affine.store %a, %B[%i] : memref<4xf32>
  }
  return
}
