// Tuning records (records=PATH): a measuring run records what it measured; a later run on
// this machine applies the best of it with no search and no measurement, whatever its
// evaluator; records of another machine are never applied (they seed a measuring search);
// a database that is not one is an error naming the option.
//
// RUN: rm -f %t.db %t.foreign.db
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{evaluator=hybrid records=%t.db report=%t.first.jsonl}))' \
// RUN:   %S/gemm.mlir -o %t.first.mlir 2> %t.first.remarks
// RUN: FileCheck %s --check-prefix=FIRST < %t.first.remarks
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{evaluator=hybrid records=%t.db report=%t.second.jsonl}))' \
// RUN:   %S/gemm.mlir -o %t.second.mlir 2> %t.second.remarks
// RUN: FileCheck %s --check-prefix=SECOND < %t.second.remarks
// RUN: diff %t.first.mlir %t.second.mlir
// RUN: %python -c "import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d['source'], d['measurements'], d['scored'], d['record']['evaluator'])" %t.second.jsonl \
// RUN:   | FileCheck %s --check-prefix=SECONDJSON
//
// The default evaluator (the model) takes the record too: the tuned code in every later build,
// without loading the cost model (no ONNX Runtime session) when the records decide.
// RUN: env RUST_LOG=affine_autosched::cost_model=debug mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{records=%t.db}))' \
// RUN:   %S/gemm.mlir -o %t.model.mlir 2> %t.model.remarks
// RUN: FileCheck %s --check-prefix=SECOND --implicit-check-not="session ready" < %t.model.remarks
// RUN: diff %t.first.mlir %t.model.mlir
//
// The same records as if measured on another CPU.
// RUN: %autosched records export %t.db -o %t.export.jsonl
// RUN: %python -c "import json,sys; [print(json.dumps(dict(r, machine=dict(r['machine'], cpu='Some Other CPU')))) for r in map(json.loads, open(sys.argv[1]))]" %t.export.jsonl > %t.foreign.jsonl
// RUN: %autosched records import %t.foreign.db %t.foreign.jsonl
// RUN: env RUST_LOG=affine_autosched::cost_model=debug mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{records=%t.foreign.db}))' \
// RUN:   %S/gemm.mlir -o /dev/null 2> %t.foreign.remarks
// RUN: FileCheck %s --check-prefix=FOREIGN < %t.foreign.remarks
// RUN: FileCheck %s --check-prefix=LOADS < %t.foreign.remarks
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{evaluator=hybrid records=%t.foreign.db}))' \
// RUN:   %S/gemm.mlir -o /dev/null 2> %t.seeded.remarks
// RUN: FileCheck %s --check-prefix=SEEDED < %t.seeded.remarks
// RUN: %autosched records show %t.foreign.db | FileCheck %s --check-prefix=SHOW
//
// A vector width the measuring run chose comes back with its schedule: a record of this
// machine (from the export above) whose schedule ran faster with 512-bit vectors, whatever
// this host is and whatever the first run decided.
// RUN: %python -c "import json,sys; r=json.loads(open(sys.argv[1]).readline()); s='distribute(L0.0)'; r.update(schedule=s, speedup=2.0, measured=[dict(schedule=s, speedup=1.9), dict(schedule=s, speedup=2.0, vector_width=512)]); print(json.dumps(r))" %t.export.jsonl > %t.width.jsonl
// RUN: rm -f %t.width.db
// RUN: %autosched records import %t.width.db %t.width.jsonl
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{records=%t.width.db}))' \
// RUN:   %S/gemm.mlir -o %t.width.mlir 2> %t.width.remarks
// RUN: FileCheck %s --check-prefix=WIDTH < %t.width.remarks
// RUN: FileCheck %s --check-prefix=WIDTHIR < %t.width.mlir
//
// RUN: echo garbage > %t.bad.db
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{records=%t.bad.db}))' %S/gemm.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// RUN: echo garbage | diff - %t.bad.db

// FIRST: remark: affine-autosched: @gemm: {{applied|kept the original}}
// FIRST-SAME: evaluator hybrid, {{[0-9]+}} candidates scored, {{[0-9]+}} measured
// FIRST-NOT: from the tuning records

// SECOND: remark: affine-autosched: @gemm: {{applied .*, from the tuning records \(measured speedup|kept the original, from the tuning records}}
// SECOND-SAME: by evaluator hybrid; no search, no measurement)

// SECONDJSON: records 0 0 hybrid

// A function the records do not decide is searched: the model is loaded then.
// LOADS: session ready

// FOREIGN: remark: affine-autosched: the tuning records hold measurements of @gemm from another machine (Some Other CPU, {{.*}}): not applied here
// FOREIGN-NOT: from the tuning records
// FOREIGN: remark: affine-autosched: @gemm: {{applied|kept the original}}
// FOREIGN-SAME: evaluator model

// SEEDED: remark: affine-autosched: the tuning records hold measurements of @gemm from another machine (Some Other CPU, {{.*}}): {{[0-9]+}} of their schedules were measured here among the finalists
// SEEDED: remark: affine-autosched: @gemm: {{applied|kept the original}}
// SEEDED-SAME: evaluator hybrid

// SHOW: 2 function/machine pairs
// SHOW-DAG: @gemm {{.*}} (here)
// SHOW-DAG: @gemm {{[0-9a-f]+ [0-9a-f]+ [0-9.]+x}}

// WIDTH: remark: affine-autosched: @gemm: applied distribute(L0.0) with prefer-vector-width=512, from the tuning records (measured speedup 2.00x
// WIDTHIR: passthrough = {{\[}}["prefer-vector-width", "512"]]

// BAD: error: affine-autosched: option 'records': '{{.*}}bad.db' is not a records database
