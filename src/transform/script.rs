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
//! found), and `transform.loop.unroll_and_jam` checks no dependence. The code generation
//! options the function was given (`fp-contract=`, `prefer-vector-width=`) are
//! `transform.autosched.codegen`, where the pass applied them: before the search's steps (it
//! measures the function as it will run), after a `schedule=` option's.

use crate::report::CodegenOptions;
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
    /// The code generation options the function was given, and whether before the steps.
    pub codegen: CodegenOptions,
    pub codegen_first: bool,
    /// The whole schedule as one `transform.autosched.step` op: where a parallelize comes
    /// after unrolls (`transform::replays_step_by_step`).
    pub whole: bool,
}

impl ScriptEntry {
    /// The entry of `schedule` for `func` (before the schedule is applied to it), with the
    /// upstream op of each step that has one.
    pub fn new(func: crate::ir::mlir::Op, function: &str, schedule: &Schedule, note: String) -> ScriptEntry {
        let whole = !super::replays_step_by_step(schedule);
        let upstream = if whole {
            Vec::new()
        } else {
            super::upstream_ops(func, schedule).unwrap_or_else(|e| {
                log::info!("@{function}: no upstream ops in its script: {e}");
                Vec::new()
            })
        };
        ScriptEntry { function: function.into(), schedule: schedule.clone(), note, upstream, codegen: CodegenOptions::default(), codegen_first: true, whole }
    }

    /// The entry with the code generation options the function was given, `first`: before
    /// the schedule's steps (as the pass applies them before a search).
    pub fn with_codegen(mut self, fp_contract: bool, prefer_vector_width: Option<u32>, first: bool) -> ScriptEntry {
        self.codegen = CodegenOptions { fp_contract, prefer_vector_width };
        self.codegen_first = first;
        self
    }

    /// Whether replaying it changes the function.
    fn changes(&self) -> bool {
        !self.schedule.is_identity() || self.codegen != CodegenOptions::default()
    }

    /// The `transform.autosched.codegen` op's attributes (None: no options to give).
    fn codegen_attributes(&self) -> Option<String> {
        let mut attrs = Vec::new();
        if self.codegen.fp_contract {
            attrs.push("fp_contract".to_string());
        }
        if let Some(bits) = self.codegen.prefer_vector_width {
            attrs.push(format!("prefer_vector_width = {bits} : i64"));
        }
        (!attrs.is_empty()).then(|| format!("{{{}}}", attrs.join(", ")))
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
    for e in entries.iter().filter(|e| e.changes()) {
        let _ = writeln!(out, "  // @{}: {}", e.function, e.note);
        let _ = writeln!(
            out,
            "  transform.named_sequence {}(%f0: !transform.any_op {{transform.consumed}}) {{",
            symbol(&format!("autosched_{}", e.function))
        );
        let _ = writeln!(out, "    %f1 = transform.autosched.name_loops %f0 : {ty}");
        let (mut f, mut l) = (1, 0);
        let codegen = |out: &mut String, f: &mut usize| {
            if let Some(attrs) = e.codegen_attributes() {
                let _ = writeln!(out, "    %f{} = transform.autosched.codegen %f{f} {attrs} : {ty}", *f + 1);
                *f += 1;
            }
        };
        if e.codegen_first {
            codegen(&mut out, &mut f);
        }
        if e.whole {
            let _ = writeln!(out, "    %f{} = transform.autosched.step %f{f} {} : {ty}", f + 1, string(&e.schedule.to_string()));
            let _ = writeln!(out, "    // One op: the pass decides a parallelize after unrolls on the loops before them, which");
            let _ = writeln!(out, "    // the steps one at a time cannot do (they may refuse it, and take minutes on a register tile).");
            f += 1;
        }
        for (i, step) in e.schedule.steps.iter().enumerate().filter(|_| !e.whole) {
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
        if !e.codegen_first {
            codegen(&mut out, &mut f);
        }
        let _ = writeln!(out, "    %f{} = transform.autosched.clear_names %f{f} : {ty}", f + 1);
        out.push_str("    transform.yield\n  }\n");
    }
    out.push_str("  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n");
    for (k, e) in entries.iter().enumerate() {
        if !e.changes() {
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

    /// An entry of `schedule` for `function`, no upstream ops, no code generation options.
    fn entry(function: &str, schedule: &str) -> ScriptEntry {
        ScriptEntry {
            function: function.into(),
            schedule: schedule.parse().unwrap(),
            note: "n".into(),
            upstream: Vec::new(),
            codegen: CodegenOptions::default(),
            codegen_first: true,
            whole: false,
        }
    }

    #[test]
    fn names_are_quoted_where_mlir_needs_it() {
        assert_eq!(symbol("gemm_1"), "@gemm_1");
        assert_eq!(symbol("my kernel"), "@\"my kernel\"");
        assert_eq!(symbol("a-b"), "@\"a-b\"");
        assert_eq!(string("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn a_script_has_a_sequence_per_changed_function() {
        let e = entry;
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

    #[test]
    fn code_generation_options_go_where_the_pass_applied_them() {
        let e = |s: &str| entry("k", s);
        // Before a search's steps.
        let text = script(&[e("tile(L0:32)").with_codegen(true, Some(256), true)]);
        assert!(text.contains("%f2 = transform.autosched.codegen %f1 {fp_contract, prefer_vector_width = 256 : i64}"), "{text}");
        assert!(text.contains("%f3 = transform.autosched.step %f2 \"tile(L0:32)\""), "{text}");
        // After a schedule= option's.
        let text = script(&[e("tile(L0:32)").with_codegen(false, Some(512), false)]);
        assert!(text.contains("%f2 = transform.autosched.step %f1"), "{text}");
        assert!(text.contains("%f3 = transform.autosched.codegen %f2 {prefer_vector_width = 512 : i64}"), "{text}");
        assert!(text.contains("%f4 = transform.autosched.clear_names %f3"), "{text}");
        // The original kept, with options given: still a sequence.
        let text = script(&[e("").with_codegen(true, None, true)]);
        assert!(text.contains("transform.autosched.codegen %f1 {fp_contract}"), "{text}");
        assert!(text.contains("transform.include @autosched_k"), "{text}");
        assert!(!script(&[e("")]).contains("@autosched_k"));
    }
}
