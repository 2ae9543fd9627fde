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
use crate::schedule::{LoopName, ParseError, Parser, Transform};
use crate::transform::ffi::{self, Call};
use std::fmt;

/// Register tiles per accumulating loop that [`register_tile_sequences`] proposes: each
/// costs a check of two unroll-and-jams (15-100 ms).
const LOOKAHEAD_REGISTER_TILES: usize = 3;

/// Every innermost loop of `tree` that can accumulate, taken on to its register tiles
/// ([`super::unroll::register_tile_unrolls`], the [`LOOKAHEAD_REGISTER_TILES`] largest):
/// `accumulate`, then the unroll-and-jams of its rows and columns loops. The Tile stage's
/// lookahead makes register tiles of tiled three-loop bands only; these are the loops as
/// they are (pointwise-conv's k-h-w-c, whose tile is over k and w; conv2d's, whose
/// reduction is three loops deep), proposed at the Interchange stage for the state's own
/// loop order and each legal interchange (the beam keeps the orders that vectorize the
/// innermost loop, not the ones whose reduction is innermost) and at the Accumulate stage.
pub(super) fn register_tile_sequences(program: &Program, tree: &Scheduled) -> Vec<Vec<Transform>> {
    let mut out = Vec::new();
    for n in tree.innermost() {
        if !reduces_in(program, tree, n) || tree.tag(tree.nodes[n].ent, Stage::Accumulate).is_some() {
            continue;
        }
        let target = tree.name(program, n);
        for unrolls in super::unroll::register_tile_unrolls(program, tree, n, LOOKAHEAD_REGISTER_TILES) {
            let mut seq = vec![Transform::Accumulate(Accumulate { target: target.clone() })];
            seq.extend(unrolls.into_iter().map(Transform::Unroll));
            out.push(seq);
        }
    }
    out
}

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

    /// Each legal accumulation of an innermost loop taken on to its register tiles
    /// ([`register_tile_sequences`]): accumulating alone runs no faster, so the beam would
    /// drop it before the Unroll stage jams the loops around it.
    fn lookahead(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Transform>> {
        register_tile_sequences(program, tree).into_iter().filter(|seq| matches!(&seq[0], Transform::Accumulate(a) if legal.contains(a))).collect()
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_accumulate(call.func, name.as_ptr(), report, ctx) }
    }
}
