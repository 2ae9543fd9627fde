//! `vectorize(L0.0.0:8)`: vectorize an innermost loop with a number of lanes.

use super::{write_pairs, Memo, Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser, VECTOR_WIDTHS};
use crate::transform::ffi::{self, Call};
use std::fmt;

/// The widths the search proposes (and the data generator's walks draw from).
pub const SEARCH_WIDTHS: [u32; 3] = [4, 8, 16];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vectorize {
    pub target: LoopName,
    pub width: u32,
}

impl TransformKind for Vectorize {
    const NAME: &'static str = "vectorize";
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] =
        &[("vectorized", FieldKind::Bool), ("vector_width", FieldKind::Log)];
    const WALK_PROBABILITY: f64 = 0.45;
    const STRUCTURAL: bool = false;
    const HAS_COMBINATIONS: bool = true;
    /// Vectorize.cpp finds the loops by name, checks them and vectorizes them in place (a
    /// hoisted broadcast goes to the front of the loop's own block).
    const LOCAL: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let at = p.pos;
        let (target, width) = p.loop_with("a vector width", 2, 32)?;
        if !VECTOR_WIDTHS.contains(&width) {
            return p.err(at, format!("vector width must be one of {VECTOR_WIDTHS:?}, got {width}"));
        }
        Ok(Vectorize { target, width })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pairs(f, &[(&self.target, self.width)])
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        names.copies_statements = names.copies_statements.or(Some(names.step));
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let (ent, _) = tree.resolve(step, &self.target)?;
        tree.set_tag(ent, Stage::Vectorize, self.width);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        if let Some(w) = tree.tag(at.point, Stage::Vectorize).or(tree.tag(at.tile, Stage::Vectorize)) {
            set("vectorized", 1.0);
            set("vector_width", w as f64);
        }
    }

    /// Every innermost loop at each width.
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for n in tree.innermost() {
            for width in SEARCH_WIDTHS {
                out.push(Vectorize { target: tree.name(program, n), width });
            }
        }
        out
    }

    /// Every legal innermost loop at one width.
    fn combinations(_program: &Program, _tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let mut out = Vec::new();
        for w in SEARCH_WIDTHS {
            let all: Vec<Self> = legal.iter().filter(|t| t.width == w).cloned().collect();
            if all.len() >= 2 {
                out.push(all);
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_vectorize(call.func, name.as_ptr(), self.width as i64, report, ctx) }
    }

    /// The loop's dependences decide every width: analysed once per loop and state for the
    /// search's widths (autosched_tx_vectorize_carried), the verdict for this width given
    /// to the step (the rest of the vectorizer's checks, and the vectorizing, still run).
    fn apply_in_check(&self, call: &mut Call, memo: &mut Memo) -> i32 {
        let Some(known) = self.known(call, memo) else { return self.apply(call) };
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name and verdicts outlive the call.
        unsafe {
            ffi::autosched_tx_vectorize_known(call.func, name.as_ptr(), self.width as i64, known.as_ptr(), known.len(), report, ctx)
        }
    }

    fn apply_checked(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_vectorize_checked(call.func, name.as_ptr(), self.width as i64, report, ctx) }
    }
}

impl Vectorize {
    /// This width's dependence verdicts of the loops named `target` (one per loop), learned
    /// in the state's `memo` for every search width; None for another width, or where the
    /// name has no loop (the step's own check says why).
    fn known(&self, call: &mut Call, memo: &mut Memo) -> Option<Vec<u8>> {
        let k = SEARCH_WIDTHS.iter().position(|w| *w == self.width)?;
        let facts = memo.entry(format!("vectorize {}", self.target)).or_insert_with(|| self.carried(call));
        let facts = facts.as_ref().ok()?;
        Some(facts.chunks(SEARCH_WIDTHS.len()).map(|c| c[k] as u8).collect())
    }

    /// The dependence verdicts of the loops named `target` in `call.func` (unchanged) at
    /// each search width, a row per loop; Err when the name has no loop (the step's own
    /// refusal says so).
    fn carried(&self, call: &mut Call) -> Result<Vec<i64>, (i32, String)> {
        let name = ffi::cstring(self.target.as_str());
        let widths: Vec<i64> = SEARCH_WIDTHS.iter().map(|w| *w as i64).collect();
        let mut capacity = 4;
        loop {
            let mut carried = vec![0u8; capacity * widths.len()];
            let mut loops = 0usize;
            let mut probe = Call::new(call.func);
            let (report, ctx) = probe.report();
            // SAFETY: the clone is live and only read; the buffer holds capacity rows of
            // widths.len() verdicts; everything outlives the call.
            let status = unsafe {
                ffi::autosched_tx_vectorize_carried(
                    call.func,
                    name.as_ptr(),
                    widths.as_ptr(),
                    widths.len(),
                    carried.as_mut_ptr(),
                    capacity,
                    &mut loops,
                    report,
                    ctx,
                )
            };
            if status != ffi::AUTOSCHED_TX_OK as i32 {
                return Err((status, probe.into_reason()));
            }
            if loops <= capacity {
                carried.truncate(loops * widths.len());
                return Ok(carried.into_iter().map(i64::from).collect());
            }
            capacity = loops;
        }
    }
}
