//! A schedule applied symbolically to the loop tree: where each loop ends up and which
//! transformations tag it, without touching the IR. The features describe the original
//! loops with these tags (thesis Fig. 3.23); only fusion changes the tree's shape (thesis
//! §3.2.2), so the model's tree is this tree without the tile-space loops. Distribution
//! changes it the other way: a loop becomes one copy per child, each an [`Ent`] of its own.

use super::FeatureError;
use crate::ir::{Child, CompId, LoopId, Program};
use crate::schedule::{LoopName, Schedule, Transform};
use std::collections::{HashMap, HashSet};

/// A loop of the scheduled tree: an original loop, or the tile-space loop tiling made of it;
/// `copy` tells apart the loops distribution made of one loop (0: the loop itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ent {
    pub loop_id: LoopId,
    pub tile: bool,
    pub copy: u32,
}

impl Ent {
    pub fn point(loop_id: LoopId) -> Ent {
        Ent { loop_id, tile: false, copy: 0 }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Tags {
    pub tile_size: Option<u32>,
    pub unroll: Option<u32>,
    pub parallel: bool,
    pub vector_width: Option<u32>,
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

/// The tree after the schedule, with the tags of every loop.
#[derive(Clone, Debug)]
pub struct Scheduled {
    pub nodes: Vec<Node>,
    pub roots: Vec<usize>,
    /// Where each live loop is.
    pub at: HashMap<Ent, usize>,
    /// Loops of a nest fused into another: the loop they merged into.
    pub alias: HashMap<LoopId, LoopId>,
    pub tags: HashMap<Ent, Tags>,
    pub fused: HashSet<LoopId>,
    pub interchanged: HashSet<Ent>,
    /// Names of the loops distribution made (`copy` k is `copies[k - 1]`), and their loops.
    pub copies: Vec<String>,
    copy_ents: HashMap<String, Ent>,
}

impl Scheduled {
    pub fn new(program: &Program, schedule: &Schedule) -> Result<Self, FeatureError> {
        let mut s = Scheduled {
            nodes: Vec::new(),
            roots: Vec::new(),
            at: HashMap::new(),
            alias: HashMap::new(),
            tags: HashMap::new(),
            fused: HashSet::new(),
            interchanged: HashSet::new(),
            copies: Vec::new(),
            copy_ents: HashMap::new(),
        };
        for nest in &program.nests {
            let root = s.add_subtree(program, nest.root, None);
            s.roots.push(root);
        }
        let by_name: HashMap<&str, LoopId> = program.loops.iter().map(|l| (l.name.as_str(), l.id)).collect();
        for (i, step) in schedule.steps.iter().enumerate() {
            s.apply(&by_name, i + 1, step)?;
        }
        Ok(s)
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

    /// The loop a name denotes now.
    fn resolve(&self, by_name: &HashMap<&str, LoopId>, step: usize, name: &LoopName) -> Result<(Ent, usize), FeatureError> {
        let s = name.as_str();
        let (base, tile) = match s.strip_suffix(".t") {
            Some(b) => (b, true),
            None => (s, false),
        };
        let bad = |why: &str| FeatureError::Schedule { step, reason: format!("{name}: {why}") };
        let ent = match (by_name.get(base), self.copy_ents.get(base)) {
            (Some(id), _) => Ent { loop_id: *id, tile, copy: 0 },
            (None, Some(e)) => Ent { tile, ..*e },
            (None, None) => return Err(bad("no such loop")),
        };
        let node = *self.at.get(&ent).ok_or_else(|| bad("does not exist at this step"))?;
        Ok((ent, node))
    }

    /// The name of a loop of the tree (`.t` for a tile loop).
    pub fn loop_name(&self, program: &Program, ent: Ent) -> String {
        let base = match ent.copy {
            0 => &program.loops[ent.loop_id].name,
            k => &self.copies[k as usize - 1],
        };
        if ent.tile {
            format!("{base}.t")
        } else {
            base.clone()
        }
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

    fn replace_child(&mut self, parent: Option<usize>, old: usize, new: usize) {
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

    fn first_loop_child(&self, node: usize) -> Option<usize> {
        self.nodes[node].children.iter().find_map(|k| match k {
            Kid::Node(n) => Some(*n),
            Kid::Comp(_) => None,
        })
    }

    fn apply(&mut self, by_name: &HashMap<&str, LoopId>, step: usize, t: &Transform) -> Result<(), FeatureError> {
        match t {
            Transform::Interchange { order } => {
                let mut found = Vec::new();
                for n in order {
                    found.push(self.resolve(by_name, step, n)?);
                }
                let mut slots: Vec<usize> = found.iter().map(|(_, node)| *node).collect();
                slots.sort_by_key(|n| self.depth(*n));
                for ((ent, old), slot) in found.iter().zip(&slots) {
                    if old != slot {
                        // The features tag the point loop, also when its tile loop moved.
                        self.interchanged.insert(Ent { tile: false, ..*ent });
                    }
                    self.nodes[*slot].ent = *ent;
                    self.at.insert(*ent, *slot);
                }
            }
            Transform::Tile { band } => {
                let mut found = Vec::new();
                for (n, size) in band {
                    let (ent, node) = self.resolve(by_name, step, n)?;
                    if ent.tile {
                        return Err(FeatureError::Schedule { step, reason: format!("tiling the tile loop {n} is not modeled") });
                    }
                    found.push((ent, node, *size));
                }
                let Some(&(_, top, _)) = found.first() else { return Ok(()) };
                let parent = self.nodes[top].parent;
                let first_new = self.nodes.len();
                for (i, (ent, _, size)) in found.iter().enumerate() {
                    let tile_ent = Ent { tile: true, ..*ent };
                    let node_parent = if i == 0 { parent } else { Some(first_new + i - 1) };
                    self.nodes.push(Node { ent: tile_ent, parent: node_parent, children: Vec::new() });
                    self.at.insert(tile_ent, first_new + i);
                    self.tags.entry(*ent).or_default().tile_size = Some(*size);
                }
                let last_new = self.nodes.len() - 1;
                for i in first_new..last_new {
                    self.nodes[i].children = vec![Kid::Node(i + 1)];
                }
                self.nodes[last_new].children = vec![Kid::Node(top)];
                self.replace_child(parent, top, first_new);
                self.nodes[top].parent = Some(last_new);
            }
            Transform::Distribute { target } => self.distribute(by_name, step, target)?,
            Transform::Unroll { target, factor } => {
                let (ent, _) = self.resolve(by_name, step, target)?;
                self.tags.entry(ent).or_default().unroll = Some(*factor);
            }
            Transform::Parallelize { target } => {
                let (ent, _) = self.resolve(by_name, step, target)?;
                self.tags.entry(ent).or_default().parallel = true;
            }
            Transform::Vectorize { target, width } => {
                let (ent, _) = self.resolve(by_name, step, target)?;
                self.tags.entry(ent).or_default().vector_width = Some(*width);
            }
            Transform::Fuse { first, second, depth } => {
                let (_, a0) = self.resolve(by_name, step, first)?;
                let (_, b0) = self.resolve(by_name, step, second)?;
                let (mut a, mut b) = (vec![a0], vec![b0]);
                while a.len() < *depth {
                    let (Some(na), Some(nb)) = (self.first_loop_child(a[a.len() - 1]), self.first_loop_child(b[b.len() - 1]))
                    else {
                        return Err(FeatureError::Schedule { step, reason: format!("{t}: the nests are not {depth} deep") });
                    };
                    a.push(na);
                    b.push(nb);
                }
                for k in 0..*depth {
                    let skip = a.get(k + 1).copied();
                    let mut merged: Vec<Kid> =
                        self.nodes[a[k]].children.iter().copied().filter(|c| Some(*c) != skip.map(Kid::Node)).collect();
                    for c in &merged {
                        if let Kid::Node(n) = c {
                            self.nodes[*n].parent = Some(b[k]);
                        }
                    }
                    merged.extend(self.nodes[b[k]].children.iter().copied());
                    self.nodes[b[k]].children = merged;
                    let (ea, eb) = (self.nodes[a[k]].ent, self.nodes[b[k]].ent);
                    self.at.remove(&ea);
                    // Parts of one distributed loop fused back are the same loop.
                    if ea.loop_id != eb.loop_id {
                        self.alias.insert(ea.loop_id, eb.loop_id);
                    }
                    self.fused.insert(eb.loop_id);
                    self.nodes[a[k]].children.clear();
                }
                self.roots.retain(|r| *r != a0);
            }
        }
        Ok(())
    }

    /// One copy of the loop per child, in order, in its place.
    fn distribute(&mut self, by_name: &HashMap<&str, LoopId>, step: usize, target: &LoopName) -> Result<(), FeatureError> {
        let (ent, node) = self.resolve(by_name, step, target)?;
        let bad = |why: String| FeatureError::Schedule { step, reason: format!("distribute({target}): {why}") };
        if ent.tile {
            return Err(bad("distributing a tile-space loop is not modeled".into()));
        }
        let kids = self.nodes[node].children.clone();
        if kids.len() < 2 {
            return Err(bad(format!("{target} holds a single loop or computation: nothing to distribute")));
        }
        let parent = self.nodes[node].parent;
        let tags = self.tags.get(&ent).copied();
        let interchanged = self.interchanged.contains(&ent);
        self.at.remove(&ent);
        let mut parts = Vec::new();
        for (k, kid) in kids.iter().enumerate() {
            let name = target.part(k).to_string();
            self.copies.push(name.clone());
            let e = Ent { loop_id: ent.loop_id, tile: false, copy: self.copies.len() as u32 };
            self.copy_ents.insert(name, e);
            let index = if k == 0 {
                node
            } else {
                self.nodes.push(Node { ent: e, parent, children: Vec::new() });
                self.nodes.len() - 1
            };
            self.nodes[index].ent = e;
            self.nodes[index].children = vec![*kid];
            if let Kid::Node(n) = kid {
                self.nodes[*n].parent = Some(index);
            }
            self.at.insert(e, index);
            if let Some(t) = tags {
                self.tags.insert(e, t);
            }
            if interchanged {
                self.interchanged.insert(e);
            }
            parts.push(index);
        }
        match parent {
            None => {
                if let Some(i) = self.roots.iter().position(|n| *n == node) {
                    self.roots.splice(i..=i, parts);
                }
            }
            Some(p) => {
                let list = &mut self.nodes[p].children;
                if let Some(i) = list.iter().position(|k| *k == Kid::Node(node)) {
                    list.splice(i..=i, parts.into_iter().map(Kid::Node));
                }
            }
        }
        Ok(())
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

    pub fn tags(&self, ent: Ent) -> Tags {
        self.tags.get(&ent).copied().unwrap_or_default()
    }

    pub fn node_of(&self, ent: Ent) -> Option<usize> {
        self.at.get(&ent).copied()
    }

    pub fn has_loop_children(&self, node: usize) -> bool {
        self.nodes[node].children.iter().any(|k| matches!(k, Kid::Node(_)))
    }
}
