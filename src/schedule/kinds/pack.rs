//! `pack(L0.0, %arg1)`: packing. Before the loop, the part of the function's argument
//! `%arg1` that the loop reads (the bounding box of its loads over the loop's whole run, for
//! the current iterations of the loops around it) is copied into a local buffer, and the
//! loop reads the copy: a tile of a matrix becomes contiguous, with no TLB or cache-set
//! conflicts between its rows (MLIR's affine data copy generation makes the copy). On a
//! tiled contraction, packing at the first point loop under the tile loops copies one tile
//! of each input per tile iteration. Where the loop only multiplies the copied values by one
//! loop-invariant value (`alpha * A[i][k]`), the copy holds the products, computed bit for
//! bit as the program does (Pack.cpp).
//!
//! `pack(L0.0, %arg1, [1, 0])`: the copy's dimensions in another order (the argument's
//! dimension numbers, outermost first): a matrix read along its rows by the loop that moves
//! fastest (PyTorch's `W[o][i]` under a register tile's columns `o`, syrk's `A[j][k]` under
//! `j`) is copied transposed, so that those reads are contiguous and vectorize, as BLIS
//! packs a transposed operand into its micro-panels. The whole argument may be copied so,
//! before a nest (at its outermost loop).
//!
//! Features: per loop level of a computation, how many of its loads read a buffer packed at
//! that level's loop or tile loop, and how many elements those copies hold (their boxes,
//! computed from the access matrices and the loop ranges inside the packed loop); since
//! layout [`REORDERED_SINCE`], how many of those copies are in another order.

use super::{Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::{Access, BufferOrigin, Program};
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

/// Arguments past this one are not modeled: the tag is a bit set of argument positions in
/// its low 16 bits, and of those whose copy is reordered in its high 16.
const MAX_ARGUMENT: usize = 15;
const REORDERED_SHIFT: u32 = 16;

/// The layout version that added the reordered copies' field.
pub const REORDERED_SINCE: u32 = 8;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pack {
    pub target: LoopName,
    /// Position of the memref argument in the function's signature (`%arg<N>`).
    pub argument: usize,
    /// The copy's dimensions as the argument's dimension numbers, outermost first; empty:
    /// the argument's own order (the text form never writes the identity).
    pub order: Vec<usize>,
}

impl Pack {
    /// A copy in the argument's own order.
    pub fn plain(target: LoopName, argument: usize) -> Self {
        Pack { target, argument, order: Vec::new() }
    }
}

impl TransformKind for Pack {
    const NAME: &'static str = "pack";
    /// Pack.cpp copies the box the named loop reads just before it (the buffer and its copy
    /// loops sit beside the loop, in its block).
    const LOCAL: bool = true;
    const FEATURES: &'static [(&'static str, FieldKind)] =
        &[("packed_loads", FieldKind::Log), ("packed_elements", FieldKind::Log)];
    const SINCE_LAYOUT: u32 = 3;
    const LATER_FEATURES: (u32, &'static [(&'static str, FieldKind)]) =
        (REORDERED_SINCE, &[("packed_reordered_loads", FieldKind::Log)]);
    const WALK_PROBABILITY: f64 = 0.3;
    const STRUCTURAL: bool = false;
    const HAS_COMBINATIONS: bool = true;

    /// A reordered copy is described by the later field.
    fn layout_needed(&self) -> u32 {
        if self.order.is_empty() {
            Self::SINCE_LAYOUT
        } else {
            REORDERED_SINCE
        }
    }

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let target = p.loop_name()?;
        p.expect(',', &format!("and the argument to pack after {target}"))?;
        p.expect('%', "before the argument's name (%arg1)")?;
        let at = p.pos;
        let argument = match p.word().strip_prefix("arg").map(str::parse::<usize>) {
            Some(Ok(n)) => n,
            _ => return p.err(at, "expected a function argument as %arg<N> (its position, as mlir-opt prints it)"),
        };
        let mut order = Vec::new();
        if p.peek() == Some(',') {
            p.pos += 1;
            p.expect('[', "before the copy's order of dimensions ([1, 0])")?;
            let at = p.pos;
            order = p.list(|p| p.number("a dimension of the argument", 0, 7).map(|d| d as usize))?;
            p.expect(']', "after the copy's order of dimensions")?;
            let mut sorted = order.clone();
            sorted.sort_unstable();
            if sorted != (0..order.len()).collect::<Vec<_>>() {
                return p.err(at, format!("the copy's order {order:?} is not a permutation of 0..{}", order.len()));
            }
            if order.iter().enumerate().all(|(i, d)| i == *d) {
                order.clear();
            }
        }
        Ok(Pack { target, argument, order })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, %arg{}", self.target, self.argument)?;
        if !self.order.is_empty() {
            let dims: Vec<String> = self.order.iter().map(|d| d.to_string()).collect();
            write!(f, ", [{}]", dims.join(", "))?;
        }
        Ok(())
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
        let reordered = if self.order.is_empty() { 0 } else { bit << REORDERED_SHIFT };
        tree.set_tag(ent, Stage::Pack, mask | bit | reordered);
        Ok(())
    }

    fn features(program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        let c = &program.computations[at.comp];
        let (mut loads, mut elements, mut reordered) = (0.0, 0.0, 0.0);
        for ent in [at.point, at.tile, at.tile2] {
            let (Some(mask), Some(node)) = (tree.tag(ent, Stage::Pack), tree.node_of(ent)) else { continue };
            let ranges = tree.box_ranges(program, at.comp, node);
            for a in &c.loads {
                let Some(k) = argument_of(program, a).filter(|k| *k <= MAX_ARGUMENT && mask & (1 << k) != 0) else { continue };
                loads += 1.0;
                elements += Scheduled::box_of(program, a, &ranges);
                if mask & (1 << (k as u32 + REORDERED_SHIFT)) != 0 {
                    reordered += 1.0;
                }
            }
        }
        if loads > 0.0 {
            set("packed_loads", loads);
            set("packed_elements", elements);
        }
        if reordered > 0.0 {
            set("packed_reordered_loads", reordered);
        }
    }

    /// Every loop below a nest's root that holds loops, with every argument that a
    /// computation inside it reads and none writes; and every loop that holds loops, the
    /// roots too, with such an argument copied in the order [`contiguous_order`] gives.
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        // Not after unrolls (a register tile the Tile stage's lookahead made): the copy's
        // check would weigh every unrolled copy of each access (seconds on a 4x32 tile), and
        // the data's walks, which follow the stage order, never pack an unrolled nest.
        if tree.tags.keys().any(|(_, stage)| *stage == Stage::Unroll) {
            return out;
        }
        for (n, node) in tree.nodes.iter().enumerate() {
            if tree.node_of(node.ent) != Some(n) || !tree.has_loop_children(n) {
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
                // A root's copy in the argument's order is the whole argument as it is.
                if node.parent.is_some() {
                    out.push(Pack::plain(target.clone(), k));
                }
                if let Some(order) = contiguous_order(program, tree, &comps, k) {
                    out.push(Pack { target: target.clone(), argument: k, order });
                }
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
        let order: Vec<i64> = self.order.iter().map(|d| *d as i64).collect();
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name and the order outlive the call.
        unsafe {
            ffi::autosched_tx_pack(call.func, name.as_ptr(), self.argument as i64, order.as_ptr(), order.len() as i64, report, ctx)
        }
    }
}

/// The argument position of an access's buffer, if it is an argument.
pub(super) fn argument_of(program: &Program, a: &Access) -> Option<usize> {
    match program.buffers[a.buffer].origin {
        BufferOrigin::Argument(k) => Some(k),
        BufferOrigin::Local(_) => None,
    }
}

/// The dimension of `a`'s buffer that moves along the loop at matrix column `column`, when
/// exactly one does.
pub(crate) fn moving_dimension(a: &Access, column: usize) -> Option<usize> {
    let mut moving = a.matrix.iter().enumerate().filter(|(_, row)| row.get(column).is_some_and(|m| *m != 0));
    let (d, _) = moving.next()?;
    moving.next().is_none().then_some(d)
}

/// An order for a copy of argument `k` that the computations `comps` read contiguously
/// along their innermost loops where they read it across rows: the dimension that moves
/// along the innermost loop moved last, the others kept in order (syrk's `A[j][k]` under
/// `j` becomes `[k][j]`). None when no load of `k` moves along its innermost loop in a
/// dimension other than the last, when the loads disagree on the dimension, or when a load
/// reads the argument contiguously already (the order would take it off).
pub(crate) fn contiguous_order(program: &Program, tree: &Scheduled, comps: &[usize], k: usize) -> Option<Vec<usize>> {
    let mut wanted: Option<(usize, usize)> = None;
    for &c in comps {
        let comp = &program.computations[c];
        let Some(inner) = tree.enclosing(c).first().map(|e| e.loop_id) else { continue };
        let Some(column) = comp.iterators.iter().position(|l| tree.live(*l) == inner) else { continue };
        for a in comp.loads.iter().filter(|a| argument_of(program, a) == Some(k)) {
            let rank = a.matrix.len();
            match moving_dimension(a, column) {
                Some(d) if d + 1 == rank => return None,
                Some(d) if wanted.is_none_or(|w| w == (d, rank)) => wanted = Some((d, rank)),
                Some(_) => return None,
                None => {}
            }
        }
    }
    let (d, rank) = wanted?;
    order_moving_last(rank, d)
}

/// The order that moves dimension `d` of a rank-`rank` buffer last (None when it is).
pub(crate) fn order_moving_last(rank: usize, d: usize) -> Option<Vec<usize>> {
    (d + 1 < rank).then(|| (0..rank).filter(|x| *x != d).chain([d]).collect())
}
