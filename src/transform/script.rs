//! Schedules as Transform-dialect scripts (`emit-transform=PATH`, `autosched
//! export-transform`): one `transform.named_sequence` per function, which
//! `mlir-opt-22 --transform-interpreter` replays on the original IR with the project's
//! transform ops (passes/transform/: `transform.autosched.*`, loaded with
//! `--load-dialect-plugin`). The replayed IR is the pass's output: the ops run the same
//! steps through the same checks.
//!
//! Every step is a `transform.autosched.step`, upstream's loop ops included: upstream's
//! `transform.loop.unroll` runs the clean-up loop of a loop whose bounds depend on an outer
//! loop even where that loop is empty (the pass's unroll clamps and guards it, a miscompile
//! the fuzzer found), and
//! `transform.loop.unroll_and_jam` checks no dependence; a script that used them would not
//! be the schedule the pass checked.

use crate::schedule::Schedule;
use std::fmt::Write;

/// One function's schedule, with a line saying where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptEntry {
    pub function: String,
    pub schedule: Schedule,
    /// One line for the comment above the sequence (the decision's evidence).
    pub note: String,
}

/// `name` as an MLIR symbol reference: bare where MLIR allows, quoted otherwise.
fn symbol(name: &str) -> String {
    let bare = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_$.-".contains(c));
    if bare {
        format!("@{name}")
    } else {
        format!("@{}", string(name))
    }
}

/// `s` as an MLIR string literal.
fn string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The script of `entries` (one per function, in this order): a sequence per function that
/// changes something, and `__transform_main` applying each to the function of its name.
pub fn script(entries: &[ScriptEntry]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// Schedules chosen by affine-autosched (schedule language version {}). Replay:", crate::schedule::LANGUAGE_VERSION);
    let _ = writeln!(out, "//   mlir-opt-22 --load-dialect-plugin=libAffineAutosched.so --load-pass-plugin=libAffineAutosched.so \\");
    let _ = writeln!(out, "//     --transform-preload-library=transform-library-paths=THIS_FILE --transform-interpreter INPUT.mlir");
    out.push_str("module attributes {transform.with_named_sequence} {\n");
    let ty = "(!transform.any_op) -> !transform.any_op";
    for e in entries.iter().filter(|e| !e.schedule.is_identity()) {
        let _ = writeln!(out, "  // @{}: {}", e.function, e.note);
        let _ = writeln!(
            out,
            "  transform.named_sequence {}(%f0: !transform.any_op {{transform.consumed}}) {{",
            symbol(&format!("autosched_{}", e.function))
        );
        let _ = writeln!(out, "    %f1 = transform.autosched.name_loops %f0 : {ty}");
        let mut last = 1;
        for (i, step) in e.schedule.steps.iter().enumerate() {
            let _ = writeln!(out, "    %f{} = transform.autosched.step %f{} {} : {ty}", i + 2, i + 1, string(&step.to_string()));
            last = i + 2;
        }
        let _ = writeln!(out, "    %f{} = transform.autosched.clear_names %f{last} : {ty}", last + 1);
        out.push_str("    transform.yield\n  }\n");
    }
    out.push_str("  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n");
    for (k, e) in entries.iter().enumerate() {
        if e.schedule.is_identity() {
            let _ = writeln!(out, "    // @{}: kept the original ({})", e.function, e.note);
            continue;
        }
        let _ = writeln!(out, "    %func{k} = transform.autosched.match_function {} in %root : {ty}", string(&e.function));
        let _ = writeln!(
            out,
            "    transform.include {} failures(propagate) (%func{k}) : (!transform.any_op) -> ()",
            symbol(&format!("autosched_{}", e.function))
        );
    }
    out.push_str("    transform.yield\n  }\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_where_mlir_needs_it() {
        assert_eq!(symbol("gemm_1"), "@gemm_1");
        assert_eq!(symbol("my kernel"), "@\"my kernel\"");
        assert_eq!(string("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn a_script_has_a_sequence_per_changed_function() {
        let e = |f: &str, s: &str| ScriptEntry { function: f.into(), schedule: s.parse().unwrap(), note: "n".into() };
        let text = script(&[e("a", "tile(L0:32); parallelize(L0.t)"), e("b", "")]);
        assert!(text.contains("transform.named_sequence @autosched_a(%f0"));
        assert!(text.contains("%f3 = transform.autosched.step %f2 \"parallelize(L0.t)\""));
        assert!(text.contains("%f4 = transform.autosched.clear_names %f3"));
        assert!(!text.contains("@autosched_b"));
        assert!(text.contains("// @b: kept the original"));
    }
}
