//! The Rust half of the pass: diagnostics, dump file, option validation.

use affine_autosched::mlir::LoadedModule;
use affine_autosched::options::RawOptions;
use affine_autosched::pass::{self, Severity};

const SOURCE: &str = r#"
func.func @two(%A: memref<16xf32>, %c: i1) {
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i] : memref<16xf32>
    affine.store %a, %A[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    affine.if affine_set<(d0) : (d0 >= 0)>(%i) {
      %a = affine.load %A[%i] : memref<16xf32>
      affine.store %a, %A[%i] : memref<16xf32>
    }
  }
  return
}
"#;

/// The diagnostics of one run, `Err` when the pass failed.
fn run(
    f: affine_autosched::ir::mlir::Op,
    o: &affine_autosched::options::PassOptions,
) -> Result<Vec<pass::Diagnostic>, Vec<pass::Diagnostic>> {
    let mut diags = Vec::new();
    match pass::run_on_function(f, o, &mut |d| diags.push(d)) {
        pass::Outcome::Failed => Err(diags),
        _ => Ok(diags),
    }
}

#[test]
fn remarks_explain_and_dump() {
    let m = LoadedModule::from_source(SOURCE).unwrap();
    let f = m.functions()[0];
    // The defaults search the modeled nest: a remark for the nest it cannot model, one for
    // the decision.
    let quiet = RawOptions::default().validate().unwrap();
    let diags = run(f, &quiet).unwrap();
    assert_eq!(diags.len(), 2, "{diags:?}");
    assert!(diags.iter().all(|d| d.severity == Severity::Remark));
    assert!(diags[0].message.starts_with("affine-autosched: nest not modeled: 'affine.if' at"));
    assert!(diags[1].message.starts_with("affine-autosched: @two: "), "{}", diags[1].message);

    let dir = std::env::temp_dir().join(format!("autosched-pass-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("dump.jsonl");
    let verbose = RawOptions {
        dump_representation: true,
        dump_file: dump.display().to_string(),
        max_depth: 0,
        ..Default::default()
    }
    .validate()
    .unwrap();
    pass::begin_run(&verbose).unwrap();
    let diags = run(f, &verbose).unwrap();
    // Not modeled, the representation, the decision (max-depth=0: the original kept).
    assert_eq!(diags.len(), 3, "{diags:?}");
    assert!(diags[2].message.contains("@two: kept the original"), "{}", diags[2].message);
    let rep = diags.iter().find(|d| d.message.contains("representation of nest 0 of @two")).unwrap();
    let json = rep.message.split_once(": {").map(|(_, j)| format!("{{{j}")).unwrap();
    let report: affine_autosched::ir::NestReport = serde_json::from_str(&json).unwrap();
    assert_eq!(report.loops.len(), 1);
    // begin_run truncates; each function appends one line.
    run(f, &verbose).unwrap();
    let text = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(text.lines().count(), 2);
    pass::begin_run(&verbose).unwrap();
    assert_eq!(std::fs::read_to_string(&dump).unwrap(), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn non_function_is_a_pass_error() {
    let m = LoadedModule::from_source(SOURCE).unwrap();
    let opts = RawOptions::default().validate().unwrap();
    let err = run(m.operation(), &opts).unwrap_err();
    assert_eq!(err[0].severity, Severity::Error);
}
