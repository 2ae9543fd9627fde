//! `fuse(L0, L1, 2)`: fuse the nest rooted at `first` into the next sibling nest rooted at
//! `second`, merging their `depth` outermost loops: `first` is the source, its iterations
//! run inside `second`'s loops, and the fused loops keep `second`'s names.

use super::{Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::{Child, Program};
use crate::schedule::tree::{Ent, Kid, LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fuse {
    pub first: LoopName,
    pub second: LoopName,
    pub depth: usize,
}

/// Outer loops of two adjacent nests with the same constant trip counts.
fn fusable_depth(program: &Program, a: usize, b: usize) -> usize {
    let chain = |root: usize| {
        let mut out = vec![root];
        while let [Child::Loop(c)] = program.loops[out[out.len() - 1]].children.as_slice() {
            out.push(*c);
        }
        out
    };
    let (ca, cb) = (chain(a), chain(b));
    ca.iter()
        .zip(&cb)
        .take_while(|(x, y)| {
            let (x, y) = (&program.loops[**x], &program.loops[**y]);
            x.trip_count.is_some() && x.trip_count == y.trip_count && x.step == y.step
        })
        .count()
}

impl TransformKind for Fuse {
    const NAME: &'static str = "fuse";
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[("fused", FieldKind::Bool)];
    const WALK_PROBABILITY: f64 = 0.35;
    const STRUCTURAL: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        let first = p.loop_name()?;
        p.expect(',', "between the two nests of fuse")?;
        let second = p.loop_name()?;
        p.expect(',', "before the fusion depth")?;
        let depth = p.number("a fusion depth", 1, 16)? as usize;
        Ok(Fuse { first, second, depth })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}, {}", self.first, self.second, self.depth)
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.first, &self.second]
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        // The outer `depth` loops of the first nest merge into the second's.
        let program = names.program;
        let mut current = program.loops.iter().find(|l| l.name == self.first.as_str());
        for _ in 0..self.depth {
            let Some(l) = current else { break };
            names.consume(&l.name, Self::NAME);
            current = l.children.iter().find_map(|c| match c {
                Child::Loop(id) => Some(&program.loops[*id]),
                _ => None,
            });
        }
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let depth = self.depth;
        let (_, a0) = tree.resolve(step, &self.first)?;
        let (_, b0) = tree.resolve(step, &self.second)?;
        let (mut a, mut b) = (vec![a0], vec![b0]);
        while a.len() < depth {
            let (Some(na), Some(nb)) = (tree.first_loop_child(a[a.len() - 1]), tree.first_loop_child(b[b.len() - 1])) else {
                let text = super::Transform::from(self.clone());
                return Err(TreeError { step, reason: format!("{text}: the nests are not {depth} deep") });
            };
            a.push(na);
            b.push(nb);
        }
        for k in 0..depth {
            let skip = a.get(k + 1).copied();
            let mut merged: Vec<Kid> =
                tree.nodes[a[k]].children.iter().copied().filter(|c| Some(*c) != skip.map(Kid::Node)).collect();
            for c in &merged {
                if let Kid::Node(n) = c {
                    tree.nodes[*n].parent = Some(b[k]);
                }
            }
            merged.extend(tree.nodes[b[k]].children.iter().copied());
            tree.nodes[b[k]].children = merged;
            let (ea, eb) = (tree.nodes[a[k]].ent, tree.nodes[b[k]].ent);
            tree.at.remove(&ea);
            // Parts of one distributed loop fused back are the same loop.
            if ea.loop_id != eb.loop_id {
                tree.alias.insert(ea.loop_id, eb.loop_id);
            }
            tree.set_tag(Ent::point(eb.loop_id), Stage::Fuse, 1);
            tree.nodes[a[k]].children.clear();
        }
        tree.roots.retain(|r| *r != a0);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        set("fused", tree.tag(Ent::point(at.live), Stage::Fuse).is_some() as u8 as f64);
    }

    /// Adjacent top-level nests that are still original roots, at every depth their outer
    /// loops agree on.
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for pair in tree.roots.windows(2) {
            let (a, b) = (tree.nodes[pair[0]].ent, tree.nodes[pair[1]].ent);
            // Parts of one distributed loop are not fused back together.
            if a.is_tile()
                || b.is_tile()
                || a.loop_id == b.loop_id
                || program.loops[a.loop_id].parent.is_some()
                || program.loops[b.loop_id].parent.is_some()
            {
                continue;
            }
            for depth in 1..=fusable_depth(program, a.loop_id, b.loop_id) {
                out.push(Fuse { first: tree.name(program, pair[0]), second: tree.name(program, pair[1]), depth });
            }
        }
        out
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let (a, b) = (ffi::cstring(self.first.as_str()), ffi::cstring(self.second.as_str()));
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the names outlive the call.
        unsafe { ffi::autosched_tx_fuse(call.func, a.as_ptr(), b.as_ptr(), self.depth as i64, report, ctx) }
    }
}
