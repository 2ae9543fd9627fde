//! A schedule applied symbolically to the loop tree: where each loop ends up and which
//! transformations tag it, without touching the IR. The features describe the original
//! loops with these tags (thesis Fig. 3.23); only fusion changes the tree's shape (thesis
//! §3.2.2), so the model's tree is this tree without the tile-space loops. Distribution
//! changes it the other way: a loop becomes one copy per child, each an [`Ent`] of its own.
//!
//! What each kind does to the tree is in its file (`kinds/<kind>.rs`, `reshape`); this
//! module holds the tree and the queries the kinds share (chains, innermost loops, names).

use super::kinds::Stage;
use super::{LoopName, Schedule, MAX_TILE_LEVELS};
use crate::ir::{Access, Child, CompId, LoopId, Program};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// A step of the schedule that the symbolic tree cannot follow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("step {step} of the schedule: {reason}")]
pub struct TreeError {
    pub step: usize,
    pub reason: String,
}

/// A loop of the scheduled tree: an original loop (`tile` 0), or a tile-space loop tiling
/// made of it (`tile` 1 for `L0.t`, 2 for `L0.t.t`: tiling the tile loop again);
/// `copy` tells apart the loops distribution made of one loop (0: the loop itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ent {
    pub loop_id: LoopId,
    pub tile: u8,
    pub copy: u32,
}

impl Ent {
    pub fn point(loop_id: LoopId) -> Ent {
        Ent { loop_id, tile: 0, copy: 0 }
    }

    /// Whether this is a tile-space loop (of any level).
    pub fn is_tile(&self) -> bool {
        self.tile > 0
    }

    /// The same loop's tile-space loop of level `level` (0: the point loop).
    pub fn at_level(&self, level: u8) -> Ent {
        Ent { tile: level, ..*self }
    }
}

/// One original loop of a computation as the features see it after the schedule: the loop
/// it now is (`live`, after fusion), its point loop around the computation and that loop's
/// tile-space loops of the first and second level (which may not exist).
#[derive(Clone, Copy, Debug)]
pub struct LoopAt {
    pub live: LoopId,
    pub point: Ent,
    pub tile: Ent,
    pub tile2: Ent,
    /// The computation, and the level of the loop in its original nest (outermost 0).
    pub comp: CompId,
    pub level: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kid {
    Node(usize),
    Comp(CompId),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub ent: Ent,
    pub parent: Option<usize>,
    pub children: Vec<Kid>,
}

/// The tree after the schedule, with the tags the steps left on its loops. The maps keyed by
/// loops hash with FxHash: SipHash on them was a tenth of featurizing (every feature of every
/// loop looks its node and tags up).
#[derive(Clone, Debug)]
pub struct Scheduled {
    pub nodes: Vec<Node>,
    pub roots: Vec<usize>,
    /// Where each live loop is.
    pub at: FxHashMap<Ent, usize>,
    /// Loops of a nest fused into another: the loop they merged into.
    pub alias: FxHashMap<LoopId, LoopId>,
    /// A value per (loop, kind) that a step of that kind left (a tile size, an unroll
    /// factor; 1 for a mark). Read back by the kind's `features`.
    pub tags: FxHashMap<(Ent, Stage), u32>,
    /// Names of the loops distribution made (`copy` k is `copies[k - 1]`), and their loops.
    pub copies: Vec<String>,
    pub(crate) copy_ents: HashMap<String, Ent>,
    by_name: HashMap<String, LoopId>,
}

impl Scheduled {
    pub fn new(program: &Program, schedule: &Schedule) -> Result<Self, TreeError> {
        let mut s = Scheduled {
            nodes: Vec::new(),
            roots: Vec::new(),
            at: FxHashMap::default(),
            alias: FxHashMap::default(),
            tags: FxHashMap::default(),
            copies: Vec::new(),
            copy_ents: HashMap::new(),
            by_name: program.loops.iter().map(|l| (l.name.clone(), l.id)).collect(),
        };
        for nest in &program.nests {
            let root = s.add_subtree(program, nest.root, None);
            s.roots.push(root);
        }
        for (i, step) in schedule.steps.iter().enumerate() {
            step.reshape(&mut s, i + 1)?;
        }
        Ok(s)
    }

    /// How the loops nest, as text: each loop (by original id, distributed copy and tile level) with its
    /// children in order, and computations by id. Schedules that build the same nest by
    /// different steps (`interchange(L0, L0.0.0, L0.0)` and `interchange(L0.0.0, L0.0)`)
    /// have the same nesting.
    pub fn nesting(&self) -> String {
        fn walk(t: &Scheduled, n: usize, out: &mut String) {
            let ent = t.nodes[n].ent;
            out.push_str(&format!("({}", ent.loop_id));
            if ent.copy > 0 {
                out.push_str(&format!("d{}", ent.copy));
            }
            if ent.tile > 0 {
                out.push_str(&format!("t{}", ent.tile));
            }
            for k in &t.nodes[n].children {
                match k {
                    Kid::Node(c) => walk(t, *c, out),
                    Kid::Comp(c) => out.push_str(&format!(" c{c}")),
                }
            }
            out.push(')');
        }
        let mut out = String::new();
        for &r in &self.roots {
            walk(self, r, &mut out);
        }
        out
    }

    fn add_subtree(&mut self, program: &Program, id: LoopId, parent: Option<usize>) -> usize {
        let index = self.nodes.len();
        let ent = Ent::point(id);
        self.nodes.push(Node { ent, parent, children: Vec::new() });
        self.at.insert(ent, index);
        let mut kids = Vec::new();
        for c in &program.loops[id].children {
            kids.push(match c {
                Child::Loop(l) => Kid::Node(self.add_subtree(program, *l, Some(index))),
                Child::Computation(c) => Kid::Comp(*c),
            });
        }
        self.nodes[index].children = kids;
        index
    }

    /// The loop a name denotes now, and its node.
    pub fn resolve(&self, step: usize, name: &LoopName) -> Result<(Ent, usize), TreeError> {
        let mut base = name.as_str();
        let mut tile = 0u8;
        while let Some(b) = base.strip_suffix(".t") {
            base = b;
            tile += 1;
        }
        let bad = |why: &str| TreeError { step, reason: format!("{name}: {why}") };
        let ent = match (self.by_name.get(base), self.copy_ents.get(base)) {
            (Some(id), _) => Ent { loop_id: *id, tile, copy: 0 },
            (None, Some(e)) => Ent { tile, ..*e },
            (None, None) => return Err(bad("no such loop")),
        };
        let node = *self.at.get(&ent).ok_or_else(|| bad("does not exist at this step"))?;
        Ok((ent, node))
    }

    /// The tag a step of kind `stage` left on `ent`.
    pub fn tag(&self, ent: Ent, stage: Stage) -> Option<u32> {
        self.tags.get(&(ent, stage)).copied()
    }

    pub fn set_tag(&mut self, ent: Ent, stage: Stage, value: u32) {
        self.tags.insert((ent, stage), value);
    }

    /// The name of a loop of the tree (`.t` for a tile loop).
    pub fn loop_name(&self, program: &Program, ent: Ent) -> String {
        let base = match ent.copy {
            0 => &program.loops[ent.loop_id].name,
            k => &self.copies[k as usize - 1],
        };
        format!("{base}{}", ".t".repeat(ent.tile as usize))
    }

    /// The loops around a computation, innermost first.
    pub fn enclosing(&self, comp: CompId) -> Vec<Ent> {
        let holder = (0..self.nodes.len()).find(|&n| self.nodes[n].children.contains(&Kid::Comp(comp)));
        let mut out = Vec::new();
        let mut at = holder;
        while let Some(n) = at {
            out.push(self.nodes[n].ent);
            at = self.nodes[n].parent;
        }
        out
    }

    pub fn depth(&self, mut node: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.nodes[node].parent {
            d += 1;
            node = p;
        }
        d
    }

    pub(crate) fn replace_child(&mut self, parent: Option<usize>, old: usize, new: usize) {
        let list = match parent {
            Some(p) => &mut self.nodes[p].children,
            None => {
                for r in self.roots.iter_mut().filter(|r| **r == old) {
                    *r = new;
                }
                return;
            }
        };
        for k in list.iter_mut() {
            if *k == Kid::Node(old) {
                *k = Kid::Node(new);
            }
        }
    }

    pub(crate) fn first_loop_child(&self, node: usize) -> Option<usize> {
        self.nodes[node].children.iter().find_map(|k| match k {
            Kid::Node(n) => Some(*n),
            Kid::Comp(_) => None,
        })
    }

    /// The loop an original loop now is (fusion merges loops).
    pub fn live(&self, id: LoopId) -> LoopId {
        let mut id = id;
        // Bounded: a chain of fusions is never longer than the number of loops.
        for _ in 0..=self.alias.len() {
            match self.alias.get(&id) {
                Some(next) => id = *next,
                None => break,
            }
        }
        id
    }

    pub fn node_of(&self, ent: Ent) -> Option<usize> {
        self.at.get(&ent).copied()
    }

    pub fn has_loop_children(&self, node: usize) -> bool {
        self.nodes[node].children.iter().any(|k| matches!(k, Kid::Node(_)))
    }

    /// The name of node `node` (`.t` for a tile loop).
    pub fn name(&self, program: &Program, node: usize) -> LoopName {
        self.loop_name(program, self.nodes[node].ent).parse().expect("the representation names loops validly")
    }

    /// The node a name denotes now, if it is live.
    pub fn node_named(&self, program: &Program, target: &LoopName) -> Option<usize> {
        (0..self.nodes.len()).find(|&n| self.node_of(self.nodes[n].ent) == Some(n) && self.name(program, n) == *target)
    }

    /// Whether node `inner` is nested (at any depth) in node `outer`.
    pub fn inside(&self, inner: usize, outer: usize) -> bool {
        let mut p = self.nodes[inner].parent;
        while let Some(q) = p {
            if q == outer {
                return true;
            }
            p = self.nodes[q].parent;
        }
        false
    }

    /// Elements in the box of `a` over one run of loop node `target`: per dimension, the span
    /// of its subscript over the ranges the computation's loops take inside the target (a
    /// point loop inside it whose tile loop is outside runs over one tile; loops outside it
    /// are fixed), capped by the buffer's size.
    pub fn box_elements(&self, program: &Program, comp: CompId, a: &Access, target: usize) -> f64 {
        Self::box_of(program, a, &self.box_ranges(program, comp, target))
    }

    /// The range each of `comp`'s loops takes inside one run of loop node `target` (see
    /// [`Scheduled::box_elements`]): the same for all the computation's accesses.
    pub fn box_ranges(&self, program: &Program, comp: CompId, target: usize) -> Vec<f64> {
        let tree = self;
        let c = &program.computations[comp];
        let enclosing = tree.enclosing(comp);
        let within = |node: Option<usize>| node.is_some_and(|n| n == target || tree.inside(n, target));
        c.iterators
            .iter()
            .map(|&orig| {
                let live = tree.live(orig);
                let node = |level: u8| {
                    enclosing.iter().find(|e| e.loop_id == live && e.tile == level).and_then(|e| tree.node_of(*e))
                };
                let extent = program.loops[orig].trip_count.unwrap_or(1).max(1) as f64;
                if !within(node(0)) {
                    return 1.0;
                }
                // Inside the target up to level k, outside from level k + 1: the loop runs over
                // one tile of level k + 1, the product of the tile sizes below it.
                let mut span = 1.0;
                for level in 0..=MAX_TILE_LEVELS {
                    let Some(size) = node(level).and_then(|n| tree.tag(tree.nodes[n].ent, Stage::Tile)) else { return extent };
                    span *= size as f64;
                    if !within(node(level + 1)) {
                        return span.min(extent);
                    }
                }
                extent
            })
            .collect()
    }

    /// Elements in the box of `a` when the computation's loops take `ranges` ([`Scheduled::box_ranges`]).
    pub fn box_of(program: &Program, a: &Access, ranges: &[f64]) -> f64 {
        let shape = &program.buffers[a.buffer].shape;
        a.matrix
            .iter()
            .enumerate()
            .map(|(r, row)| {
                let span: f64 = 1.0 + row.iter().zip(ranges).map(|(m, x)| m.unsigned_abs() as f64 * (x - 1.0)).sum::<f64>();
                shape.get(r).map_or(span, |d| span.min(*d as f64))
            })
            .product()
    }

    /// The computations nested (at any depth) in node `n`, by id.
    pub fn comps_under(&self, n: usize) -> Vec<CompId> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(m) = stack.pop() {
            for k in &self.nodes[m].children {
                match k {
                    Kid::Comp(c) => out.push(*c),
                    Kid::Node(c) => stack.push(*c),
                }
            }
        }
        out.sort();
        out
    }

    /// The perfectly nested chain of loops from `root` down (node indices).
    pub fn chain_from(&self, root: usize) -> Vec<usize> {
        let mut chain = vec![root];
        while let [Kid::Node(n)] = self.nodes[chain[chain.len() - 1]].children.as_slice() {
            chain.push(*n);
        }
        chain
    }

    /// The perfectly nested chain of every nest, outer nests first: one from each top-level
    /// loop, and one from each loop that shares its parent with another loop or a
    /// computation (the sweeps under a time loop, the inner nests of an imperfect nest).
    /// Interchange, tiling and parallelization work on a chain, so inner nests get their own.
    pub fn chains(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(root) = stack.pop() {
            let chain = self.chain_from(root);
            let last = chain[chain.len() - 1];
            out.push(chain);
            let inner = self.nodes[last].children.iter().rev().filter_map(|k| match k {
                Kid::Node(n) => Some(*n),
                Kid::Comp(_) => None,
            });
            stack.extend(inner);
        }
        out
    }

    /// Loops with no loop inside (unrolling and vectorization targets), in tree order.
    pub fn innermost(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            let kids: Vec<usize> = self.nodes[n]
                .children
                .iter()
                .filter_map(|k| match k {
                    Kid::Node(c) => Some(*c),
                    Kid::Comp(_) => None,
                })
                .collect();
            if kids.is_empty() {
                out.push(n);
            }
            stack.extend(kids.into_iter().rev());
        }
        out
    }

    /// The constant trip count of the original loop at node `node` (None for a tile loop).
    pub fn trip_count(&self, program: &Program, node: usize) -> Option<i64> {
        let ent = self.nodes[node].ent;
        (!ent.is_tile()).then(|| program.loops[ent.loop_id].trip_count).flatten()
    }

    /// Whether no loop's bounds in `window` depend on another loop of `window` (original
    /// loops only; tile loops are rectangular).
    pub fn rectangular(&self, program: &Program, window: &[usize]) -> bool {
        let ids: Vec<usize> = window.iter().map(|n| self.nodes[*n].ent.loop_id).collect();
        window.iter().all(|n| {
            let ent = self.nodes[*n].ent;
            if ent.is_tile() {
                return true;
            }
            let l = &program.loops[ent.loop_id];
            !l.bound_loops().any(|of| ids.contains(&of))
        })
    }
}
