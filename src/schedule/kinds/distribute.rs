//! `distribute(L0.0)`: split a loop into one loop per child (loop distribution, or
//! fission), in order, named `L0.0.d0`, `L0.0.d1`, ...; `L0.0` is gone. It comes first in
//! the search: it turns an imperfect nest into nests that later stages can interchange
//! and tile (2mm's `C[i][j] = 0` split from its `k` loop).

use super::{Names, Stage, Transform, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{Ent, Kid, LoopAt, Node, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Distribute {
    pub target: LoopName,
}

impl TransformKind for Distribute {
    const NAME: &'static str = "distribute";
    /// Distribute.cpp splits the named loop into loops in its place.
    const LOCAL: bool = true;
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] = &[];
    const WALK_PROBABILITY: f64 = 0.3;
    const STRUCTURAL: bool = true;
    const HAS_COMBINATIONS: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        Ok(Distribute { target: p.loop_name()? })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.target)
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        // Parts are one per child of the loop tree, which unrolling and vectorization do
        // not describe (they copy or replace statements).
        if let Some(by) = names.copies_statements {
            return Err(format!("distribute must come before unroll and vectorize steps (step {by})"));
        }
        names.consume(self.target.as_str(), Self::NAME);
        names.distributed.insert(self.target.to_string());
        Ok(())
    }

    /// One copy of the loop per child, in order, in its place; each copy keeps the loop's tags.
    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let target = &self.target;
        let (ent, node) = tree.resolve(step, target)?;
        let bad = |why: String| TreeError { step, reason: format!("distribute({target}): {why}") };
        if ent.is_tile() {
            return Err(bad("distributing a tile-space loop is not modeled".into()));
        }
        let kids = tree.nodes[node].children.clone();
        if kids.len() < 2 {
            return Err(bad(format!("{target} holds a single loop or computation: nothing to distribute")));
        }
        let parent = tree.nodes[node].parent;
        let tags: Vec<(Stage, u32)> = tree.tags.iter().filter(|((e, _), _)| *e == ent).map(|((_, s), v)| (*s, *v)).collect();
        tree.at.remove(&ent);
        let mut parts = Vec::new();
        for (k, kid) in kids.iter().enumerate() {
            let name = target.part(k).to_string();
            tree.copies.push(name.clone());
            let e = Ent { loop_id: ent.loop_id, tile: 0, copy: tree.copies.len() as u32 };
            tree.copy_ents.insert(name, e);
            let index = if k == 0 {
                node
            } else {
                tree.nodes.push(Node { ent: e, parent, children: Vec::new() });
                tree.nodes.len() - 1
            };
            tree.nodes[index].ent = e;
            tree.nodes[index].children = vec![*kid];
            if let Kid::Node(n) = kid {
                tree.nodes[*n].parent = Some(index);
            }
            tree.at.insert(e, index);
            for (s, v) in &tags {
                tree.set_tag(e, *s, *v);
            }
            parts.push(index);
        }
        match parent {
            None => {
                if let Some(i) = tree.roots.iter().position(|n| *n == node) {
                    tree.roots.splice(i..=i, parts);
                }
            }
            Some(p) => {
                let list = &mut tree.nodes[p].children;
                if let Some(i) = list.iter().position(|k| *k == Kid::Node(node)) {
                    list.splice(i..=i, parts.into_iter().map(Kid::Node));
                }
            }
        }
        Ok(())
    }

    fn features(_program: &Program, _tree: &Scheduled, _at: &LoopAt, _set: &mut dyn FnMut(&'static str, f64)) {}

    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for (n, node) in tree.nodes.iter().enumerate() {
            let live = tree.node_of(node.ent) == Some(n);
            if live && !node.ent.is_tile() && node.children.len() >= 2 {
                out.push(Distribute { target: tree.name(program, n) });
            }
        }
        out
    }

    /// A legal loop and then the loops around it, one by one up to the top (each now holds
    /// several parts), which leaves perfect nests; and all of them at once.
    fn combinations(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let mut out = Vec::new();
        for t in legal {
            let Some(n) = tree.node_named(program, &t.target) else { continue };
            let chain = outward(tree, n);
            for len in 2..=chain.len() {
                out.push(chain[..len].iter().map(|&m| Distribute { target: tree.name(program, m) }).collect());
            }
        }
        let all = everything(program, tree, legal);
        if all.len() >= 2 && !out.contains(&all) {
            out.push(all);
        }
        out
    }

    /// Every legal distribution at once, taken on to the Tile stage's register tiles of
    /// every contraction band that it leaves, where it leaves several (2mm's two products,
    /// once their initializing statements are split off, are i-j-k bands ready for one).
    /// Distributed alone, such nests run no faster, and the Interchange stage fills the
    /// beam with states that run faster at once but leave no band of that shape; the Tile
    /// stage's own lookahead comes too late for them. (One band is the Tile stage's.) The
    /// tilings are the Tile stage's candidates after the distributions, not yet checked: the
    /// search checks each sequence as a whole.
    fn lookahead(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Transform>> {
        let all = everything(program, tree, legal);
        if all.is_empty() {
            return Vec::new();
        }
        let mut after = tree.clone();
        for (i, d) in all.iter().enumerate() {
            if d.reshape(&mut after, i + 1).is_err() {
                return Vec::new();
            }
        }
        let tilings = super::Tile::candidates(program, &after);
        super::tile::register_tiles(program, &after, &tilings, true)
            .into_iter()
            .map(|seq| all.iter().cloned().map(Transform::Distribute).chain(seq).collect())
            .collect()
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_distribute(call.func, name.as_ptr(), report, ctx) }
    }
}

/// `n` and the loops around it up to the top (or to a tile loop), innermost first.
fn outward(tree: &Scheduled, n: usize) -> Vec<usize> {
    let mut chain = vec![n];
    while let Some(p) = tree.nodes[chain[chain.len() - 1]].parent {
        if tree.nodes[p].ent.is_tile() {
            break;
        }
        chain.push(p);
    }
    chain
}

/// Each legal distribution and the loops around it, all at once, innermost first (so that
/// each loop holds its parts when its turn comes), each loop once.
fn everything(program: &Program, tree: &Scheduled, legal: &[Distribute]) -> Vec<Distribute> {
    let mut all: Vec<usize> = Vec::new();
    for t in legal {
        if let Some(n) = tree.node_named(program, &t.target) {
            all.extend(outward(tree, n));
        }
    }
    all.sort_by_key(|&n| std::cmp::Reverse(tree.depth(n)));
    let mut seen = std::collections::HashSet::new();
    all.retain(|n| seen.insert(*n));
    all.into_iter().map(|n| Distribute { target: tree.name(program, n) }).collect()
}
