//! `pack(L0.0, %arg1)`: packing. Before the loop, the part of the function's argument
//! `%arg1` that the loop reads (the bounding box of its loads over the loop's whole run, for
//! the current iterations of the loops around it) is copied into a local buffer, and the
//! loop reads the copy: a tile of a matrix becomes contiguous, with no TLB or cache-set
//! conflicts between its rows (MLIR's affine data copy generation makes the copy; the
//! buffer keeps the order of the dimensions). On a tiled contraction, packing at the first
//! point loop under the tile loops copies one tile of each input per tile iteration. Where
//! the loop only multiplies the copied values by one loop-invariant value (`alpha * A[i][k]`),
//! the copy holds the products, computed bit for bit as the program does (Pack.cpp).
//!
//! Features: per loop level of a computation, how many of its loads read a buffer packed at
//! that level's loop or tile loop, and how many elements those copies hold (their boxes,
//! computed from the access matrices and the loop ranges inside the packed loop).

use super::{Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::{Access, BufferOrigin, Program};
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

/// Arguments past this one are not modeled (the tag is a bit set of argument positions).
const MAX_ARGUMENT: usize = 31;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pack {
    pub target: LoopName,
    /// Position of the memref argument in the function's signature (`%arg<N>`).
    pub argument: usize,
}

impl TransformKind for Pack {
    const NAME: &'static str = "pack";
    /// Pack.cpp copies the box the named loop reads just before it (the buffer and its copy
    /// loops sit beside the loop, in its block).
    const LOCAL: bool = true;
    const FEATURES: &'static [(&'static str, FieldKind)] =
        &[("packed_loads", FieldKind::Log), ("packed_elements", FieldKind::Log)];
    const SINCE_LAYOUT: u32 = 3;
    const WALK_PROBABILITY: f64 = 0.3;
    const STRUCTURAL: bool = false;
    const HAS_COMBINATIONS: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let target = p.loop_name()?;
        p.expect(',', &format!("and the argument to pack after {target}"))?;
        p.expect('%', "before the argument's name (%arg1)")?;
        let at = p.pos;
        let argument = match p.word().strip_prefix("arg").map(str::parse::<usize>) {
            Some(Ok(n)) => n,
            _ => return p.err(at, "expected a function argument as %arg<N> (its position, as mlir-opt prints it)"),
        };
        Ok(Pack { target, argument })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, %arg{}", self.target, self.argument)
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, _names: &mut Names) -> Result<(), String> {
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let (ent, _) = tree.resolve(step, &self.target)?;
        let fail = |reason: String| Err(TreeError { step, reason });
        if self.argument > MAX_ARGUMENT {
            return fail(format!("packing %arg{} (past %arg{MAX_ARGUMENT}) is not modeled", self.argument));
        }
        let bit = 1u32 << self.argument;
        let mask = tree.tag(ent, Stage::Pack).unwrap_or(0);
        if mask & bit != 0 {
            return fail(format!("%arg{} is packed before {} already", self.argument, self.target));
        }
        tree.set_tag(ent, Stage::Pack, mask | bit);
        Ok(())
    }

    fn features(program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        let c = &program.computations[at.comp];
        let (mut loads, mut elements) = (0.0, 0.0);
        for ent in [at.point, at.tile, at.tile2] {
            let (Some(mask), Some(node)) = (tree.tag(ent, Stage::Pack), tree.node_of(ent)) else { continue };
            let ranges = tree.box_ranges(program, at.comp, node);
            for a in &c.loads {
                if argument_of(program, a).is_some_and(|k| k <= MAX_ARGUMENT && mask & (1 << k) != 0) {
                    loads += 1.0;
                    elements += Scheduled::box_of(program, a, &ranges);
                }
            }
        }
        if loads > 0.0 {
            set("packed_loads", loads);
            set("packed_elements", elements);
        }
    }

    /// Every loop below a nest's root that holds loops, with every argument that a
    /// computation inside it reads and none writes.
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        // Not after unrolls (a register tile the Tile stage's lookahead made): the copy's
        // check would weigh every unrolled copy of each access (seconds on a 4x32 tile), and
        // the data's walks, which follow the stage order, never pack an unrolled nest.
        if tree.tags.keys().any(|(_, stage)| *stage == Stage::Unroll) {
            return out;
        }
        for (n, node) in tree.nodes.iter().enumerate() {
            if tree.node_of(node.ent) != Some(n) || node.parent.is_none() || !tree.has_loop_children(n) {
                continue;
            }
            let comps = tree.comps_under(n);
            let mut read: Vec<usize> = comps
                .iter()
                .flat_map(|&c| program.computations[c].loads.iter().filter_map(|a| argument_of(program, a)))
                .filter(|&k| k <= MAX_ARGUMENT)
                .collect();
            read.sort_unstable();
            read.dedup();
            let written: Vec<usize> =
                comps.iter().filter_map(|&c| argument_of(program, &program.computations[c].store)).collect();
            let target = tree.name(program, n);
            for k in read.into_iter().filter(|k| !written.contains(k)) {
                out.push(Pack { target: target.clone(), argument: k });
            }
        }
        out
    }

    /// Two packs of different arguments (a contraction's two inputs), at most 16 pairs.
    fn combinations(_program: &Program, _tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let mut out = Vec::new();
        for (i, a) in legal.iter().enumerate() {
            for b in &legal[i + 1..] {
                if a.argument != b.argument && out.len() < 16 {
                    out.push(vec![a.clone(), b.clone()]);
                }
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_pack(call.func, name.as_ptr(), self.argument as i64, report, ctx) }
    }
}

/// The argument position of an access's buffer, if it is an argument.
pub(super) fn argument_of(program: &Program, a: &Access) -> Option<usize> {
    match program.buffers[a.buffer].origin {
        BufferOrigin::Argument(k) => Some(k),
        BufferOrigin::Local(_) => None,
    }
}
