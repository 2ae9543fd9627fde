// A module of 20 functions, run with mlir-opt's multi-threading on: every function is
// analysed (one remark each, in whatever order the threads finish), the dump file gets one
// whole JSON line per function, and the IR comes out unchanged.
// RUN: mlir-opt-22 %s -o %t.before
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-disable-threading=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{dump-representation=true dump-file=%t.jsonl max-depth=0}))' %s \
// RUN:   -o %t.after 2> %t.remarks
// RUN: diff %t.before %t.after
// RUN: grep -c "remark: affine-autosched: representation of nest 0 of @kernel_" %t.remarks | FileCheck %s --check-prefix=COUNT
// RUN: %python -c "import json,sys; ps=[json.loads(l) for l in open(sys.argv[1])]; print(len(ps), len({p['function'] for p in ps}), sum(len(p['loops']) for p in ps))" %t.jsonl | FileCheck %s --check-prefix=JSONL
// The same, single-threaded, gives the same dump once sorted.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{dump-file=%t.serial.jsonl max-depth=0}))' %s -o /dev/null
// RUN: sort %t.jsonl > %t.a && sort %t.serial.jsonl > %t.b && diff %t.a %t.b
// The search on all 20 functions at once (thread-safety): the same IR as single-threaded
// (the search is deterministic), one decision remark per function, and the output verifies.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-disable-threading=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.par.mlir 2> %t.par.remarks
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched))' %s -o %t.ser.mlir 2> /dev/null
// RUN: diff %t.par.mlir %t.ser.mlir
// RUN: mlir-opt-22 %t.par.mlir -o /dev/null
// RUN: grep -cE "remark: affine-autosched: @kernel_[0-9]+: (applied|kept the original)" %t.par.remarks | FileCheck %s --check-prefix=COUNT

// COUNT: 20
// 20 programs, 20 distinct functions, 2 loops each.
// JSONL: 20 20 40


func.func @kernel_0(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%j, %i] : memref<64x64xf32>
      %b = affine.load %B[%i, %j] : memref<64x64xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

func.func @kernel_1(%A: memref<72x72xf32>, %B: memref<72x72xf32>) {
  affine.for %i = 0 to 72 {
    affine.for %j = 0 to 72 {
      %a = affine.load %A[%j, %i] : memref<72x72xf32>
      %b = affine.load %B[%i, %j] : memref<72x72xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<72x72xf32>
    }
  }
  return
}

func.func @kernel_2(%A: memref<80x80xf32>, %B: memref<80x80xf32>) {
  affine.for %i = 0 to 80 {
    affine.for %j = 0 to 80 {
      %a = affine.load %A[%j, %i] : memref<80x80xf32>
      %b = affine.load %B[%i, %j] : memref<80x80xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<80x80xf32>
    }
  }
  return
}

func.func @kernel_3(%A: memref<88x88xf32>, %B: memref<88x88xf32>) {
  affine.for %i = 0 to 88 {
    affine.for %j = 0 to 88 {
      %a = affine.load %A[%j, %i] : memref<88x88xf32>
      %b = affine.load %B[%i, %j] : memref<88x88xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<88x88xf32>
    }
  }
  return
}

func.func @kernel_4(%A: memref<96x96xf32>, %B: memref<96x96xf32>) {
  affine.for %i = 0 to 96 {
    affine.for %j = 0 to 96 {
      %a = affine.load %A[%j, %i] : memref<96x96xf32>
      %b = affine.load %B[%i, %j] : memref<96x96xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<96x96xf32>
    }
  }
  return
}

func.func @kernel_5(%A: memref<104x104xf32>, %B: memref<104x104xf32>) {
  affine.for %i = 0 to 104 {
    affine.for %j = 0 to 104 {
      %a = affine.load %A[%j, %i] : memref<104x104xf32>
      %b = affine.load %B[%i, %j] : memref<104x104xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<104x104xf32>
    }
  }
  return
}

func.func @kernel_6(%A: memref<112x112xf32>, %B: memref<112x112xf32>) {
  affine.for %i = 0 to 112 {
    affine.for %j = 0 to 112 {
      %a = affine.load %A[%j, %i] : memref<112x112xf32>
      %b = affine.load %B[%i, %j] : memref<112x112xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<112x112xf32>
    }
  }
  return
}

func.func @kernel_7(%A: memref<120x120xf32>, %B: memref<120x120xf32>) {
  affine.for %i = 0 to 120 {
    affine.for %j = 0 to 120 {
      %a = affine.load %A[%j, %i] : memref<120x120xf32>
      %b = affine.load %B[%i, %j] : memref<120x120xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<120x120xf32>
    }
  }
  return
}

func.func @kernel_8(%A: memref<128x128xf32>, %B: memref<128x128xf32>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%j, %i] : memref<128x128xf32>
      %b = affine.load %B[%i, %j] : memref<128x128xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<128x128xf32>
    }
  }
  return
}

func.func @kernel_9(%A: memref<136x136xf32>, %B: memref<136x136xf32>) {
  affine.for %i = 0 to 136 {
    affine.for %j = 0 to 136 {
      %a = affine.load %A[%j, %i] : memref<136x136xf32>
      %b = affine.load %B[%i, %j] : memref<136x136xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<136x136xf32>
    }
  }
  return
}

func.func @kernel_10(%A: memref<144x144xf32>, %B: memref<144x144xf32>) {
  affine.for %i = 0 to 144 {
    affine.for %j = 0 to 144 {
      %a = affine.load %A[%j, %i] : memref<144x144xf32>
      %b = affine.load %B[%i, %j] : memref<144x144xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<144x144xf32>
    }
  }
  return
}

func.func @kernel_11(%A: memref<152x152xf32>, %B: memref<152x152xf32>) {
  affine.for %i = 0 to 152 {
    affine.for %j = 0 to 152 {
      %a = affine.load %A[%j, %i] : memref<152x152xf32>
      %b = affine.load %B[%i, %j] : memref<152x152xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<152x152xf32>
    }
  }
  return
}

func.func @kernel_12(%A: memref<160x160xf32>, %B: memref<160x160xf32>) {
  affine.for %i = 0 to 160 {
    affine.for %j = 0 to 160 {
      %a = affine.load %A[%j, %i] : memref<160x160xf32>
      %b = affine.load %B[%i, %j] : memref<160x160xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<160x160xf32>
    }
  }
  return
}

func.func @kernel_13(%A: memref<168x168xf32>, %B: memref<168x168xf32>) {
  affine.for %i = 0 to 168 {
    affine.for %j = 0 to 168 {
      %a = affine.load %A[%j, %i] : memref<168x168xf32>
      %b = affine.load %B[%i, %j] : memref<168x168xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<168x168xf32>
    }
  }
  return
}

func.func @kernel_14(%A: memref<176x176xf32>, %B: memref<176x176xf32>) {
  affine.for %i = 0 to 176 {
    affine.for %j = 0 to 176 {
      %a = affine.load %A[%j, %i] : memref<176x176xf32>
      %b = affine.load %B[%i, %j] : memref<176x176xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<176x176xf32>
    }
  }
  return
}

func.func @kernel_15(%A: memref<184x184xf32>, %B: memref<184x184xf32>) {
  affine.for %i = 0 to 184 {
    affine.for %j = 0 to 184 {
      %a = affine.load %A[%j, %i] : memref<184x184xf32>
      %b = affine.load %B[%i, %j] : memref<184x184xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<184x184xf32>
    }
  }
  return
}

func.func @kernel_16(%A: memref<192x192xf32>, %B: memref<192x192xf32>) {
  affine.for %i = 0 to 192 {
    affine.for %j = 0 to 192 {
      %a = affine.load %A[%j, %i] : memref<192x192xf32>
      %b = affine.load %B[%i, %j] : memref<192x192xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<192x192xf32>
    }
  }
  return
}

func.func @kernel_17(%A: memref<200x200xf32>, %B: memref<200x200xf32>) {
  affine.for %i = 0 to 200 {
    affine.for %j = 0 to 200 {
      %a = affine.load %A[%j, %i] : memref<200x200xf32>
      %b = affine.load %B[%i, %j] : memref<200x200xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<200x200xf32>
    }
  }
  return
}

func.func @kernel_18(%A: memref<208x208xf32>, %B: memref<208x208xf32>) {
  affine.for %i = 0 to 208 {
    affine.for %j = 0 to 208 {
      %a = affine.load %A[%j, %i] : memref<208x208xf32>
      %b = affine.load %B[%i, %j] : memref<208x208xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<208x208xf32>
    }
  }
  return
}

func.func @kernel_19(%A: memref<216x216xf32>, %B: memref<216x216xf32>) {
  affine.for %i = 0 to 216 {
    affine.for %j = 0 to 216 {
      %a = affine.load %A[%j, %i] : memref<216x216xf32>
      %b = affine.load %B[%i, %j] : memref<216x216xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<216x216xf32>
    }
  }
  return
}
