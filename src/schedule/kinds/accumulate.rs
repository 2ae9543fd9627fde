//! `accumulate(L0.0.0)`: register accumulation (scalar replacement across iterations). In
//! the loop, each load-modify-store of one element whose subscripts do not vary in it
//! (C[i][j] in the k loop) becomes an `iter_args` accumulator, loaded once before the loop
//! and stored once after it; unroll-and-jam of the loops around it then keeps a register
//! tile of accumulators (each copy its own), which is what a contraction's inner kernel
//! needs. The representation is unchanged (`ir` reads such a loop as the same reduction).

use super::{Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{Kid, LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Accumulate {
    pub target: LoopName,
}

/// Whether node `n` of the tree is a live point loop holding, directly, a computation that
/// reduces along it (the loops `accumulate` may name).
pub(super) fn reduces_in(program: &Program, tree: &Scheduled, n: usize) -> bool {
    let node = &tree.nodes[n];
    if node.ent.is_tile() || tree.node_of(node.ent) != Some(n) {
        return false;
    }
    node.children.iter().any(|k| match k {
        Kid::Comp(c) => program.computations[*c].reduction_loops.contains(&node.ent.loop_id),
        Kid::Node(_) => false,
    })
}

impl TransformKind for Accumulate {
    const NAME: &'static str = "accumulate";
    /// Accumulate.cpp rewrites the named loop and the accesses inside it.
    const LOCAL: bool = true;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[("accumulated", FieldKind::Bool)];
    const SINCE_LAYOUT: u32 = 2;
    const WALK_PROBABILITY: f64 = 0.4;
    const STRUCTURAL: bool = false;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        Ok(Accumulate { target: p.loop_name()? })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.target)
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, _names: &mut Names) -> Result<(), String> {
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let (ent, _) = tree.resolve(step, &self.target)?;
        if ent.is_tile() {
            return Err(TreeError { step, reason: format!("accumulate({}): a tile-space loop holds no statement", self.target) });
        }
        tree.set_tag(ent, Stage::Accumulate, 1);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        set("accumulated", tree.tag(at.point, Stage::Accumulate).is_some() as u8 as f64);
    }

    /// Loops holding, directly, a computation that reduces along them (its store does not
    /// move in the loop and it loads the element it stores: `ir`'s reduction).
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for n in 0..tree.nodes.len() {
            if reduces_in(program, tree, n) && tree.tag(tree.nodes[n].ent, Stage::Accumulate).is_none() {
                out.push(Accumulate { target: tree.name(program, n) });
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_accumulate(call.func, name.as_ptr(), report, ctx) }
    }
}
