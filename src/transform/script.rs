//! Schedules as Transform-dialect scripts (`emit-transform=PATH`, `autosched
//! export-transform`): one `transform.named_sequence` per function, which
//! `mlir-opt-22 --transform-interpreter` replays on the original IR with the project's
//! transform ops (passes/transform/: `transform.autosched.*`, loaded with
//! `--load-dialect-plugin`). The replayed IR is the pass's output: the ops run the same
//! steps through the same checks.
//!
//! A step is upstream's op where its kind knows one that does exactly what the step does
//! at that point ([`crate::schedule::kinds::TransformKind::upstream`]: unrolling an
//! innermost loop with constant bounds is `transform.loop.unroll`, on a handle from
//! `transform.autosched.match_loop`), and `transform.autosched.step` otherwise: upstream's
//! unroll runs the clean-up loop of a loop whose bounds depend on an outer loop even where
//! that loop is empty (the pass's unroll clamps and guards it, a miscompile the fuzzer
//! found), and `transform.loop.unroll_and_jam` checks no dependence.

use crate::schedule::kinds::Upstream;
use crate::schedule::Schedule;
use std::fmt::Write;

/// One function's schedule, with a line saying where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptEntry {
    pub function: String,
    pub schedule: Schedule,
    /// One line for the comment above the sequence (the decision's evidence).
    pub note: String,
    /// Per step, the upstream op that does it (empty: none).
    pub upstream: Vec<Option<Upstream>>,
}

impl ScriptEntry {
    /// The entry of `schedule` for `func` (before the schedule is applied to it), with the
    /// upstream op of each step that has one.
    pub fn new(func: crate::ir::mlir::Op, function: &str, schedule: &Schedule, note: String) -> ScriptEntry {
        let upstream = super::upstream_ops(func, schedule).unwrap_or_else(|e| {
            log::info!("@{function}: no upstream ops in its script: {e}");
            Vec::new()
        });
        ScriptEntry { function: function.into(), schedule: schedule.clone(), note, upstream }
    }
}

/// `name` as an MLIR symbol reference: bare where MLIR allows, quoted otherwise.
fn symbol(name: &str) -> String {
    let bare = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c));
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
        let (mut f, mut l) = (1, 0);
        for (i, step) in e.schedule.steps.iter().enumerate() {
            match e.upstream.get(i).cloned().flatten() {
                Some(u) => {
                    l += 1;
                    let _ = writeln!(out, "    %l{l} = transform.autosched.match_loop {} in %f{f} : {ty}", string(&u.target));
                    let _ = writeln!(out, "    {}", u.op.replace("{loop}", &format!("%l{l}")));
                }
                None => {
                    let _ = writeln!(out, "    %f{} = transform.autosched.step %f{f} {} : {ty}", f + 1, string(&step.to_string()));
                    f += 1;
                }
            }
        }
        let _ = writeln!(out, "    %f{} = transform.autosched.clear_names %f{f} : {ty}", f + 1);
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
        assert_eq!(symbol("a-b"), "@\"a-b\"");
        assert_eq!(string("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn a_script_has_a_sequence_per_changed_function() {
        let e = |f: &str, s: &str| ScriptEntry { function: f.into(), schedule: s.parse().unwrap(), note: "n".into(), upstream: Vec::new() };
        let text = script(&[e("a", "tile(L0:32); parallelize(L0.t)"), e("b", "")]);
        assert!(text.contains("transform.named_sequence @autosched_a(%f0"));
        assert!(text.contains("%f3 = transform.autosched.step %f2 \"parallelize(L0.t)\""));
        assert!(text.contains("%f4 = transform.autosched.clear_names %f3"));
        assert!(!text.contains("@autosched_b"));
        assert!(text.contains("// @b: kept the original"));
        let mut with_upstream = e("c", "tile(L0:32); unroll(L0.0:4)");
        with_upstream.upstream = vec![None, Some(Upstream { target: "L0.0".into(), op: "transform.loop.unroll {loop} {factor = 4 : i64} : !transform.any_op".into() })];
        let text = script(&[with_upstream]);
        assert!(text.contains("%l1 = transform.autosched.match_loop \"L0.0\" in %f2"), "{text}");
        assert!(text.contains("transform.loop.unroll %l1 {factor = 4 : i64} : !transform.any_op"), "{text}");
        assert!(text.contains("%f3 = transform.autosched.clear_names %f2"), "{text}");
    }
}
