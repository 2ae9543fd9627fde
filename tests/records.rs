//! The tuning records: the canonical hash, the machine key, concurrency, bad databases,
//! merging and the decision a lookup stands for.

use affine_autosched::ir::canonical::function_hash;
use affine_autosched::machine::{self, Fingerprint};
use affine_autosched::mlir::LoadedModule;
use affine_autosched::records::{Lookup, Measurement, Record, RecordsError, Store};
use affine_autosched::schedule::LANGUAGE_VERSION;
use affine_autosched::search::{Source, MIN_MEASURED_GAIN};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("records");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn hash_of(text: &str) -> String {
    let path = scratch(&format!("hash-{:x}.mlir", text.len() * 31 + text.bytes().map(|b| b as usize).sum::<usize>()));
    std::fs::write(&path, text).unwrap();
    let m = LoadedModule::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let funcs = m.functions();
    assert_eq!(funcs.len(), 1);
    function_hash(funcs[0])
}

const KERNEL: &str = r#"
func.func @scale(%out: memref<64x64xf32>, %in: memref<64x64xf32>, %k: f32) attributes {llvm.emit_c_interface, autosched.tag = 1 : i64} {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %in[%i, %j] : memref<64x64xf32>
      %w = arith.mulf %v, %k : f32
      affine.store %w, %out[%j, %i] : memref<64x64xf32>
    }
  }
  return
}
"#;

#[test]
fn the_hash_ignores_names_formatting_attribute_order_and_the_symbol() {
    let base = hash_of(KERNEL);
    assert_eq!(base.len(), 64);
    // Other value names, other whitespace and line breaks, another symbol name, the
    // attributes in the other order, and a location.
    let renamed = r#"
func.func @other_name(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %scale: f32) attributes {autosched.tag = 1 : i64, llvm.emit_c_interface} {
  affine.for %row = 0 to 64 { affine.for %col = 0 to 64 {
      %x = affine.load %b[%row, %col] : memref<64x64xf32> loc("somewhere.c":3:4)
      %y = arith.mulf %x, %scale : f32
      affine.store %y, %a[%col, %row] : memref<64x64xf32>
  } }
  return
}
"#;
    assert_eq!(hash_of(renamed), base);
    // What the function computes changes the hash: another extent, another operation,
    // another access.
    assert_ne!(hash_of(&KERNEL.replace("%j = 0 to 64", "%j = 0 to 63")), base);
    assert_ne!(hash_of(&KERNEL.replace("arith.mulf", "arith.addf")), base);
    assert_ne!(hash_of(&KERNEL.replace("%out[%j, %i]", "%out[%i, %j]")), base);
}

fn other_machine() -> Fingerprint {
    let mut m = machine::fingerprint().clone();
    m.cpu = format!("{} (another one)", m.cpu);
    m
}

fn record(hash: &str, schedule: &str, speedup: f64, machine: Fingerprint, at: i64) -> Record {
    Record {
        function_hash: hash.into(),
        function: "f".into(),
        threads: machine.cores,
        machine,
        language_version: LANGUAGE_VERSION,
        model_version: Some("0123456789abcdef".into()),
        evaluator: "hybrid".into(),
        schedule: schedule.into(),
        speedup,
        original_seconds: Some(0.01),
        measured: vec![Measurement { schedule: schedule.into(), speedup, vector_width: None }],
        measured_at: at,
    }
}

#[test]
fn only_this_machines_records_are_applied_and_the_best_one_wins() {
    let path = scratch("lookup.db");
    let mut store = Store::open(&path).unwrap();
    let here = machine::fingerprint().clone();
    store.insert(&[
        record("a1", "tile(L0:32)", 1.5, here.clone(), 100),
        record("a1", "parallelize(L0)", 2.5, here.clone(), 200),
        record("a1", "unroll(L0:4)", 9.0, other_machine(), 300),
        record("a2", "unroll(L0:4)", 3.0, other_machine(), 300),
    ])
    .unwrap();
    let l = store.lookup("a1", &here).unwrap();
    assert_eq!(l.best.as_ref().unwrap().schedule, "parallelize(L0)");
    assert_eq!(l.foreign.len(), 1);
    let d = l.decision(MIN_MEASURED_GAIN).unwrap();
    assert_eq!(d.schedule.to_string(), "parallelize(L0)");
    assert_eq!(d.measured, Some(2.5));
    assert!(matches!(d.source, Source::Records(_)));

    // A function known only from another machine: nothing applied, its schedules seed.
    let l = store.lookup("a2", &here).unwrap();
    assert!(l.best.is_none() && l.decision(MIN_MEASURED_GAIN).is_none());
    assert_eq!(l.seeds(3).iter().map(|s| s.to_string()).collect::<Vec<_>>(), ["unroll(L0:4)"]);

    // Another schedule language version is not applied either.
    let mut old = record("a3", "tile(L0:32)", 2.0, here.clone(), 100);
    old.language_version = LANGUAGE_VERSION + 1;
    store.insert(&[old]).unwrap();
    assert!(store.lookup("a3", &here).unwrap().best.is_none());

    // A record measured with fewer threads than the machine has is not this pass's setting.
    if here.cores > 1 {
        let mut one = record("a4", "tile(L0:32)", 2.0, here.clone(), 100);
        one.threads = 1;
        store.insert(&[one]).unwrap();
        assert!(store.lookup("a4", &here).unwrap().best.is_none());
    }
}

#[test]
fn a_schedule_counts_with_its_latest_measurement_and_unreadable_ones_are_skipped() {
    let path = scratch("latest.db");
    let mut store = Store::open(&path).unwrap();
    let here = machine::fingerprint().clone();
    store.insert(&[
        // A lucky first figure, measured again lower: the second measurement counts.
        record("d1", "tile(L0:32)", 3.0, here.clone(), 100),
        record("d1", "tile(L0:32)", 1.1, here.clone(), 300),
        record("d1", "parallelize(L0)", 1.8, here.clone(), 200),
        // A kind this build does not know (a newer build's record).
        record("d1", "teleport(L0)", 9.0, here.clone(), 400),
    ])
    .unwrap();
    let l = store.lookup("d1", &here).unwrap();
    assert_eq!(l.best.as_ref().unwrap().schedule, "parallelize(L0)");
    // Records are checked before they are stored.
    let mut nan = record("d2", "tile(L0:32)", f64::NAN, here.clone(), 1);
    assert!(store.insert(std::slice::from_ref(&nan)).unwrap_err().to_string().contains("finite positive"));
    nan.speedup = 2.0;
    nan.function_hash = "not hex".into();
    assert!(store.insert(&[nan]).unwrap_err().to_string().contains("not hexadecimal"));
    // Reading a database that is not there is an error, not a new empty one.
    let missing = scratch("missing.db");
    assert!(Store::open_existing(&missing).is_err());
    assert!(!missing.exists());
}

#[test]
fn a_read_only_database_is_read() {
    let path = scratch("read-only.db");
    let here = machine::fingerprint().clone();
    Store::open(&path).unwrap().insert(&[record("e1", "tile(L0:32)", 2.0, here.clone(), 1)]).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    // Root may write anyway; then the database is simply writable.
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.lookup("e1", &here).unwrap().best.unwrap().schedule, "tile(L0:32)");
    if s.read_only() {
        assert!(s.insert(&[record("e2", "tile(L0:32)", 2.0, here.clone(), 2)]).is_err());
    }
}

#[test]
fn a_record_that_beat_nothing_keeps_the_original() {
    let path = scratch("keep.db");
    let mut store = Store::open(&path).unwrap();
    let here = machine::fingerprint().clone();
    store.insert(&[record("0c", "", 1.0, here.clone(), 1), record("0c", "tile(L0:8)", 1.01, here.clone(), 2)]).unwrap();
    let d = store.lookup("0c", &here).unwrap().decision(MIN_MEASURED_GAIN).unwrap();
    assert!(d.schedule.is_identity());
    assert!(d.kept.unwrap().contains("tile(L0:8)"));
    assert!(Lookup::default().decision(MIN_MEASURED_GAIN).is_none());
}

#[test]
fn a_vector_width_chosen_by_measurement_is_stored_and_applied_with_its_schedule() {
    // A hybrid decision whose schedule ran faster with 512-bit vectors: its record keeps the
    // width (an entry of its measured list, no new column), a lookup gives it back with the
    // schedule's figure at the default width, and the decision says so.
    let path = scratch("width.db");
    let mut store = Store::open(&path).unwrap();
    let here = machine::fingerprint().clone();
    let schedule: affine_autosched::schedule::Schedule = "tile(L0:32); parallelize(L0.t)".parse().unwrap();
    let mut d = affine_autosched::search::Decision::without_search(schedule.clone(), Source::Search);
    d.finalists = vec![(schedule.clone(), 2.0), ("parallelize(L0)".parse().unwrap(), 1.5)];
    d.measured = Some(2.4);
    d.vector_width = Some(affine_autosched::search::WiderVectors { bits: 512, speedup: 2.4, default_speedup: 2.1 });
    let cfg = affine_autosched::search::OptimizeConfig::new(
        affine_autosched::search::SearchConfig { beam_width: 4, max_depth: 6 },
        affine_autosched::options::Evaluator::Hybrid,
        4,
    );
    let r = Record::of_decision("0d", "f", &d, &cfg, None).unwrap();
    assert_eq!(r.speedup, 2.4);
    assert_eq!(r.measured.iter().filter(|m| m.vector_width == Some(512)).count(), 1, "{:?}", r.measured);
    store.insert(&[r]).unwrap();
    let back = store.lookup("0d", &here).unwrap().decision(MIN_MEASURED_GAIN).unwrap();
    assert_eq!(back.schedule, schedule);
    let w = back.vector_width.unwrap();
    assert_eq!((w.bits, w.speedup, w.default_speedup), (512, 2.4, 2.0));
    assert!(back.summary("f", affine_autosched::options::Evaluator::Hybrid).contains("with prefer-vector-width=512"));
    // A record without one applies no width; its JSON has no such field.
    store.insert(&[record("0e", "tile(L0:8)", 1.5, here.clone(), 1)]).unwrap();
    assert!(store.lookup("0e", &here).unwrap().decision(MIN_MEASURED_GAIN).unwrap().vector_width.is_none());
    assert!(!serde_json::to_string(&record("0e", "tile(L0:8)", 1.5, here, 1)).unwrap().contains("vector_width"));
}

#[test]
fn bad_databases_are_refused_by_name() {
    let here = machine::fingerprint().clone();
    // Not SQLite at all.
    let garbage = scratch("garbage.db");
    std::fs::write(&garbage, vec![0x5a; 8192]).unwrap();
    let e = Store::open(&garbage).err().expect("garbage opened");
    assert!(matches!(e, RecordsError::NotRecords { .. }), "{e}");
    assert!(e.to_string().contains("garbage.db"), "{e}");
    // Untouched.
    assert_eq!(std::fs::read(&garbage).unwrap(), vec![0x5a; 8192]);

    // SQLite, but someone else's.
    let foreign = scratch("foreign.db");
    {
        let c = rusqlite_connection(&foreign);
        c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);").unwrap();
    }
    let e = Store::open(&foreign).err().expect("a foreign database opened");
    assert!(matches!(e, RecordsError::NotRecords { .. }), "{e}");

    // Ours, of another format version.
    let future = scratch("future.db");
    drop(Store::open(&future).unwrap());
    rusqlite_connection(&future).pragma_update(None, "user_version", 99).unwrap();
    let e = Store::open(&future).err().expect("a future format opened");
    assert!(matches!(e, RecordsError::Version { found: 99, .. }), "{e}");

    // Ours, damaged: pages overwritten past the header.
    let damaged = scratch("damaged.db");
    {
        let mut s = Store::open(&damaged).unwrap();
        let many: Vec<Record> = (0..400).map(|i| record(&format!("{i:04x}"), "tile(L0:32)", 2.0, here.clone(), i)).collect();
        s.insert(&many).unwrap();
    }
    let mut bytes = std::fs::read(&damaged).unwrap();
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    for b in &mut bytes[4096 + 100..3 * 4096] {
        *b = 0xff;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    let broken = Store::open(&damaged).and_then(|s| s.all().map(|_| ()));
    let e = broken.err().expect("a damaged database read");
    assert!(matches!(e, RecordsError::Corrupt { .. } | RecordsError::NotRecords { .. }), "{e}");
}

fn rusqlite_connection(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

#[test]
fn writers_on_threads_share_one_database() {
    let path = scratch("threads.db");
    drop(Store::open(&path).unwrap());
    let here = machine::fingerprint().clone();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (path, here) = (path.clone(), here.clone());
            scope.spawn(move || {
                let mut s = Store::open(&path).unwrap();
                for i in 0..25 {
                    s.insert(&[record(&format!("{t:02x}{i:04x}"), "tile(L0:32)", 2.0, here.clone(), i)]).unwrap();
                    // Readers alongside the writers.
                    assert!(s.lookup(&format!("{t:02x}{i:04x}"), &here).unwrap().best.is_some());
                }
            });
        }
    });
    assert_eq!(Store::open(&path).unwrap().all().unwrap().len(), 100);
}

#[test]
fn writers_in_processes_share_one_database() {
    let db = scratch("processes.db");
    let here = machine::fingerprint().clone();
    let files: Vec<PathBuf> = (0..4)
        .map(|p| {
            let f = scratch(&format!("process-{p}.jsonl"));
            let lines: Vec<String> = (0..25)
                .map(|i| serde_json::to_string(&record(&format!("{p:02x}{i:04x}"), "tile(L0:32)", 2.0, here.clone(), i)).unwrap())
                .collect();
            std::fs::write(&f, lines.join("\n") + "\n").unwrap();
            f
        })
        .collect();
    // Four processes create the same new database and write to it at once.
    let children: Vec<std::process::Child> = files
        .iter()
        .map(|f| {
            std::process::Command::new(env!("CARGO_BIN_EXE_autosched"))
                .args(["records", "import"])
                .arg(&db)
                .arg(f)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(Store::open(&db).unwrap().all().unwrap().len(), 100);
}

#[test]
fn merging_and_importing_are_idempotent_and_exports_are_stable() {
    let here = machine::fingerprint().clone();
    let (a, b) = (scratch("merge-a.db"), scratch("merge-b.db"));
    Store::open(&a).unwrap().insert(&[record("b1", "tile(L0:32)", 2.0, here.clone(), 1), record("b2", "", 1.0, here.clone(), 2)]).unwrap();
    Store::open(&b).unwrap().insert(&[record("b1", "tile(L0:32)", 2.0, here.clone(), 1), record("b3", "unroll(L0:2)", 1.2, other_machine(), 3)]).unwrap();
    let mut sa = Store::open(&a).unwrap();
    assert_eq!(sa.merge_from(&b).unwrap(), (2, 1));
    assert_eq!(sa.merge_from(&b).unwrap(), (2, 0));
    assert_eq!(sa.all().unwrap().len(), 3);

    let mut first = Vec::new();
    sa.export_jsonl(&mut first).unwrap();
    let jsonl = scratch("merge.jsonl");
    std::fs::write(&jsonl, &first).unwrap();
    let c = scratch("merge-c.db");
    let mut sc = Store::open(&c).unwrap();
    assert_eq!(sc.import_jsonl(&jsonl).unwrap(), (3, 3));
    assert_eq!(sc.import_jsonl(&jsonl).unwrap(), (3, 0));
    let mut second = Vec::new();
    sc.export_jsonl(&mut second).unwrap();
    assert_eq!(String::from_utf8(first).unwrap(), String::from_utf8(second).unwrap());
    assert_eq!(sc.all().unwrap(), sa.all().unwrap());

    // A bad line names its file and line.
    std::fs::write(&jsonl, "{\"function_hash\": 1}\n").unwrap();
    let e = sc.import_jsonl(&jsonl).unwrap_err().to_string();
    assert!(e.contains("merge.jsonl:1"), "{e}");
}
