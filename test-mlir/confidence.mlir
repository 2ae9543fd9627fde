// Model mode's risk dial: `confidence` is the probability, in percent, that the model must
// give a schedule of beating the original by the margin (the low end of its error interval,
// re-read at that level). 90, the default, is the low end of the 80% interval the shipped
// model is calibrated to; 50 is the point estimate, so the remark shows no interval.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %S/gemm.mlir -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{confidence=50}))' %S/gemm.mlir -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=POINT
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{confidence=100}))' %S/gemm.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// A model whose recorded calibration is not a probability is refused, naming the model.
// RUN: %python -c "import onnx, sys; m = onnx.load(sys.argv[1]); [setattr(p, 'value', '1.5') for p in m.metadata_props if p.key == 'coverage']; onnx.save(m, sys.argv[2])" %S/../onnx/model.onnx %t.coverage.onnx
// RUN: not %autosched optimize %S/gemm.mlir --model %t.coverage.onnx 2>&1 | FileCheck %s --check-prefix=COVERAGE
// The command line takes the same dial.
// RUN: %autosched optimize %S/gemm.mlir --confidence 50 -o /dev/null 2>&1 | FileCheck %s --check-prefix=POINT

// DEFAULT: @gemm: applied {{.*}} (predicted speedup {{[0-9.]+}}x [{{[0-9.]+}}x, {{[0-9.]+}}x]; evaluator model
// POINT: @gemm: {{applied .* \(predicted speedup [0-9.]+x; evaluator model|kept the original: no schedule was predicted faster}}
// RANGE: error: affine-autosched: option 'confidence' must be in [50, 99], got 100
// COVERAGE: metadata coverage '1.5' is not a probability
