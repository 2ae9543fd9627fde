// The pass's output of every lit input and of every PolyBench kernel lowers to LLVM IR
// with the pipeline users are told to use (test-mlir/lower-all.sh).
// RUN: bash %S/lower-all.sh %plugin %S %S/../benchmarks/polybench | FileCheck %s
// CHECK-NOT: FAILED
// CHECK: lowered: {{[0-9]+}} inputs, {{[0-9]+}} skipped, failures: 0
