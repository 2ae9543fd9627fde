//! `interchange(L0, L0.0.0, L0.0)`: reorder a perfectly nested band; the loops are listed
//! outermost first in their new order.

use super::{permutations, Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::ffi::{c_char, CString};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interchange {
    pub order: Vec<LoopName>,
}

impl TransformKind for Interchange {
    const NAME: &'static str = "interchange";
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[("interchanged", FieldKind::Bool)];
    const WALK_PROBABILITY: f64 = 0.45;
    const STRUCTURAL: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let at = p.pos;
        let order = p.list(|p| p.loop_name())?;
        if order.len() < 2 {
            return p.err(at, "interchange needs at least two loops");
        }
        Ok(Interchange { order })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.order.iter().map(|l| l.to_string()).collect();
        f.write_str(&names.join(", "))
    }

    fn loops(&self) -> Vec<&LoopName> {
        self.order.iter().collect()
    }

    fn rename(&self, _names: &mut Names) -> Result<(), String> {
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let mut found = Vec::new();
        for n in &self.order {
            found.push(tree.resolve(step, n)?);
        }
        let mut slots: Vec<usize> = found.iter().map(|(_, node)| *node).collect();
        slots.sort_by_key(|n| tree.depth(*n));
        for ((ent, old), slot) in found.iter().zip(&slots) {
            if old != slot {
                // The features tag the point loop, also when its tile loop moved.
                tree.set_tag(ent.at_level(0), Stage::Interchange, 1);
            }
            tree.nodes[*slot].ent = *ent;
            tree.at.insert(*ent, *slot);
        }
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        set("interchanged", tree.tag(at.point, Stage::Interchange).is_some() as u8 as f64);
    }

    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for chain in tree.chains() {
            for len in 2..=chain.len() {
                for start in 0..=chain.len() - len {
                    let window = &chain[start..start + len];
                    if !tree.rectangular(program, window) {
                        continue;
                    }
                    // Short windows: every order; longer ones: sink the outermost loop to the
                    // bottom or hoist the innermost to the top (bringing a contiguous
                    // dimension innermost, conv2d's w under c, r, s), not all len! orders.
                    let perms = if len <= 3 {
                        permutations(len)
                    } else {
                        vec![(1..len).chain([0]).collect(), [len - 1].into_iter().chain(0..len - 1).collect()]
                    };
                    for perm in perms.into_iter().filter(|p| p.iter().enumerate().any(|(i, x)| i != *x)) {
                        out.push(Interchange { order: perm.iter().map(|&i| tree.name(program, window[i])).collect() });
                    }
                }
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let names: Vec<CString> = self.order.iter().map(|l| ffi::cstring(l.as_str())).collect();
        let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the names outlive the call.
        unsafe { ffi::autosched_tx_interchange(call.func, ptrs.as_ptr(), ptrs.len(), report, ctx) }
    }
}
