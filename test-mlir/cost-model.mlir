// The cost model in the pass and on the command line: with a schedule, the remark gives the
// shipped model's predicted speedup (onnx/model.onnx, found from the plugin's location);
// a model that cannot be used fails the run before any function is changed, naming the option.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)"}))' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: echo "not a model" > %t.corrupt.onnx
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)" model=%t.corrupt.onnx}))' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CORRUPT
// RUN: %python -c "import onnx, sys; m = onnx.load(sys.argv[1]); [setattr(p, 'value', 'ffffffffffffffff') for p in m.metadata_props if p.key == 'layout_hash']; onnx.save(m, sys.argv[2])" %S/../onnx/model.onnx %t.wrong.onnx
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)" model=%t.wrong.onnx}))' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: %autosched predict %s -s "parallelize(L0)" | FileCheck %s --check-prefix=PREDICT
// RUN: not %autosched predict %s -s "parallelize(L1)" 2>&1 | FileCheck %s --check-prefix=ILLEGAL
// RUN: not %autosched predict %s --model %t.wrong.onnx 2>&1 | FileCheck %s --check-prefix=CLI-LAYOUT

// REMARK: remark: affine-autosched: applied schedule to @scale_rows: parallelize(L0) (predicted speedup {{[0-9]+\.[0-9]+}}x)
// CORRUPT: error: affine-autosched: option 'model': '{{.*}}corrupt.onnx' is not a usable ONNX model
// LAYOUT: error: affine-autosched: option 'model': '{{.*}}wrong.onnx' was trained on feature layout ffffffffffffffff, but this build's layout is
// The run stops before any function is touched: no schedule is applied, nothing is printed.
// CORRUPT-NOT: applied schedule
// CORRUPT-NOT: func.func
// LAYOUT-NOT: applied schedule
// LAYOUT-NOT: func.func
// PREDICT: @scale_rows: predicted speedup {{[0-9]+\.[0-9]+}}x{{( \[[0-9.]+x, [0-9.]+x\] \(([0-9]+ members|the model's error interval)\))?}} for 'parallelize(L0)'
// ILLEGAL: error: @scale_rows: step 1 (parallelize(L1)): no loop named L1
// CLI-LAYOUT: error: '{{.*}}wrong.onnx' was trained on feature layout ffffffffffffffff

func.func @scale_rows(%A: memref<256x512xf32>, %s: memref<256xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 512 {
      %a = affine.load %A[%i, %j] : memref<256x512xf32>
      %f = affine.load %s[%i] : memref<256xf32>
      %p = arith.mulf %a, %f : f32
      affine.store %p, %A[%i, %j] : memref<256x512xf32>
    }
  }
  return
}
