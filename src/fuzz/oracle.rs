//! An exact legality oracle that shares nothing with MLIR's dependence analysis.
//!
//! It runs the original program symbolically: every memory access of every statement
//! instance becomes an [`Event`], in execution order, with the address it touches. Each
//! event carries its place in the current loop tree as a timestamp: per enclosing loop the
//! node's position among its siblings and the loop's iteration (value, bounds, step, and
//! whether it runs in parallel); then the statement's position, the access's position in
//! the statement and, once vectorized, its vector lane. A schedule step is given its
//! meaning here, independently of how the pass implements it, as a rewrite of those
//! timestamps (tiling splits an iteration into a tile and a point, unrolling groups
//! iterations and orders the copies in the body, distribution and fusion move statements
//! between loops, ...). A step is legal when every pair of accesses to one address, one of
//! them a write, is ordered after the step as it was in the original run; iterations of a
//! parallel loop, and lanes of one vector operation, are unordered, so a conflict between
//! them is illegal.
//!
//! It is slow and for small programs only (it compares every conflicting pair), which is
//! the point: it decides by enumeration, not by analysis.

use super::gen::FuzzProgram;
use crate::schedule::{Accumulate, Distribute, Fuse, Interchange, Pack, Parallelize, Tile, Transform, Unroll, Vectorize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One iteration of a loop of the current tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iter {
    name: u32,
    v: i64,
    lb: i64,
    ub: i64,
    step: i64,
    parallel: bool,
}

/// One node on an event's path: the node's position among its siblings, and the loop
/// iteration when the node is a loop (the last level is the statement: no loop).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Level {
    pos: Vec<i32>,
    iter: Option<Iter>,
}

#[derive(Clone, Debug)]
struct Event {
    levels: Vec<Level>,
    /// Position of the access in its statement (loads in order, then the store).
    acc: i32,
    /// Vector lane, or -1.
    lane: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Before,
    After,
    Unordered,
    Same,
}

/// The oracle's judgement of one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every conflicting pair keeps its order.
    Legal,
    /// A conflicting pair is reversed or made unordered (an example is given).
    Illegal(String),
    /// The oracle gives no verdict (the step names loops it does not see, or a structure
    /// the step is not defined on).
    Unknown(String),
}

impl Verdict {
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Legal => "legal",
            Verdict::Illegal(_) => "illegal",
            Verdict::Unknown(_) => "unknown",
        }
    }
}

/// What the random-schedule generator needs to know of a loop of the current tree.
#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub name: String,
    /// A root of the function (a nest).
    pub top: bool,
    pub innermost: bool,
    pub children: usize,
    /// This loop and the loops perfectly nested below it, outermost first.
    pub chain: Vec<String>,
    /// Largest trip count over the loop's instances.
    pub max_trips: i64,
    pub parallel: bool,
}

#[derive(Clone)]
pub struct Oracle {
    names: Vec<String>,
    ids: HashMap<String, u32>,
    events: Vec<Event>,
    writes: Vec<bool>,
    /// Event indices per address, in original order.
    groups: Vec<Vec<u32>>,
    /// The buffer (the function's argument) of each address group.
    group_buf: Vec<usize>,
    /// The function's buffers (arguments).
    pub buffers: usize,
    /// A readable name for each event (for the report).
    what: Vec<(u32, u32)>,
    statements: Vec<String>,
    /// Some statement never runs: a child the events cannot show (distribution's parts are
    /// then not what the oracle would count).
    dead_code: bool,
}

impl Oracle {
    /// Runs `p` symbolically; loops are named as the representation names them
    /// (`L<nest>`, then `.k` for the k-th loop child).
    pub fn new(p: &FuzzProgram) -> Oracle {
        let mut o = Oracle {
            names: Vec::new(),
            ids: HashMap::new(),
            events: Vec::new(),
            writes: Vec::new(),
            groups: Vec::new(),
            group_buf: Vec::new(),
            buffers: p.buffers.len(),
            what: Vec::new(),
            statements: Vec::new(),
            dead_code: false,
        };
        let mut by_addr: HashMap<(usize, i64), u32> = HashMap::new();
        let mut loop_names: HashMap<Vec<usize>, Vec<u32>> = HashMap::new();
        let mut stmt_ids: HashMap<Vec<usize>, u32> = HashMap::new();
        p.for_each_instance(|path, s, ivs, loops| {
            let names = loop_names.entry(path.to_vec()).or_insert_with(|| {
                loop_path_names(p, path).into_iter().map(|n| intern(&mut o.names, &mut o.ids, &n)).collect()
            });
            let stmt = *stmt_ids.entry(path.to_vec()).or_insert_with(|| {
                o.statements.push(format!("statement at {path:?}"));
                (o.statements.len() - 1) as u32
            });
            let mut levels: Vec<Level> = loops
                .iter()
                .zip(names.iter())
                .enumerate()
                .map(|(j, (l, &name))| Level {
                    pos: vec![path[j] as i32],
                    iter: Some(Iter { name, v: l.v, lb: l.lb, ub: l.ub, step: l.step, parallel: false }),
                })
                .collect();
            levels.push(Level { pos: vec![path[loops.len()] as i32], iter: None });
            for (acc, a) in s.loads.iter().chain(std::iter::once(&s.store)).enumerate() {
                let idx: Vec<i64> = a.idx.iter().map(|e| e.eval(ivs)).collect();
                let addr = (a.buf, p.buffers[a.buf].linear(&idx));
                let n = by_addr.len() as u32;
                let g = *by_addr.entry(addr).or_insert(n);
                if g as usize == o.groups.len() {
                    o.groups.push(Vec::new());
                    o.group_buf.push(a.buf);
                }
                o.groups[g as usize].push(o.events.len() as u32);
                o.events.push(Event { levels: levels.clone(), acc: acc as i32, lane: -1 });
                o.writes.push(acc == s.loads.len());
                o.what.push((stmt, acc as u32));
            }
        });
        o.dead_code = o.statements.len() < p.statements();
        o
    }

    pub fn events(&self) -> usize {
        self.events.len()
    }

    fn id(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    fn name(&mut self, name: &str) -> u32 {
        intern(&mut self.names, &mut self.ids, name)
    }

    /// Judges `step` on the current program; when it has a meaning here, also returns the
    /// state after it (to [`Oracle::commit`] when the pass accepted the step).
    pub fn judge(&mut self, step: &Transform) -> (Verdict, Option<EventsAfter>) {
        let conflict = match step {
            Transform::Accumulate(Accumulate { target }) => Some(self.accumulate_conflict(target.as_str())),
            Transform::Pack(Pack { target, argument, .. }) => Some(self.pack_conflict(target.as_str(), *argument)),
            _ => None,
        };
        match conflict {
            Some(Ok(Some(why))) => return (Verdict::Illegal(why), None),
            Some(Err(why)) => return (Verdict::Unknown(why), None),
            Some(Ok(None)) | None => {}
        }
        let after = match self.rewrite(step) {
            Ok(events) => events,
            Err(why) => return (Verdict::Unknown(why), None),
        };
        let verdict = self.check(&after);
        (verdict, Some(EventsAfter(after)))
    }

    /// Makes a judged step's result the current program.
    pub fn commit(&mut self, after: EventsAfter) {
        self.events = after.0;
    }

    fn describe(&self, e: u32) -> String {
        let (stmt, acc) = self.what[e as usize];
        let ev = &self.events[e as usize];
        let ivs: Vec<String> = ev
            .levels
            .iter()
            .filter_map(|l| l.iter.map(|i| format!("{}={}", self.names[i.name as usize], i.v)))
            .collect();
        let kind = if self.writes[e as usize] { "write" } else { "read" };
        format!("{kind} #{acc} of {} at [{}]", self.statements[stmt as usize], ivs.join(", "))
    }

    /// Whether every conflicting pair keeps its original order in `after`.
    fn check(&self, after: &[Event]) -> Verdict {
        let fail = |a: u32, b: u32, o: Order| {
            let how = if o == Order::Unordered { "runs unordered with" } else { "now runs after" };
            Verdict::Illegal(format!("{} {how} {}", self.describe(a), self.describe(b)))
        };
        for group in &self.groups {
            let mut last_write: Option<u32> = None;
            let mut reads: Vec<u32> = Vec::new();
            for &e in group {
                if self.writes[e as usize] {
                    for &r in reads.iter().chain(last_write.iter()) {
                        let o = order(&after[r as usize], &after[e as usize]);
                        if o != Order::Before {
                            return fail(r, e, o);
                        }
                    }
                    reads.clear();
                    last_write = Some(e);
                } else {
                    if let Some(w) = last_write {
                        let o = order(&after[w as usize], &after[e as usize]);
                        if o != Order::Before {
                            return fail(w, e, o);
                        }
                    }
                    // Also before the first write: the next write must stay after it.
                    reads.push(e);
                }
            }
        }
        Verdict::Legal
    }

    /// The level at which an event is enclosed by loop `name`.
    fn level_of(e: &Event, name: u32) -> Option<usize> {
        e.levels.iter().position(|l| l.iter.is_some_and(|i| i.name == name))
    }

    fn require(&self, name: &str) -> Result<u32, String> {
        let id = self.id(name).ok_or_else(|| format!("no loop named {name}"))?;
        if self.events.iter().any(|e| Self::level_of(e, id).is_some()) {
            Ok(id)
        } else {
            Err(format!("no loop named {name} runs"))
        }
    }

    /// The distinct positions of the nodes at `level + 1` below loop `name` (its children).
    fn children(&self, name: u32) -> BTreeSet<Vec<i32>> {
        self.events
            .iter()
            .filter_map(|e| Self::level_of(e, name).map(|l| e.levels[l + 1].pos.clone()))
            .collect()
    }

    /// Whether the bounds of loop `inner` vary with the iteration of loop `outer` (all
    /// other enclosing iterations fixed).
    fn bounds_vary(&self, outer: u32, inner: u32) -> bool {
        let mut seen: HashMap<Vec<(Vec<i32>, i64)>, (i64, i64)> = HashMap::new();
        for e in &self.events {
            let (Some(lo), Some(li)) = (Self::level_of(e, outer), Self::level_of(e, inner)) else { continue };
            if lo >= li {
                continue;
            }
            let key: Vec<(Vec<i32>, i64)> = e.levels[..li]
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != lo)
                .map(|(_, l)| (l.pos.clone(), l.iter.map_or(0, |i| i.v)))
                .collect();
            let it = e.levels[li].iter.expect("a loop level");
            if *seen.entry(key).or_insert((it.lb, it.ub)) != (it.lb, it.ub) {
                return true;
            }
        }
        false
    }

    /// The loops named `names` as a perfectly nested band of the current tree: their
    /// levels, outermost first, in the current order (as ids).
    fn band(&self, names: &[String]) -> Result<(usize, Vec<u32>), String> {
        let ids: Vec<u32> = names.iter().map(|n| self.require(n)).collect::<Result<_, _>>()?;
        let mut first: Option<(usize, Vec<u32>)> = None;
        for e in &self.events {
            let levels: Vec<Option<usize>> = ids.iter().map(|&id| Self::level_of(e, id)).collect();
            if levels.iter().all(Option::is_none) {
                continue;
            }
            if levels.iter().any(Option::is_none) {
                return Err(format!("the loops {} are not one band (a statement is inside some of them only)", names.join(", ")));
            }
            let lo = levels.iter().flatten().min().copied().unwrap();
            let order: Vec<u32> = (lo..lo + ids.len())
                .map(|l| e.levels.get(l).and_then(|x| x.iter).map(|i| i.name))
                .collect::<Option<Vec<u32>>>()
                .ok_or("the band is not nested")?;
            if order.iter().collect::<BTreeSet<_>>() != ids.iter().collect::<BTreeSet<_>>() {
                return Err(format!("the loops {} are not directly nested in one another", names.join(", ")));
            }
            match &first {
                None => first = Some((lo, order)),
                Some((l, o)) if *l == lo && *o == order => {}
                Some(_) => return Err("the band has copies at different depths or orders".into()),
            }
        }
        let (lo, order) = first.ok_or("no statement in the band")?;
        // Perfectly nested: each loop of the band but the last has the next as its only child.
        for &outer in &order[..order.len() - 1] {
            if self.children(outer).len() != 1 {
                return Err(format!("{} has more than one child", self.names[outer as usize]));
            }
        }
        Ok((lo, order))
    }

    fn rectangular(&self, band: &[u32]) -> Result<(), String> {
        for (j, &inner) in band.iter().enumerate() {
            for &outer in &band[..j] {
                if self.bounds_vary(outer, inner) {
                    return Err(format!(
                        "the bounds of {} depend on {}",
                        self.names[inner as usize], self.names[outer as usize]
                    ));
                }
            }
        }
        Ok(())
    }

    fn innermost(&self, name: u32) -> bool {
        self.events.iter().all(|e| Self::level_of(e, name).is_none_or(|l| l + 2 == e.levels.len()))
    }

    /// Accumulating in loop `target` keeps, per instance of the loop, each statement directly
    /// in it whose store touches one element throughout and that loads that element, in a
    /// register: the element is read before the loop and written after it, so any other
    /// access to it inside the instance would see or leave a stale value. The order of
    /// iterations does not change (the events keep their timestamps). `Ok(Some(why))`: such
    /// an access exists; `Err`: no statement accumulates there.
    fn accumulate_conflict(&self, target: &str) -> Result<Option<String>, String> {
        let id = self.require(target)?;
        let mut group_of = vec![0usize; self.events.len()];
        for (g, events) in self.groups.iter().enumerate() {
            for &e in events {
                group_of[e as usize] = g;
            }
        }
        // An instance of the loop: the outer levels' places and iterations, and the loop's place.
        type Instance = Vec<(Vec<i32>, i64)>;
        let instance = |e: &Event, l: usize| -> Instance {
            e.levels[..l]
                .iter()
                .map(|x| (x.pos.clone(), x.iter.map_or(i64::MIN, |i| i.v)))
                .chain(std::iter::once((e.levels[l].pos.clone(), 0)))
                .collect()
        };
        // Per (instance, statement directly in the loop): the elements it stores, and per
        // load the elements it reads.
        let mut seen: HashMap<(Instance, u32), (BTreeSet<usize>, BTreeMap<u32, BTreeSet<usize>>)> = HashMap::new();
        for (e, ev) in self.events.iter().enumerate() {
            let Some(l) = Self::level_of(ev, id) else { continue };
            if ev.levels.len() != l + 2 {
                continue;
            }
            let (stmt, acc) = self.what[e];
            let entry = seen.entry((instance(ev, l), stmt)).or_default();
            if self.writes[e] {
                entry.0.insert(group_of[e]);
            } else {
                entry.1.entry(acc).or_default().insert(group_of[e]);
            }
        }
        let mut accumulators = 0;
        for ((inst, stmt), (stores, loads)) in &seen {
            let [g] = stores.iter().copied().collect::<Vec<_>>()[..] else { continue };
            let Some((&load, _)) = loads.iter().find(|(_, gs)| gs.len() == 1 && gs.contains(&g)) else { continue };
            accumulators += 1;
            for &e in &self.groups[g] {
                let ev = &self.events[e as usize];
                let Some(l) = Self::level_of(ev, id) else { continue };
                if instance(ev, l) != *inst {
                    continue;
                }
                let (s, acc) = self.what[e as usize];
                if s == *stmt && (acc == load || self.writes[e as usize]) {
                    continue;
                }
                return Ok(Some(format!("{} touches the element {target} accumulates", self.describe(e))));
            }
        }
        if accumulators == 0 {
            return Err(format!("no statement accumulates in {target}"));
        }
        Ok(None)
    }

    /// Packing reads, before the loop starts, every element of the buffer that the loop
    /// will read: legal unless the loop writes the buffer (a read would see the value from
    /// before the write). Not defined when the loop does not read the buffer.
    fn pack_conflict(&self, target: &str, buffer: usize) -> Result<Option<String>, String> {
        let id = self.require(target)?;
        let mut reads = false;
        for (g, events) in self.groups.iter().enumerate() {
            if self.group_buf[g] != buffer {
                continue;
            }
            for &e in events {
                if Self::level_of(&self.events[e as usize], id).is_none() {
                    continue;
                }
                if self.writes[e as usize] {
                    return Ok(Some(format!("{} is inside {target}, which reads the copy of its buffer", self.describe(e))));
                }
                reads = true;
            }
        }
        if !reads {
            return Err(format!("{target} does not read buffer {buffer}"));
        }
        Ok(None)
    }

    /// The timestamps after `step`, or why the oracle gives it no meaning.
    fn rewrite(&mut self, step: &Transform) -> Result<Vec<Event>, String> {
        let mut after = self.events.clone();
        match step {
            Transform::Interchange(Interchange { order }) => {
                let names: Vec<String> = order.iter().map(|l| l.to_string()).collect();
                let (lo, current) = self.band(&names)?;
                let wanted: Vec<u32> = names.iter().map(|n| self.id(n).unwrap()).collect();
                for e in &mut after {
                    let Some(l) = Self::level_of(e, current[0]) else { continue };
                    debug_assert_eq!(l, lo);
                    let iters: HashMap<u32, Iter> =
                        e.levels[l..l + current.len()].iter().map(|x| (x.iter.unwrap().name, x.iter.unwrap())).collect();
                    for (j, id) in wanted.iter().enumerate() {
                        e.levels[l + j].iter = Some(iters[id]);
                    }
                }
            }
            Transform::Tile(Tile { band }) => {
                let names: Vec<String> = band.iter().map(|(l, _)| l.to_string()).collect();
                let (_, current) = self.band(&names)?;
                let wanted: Vec<u32> = names.iter().map(|n| self.id(n).unwrap()).collect();
                if wanted != current {
                    return Err("the band is listed out of its nesting order".into());
                }
                self.rectangular(&current)?;
                let tiles: Vec<u32> = names.iter().map(|n| self.name(&format!("{n}.t"))).collect();
                let sizes: Vec<i64> = band.iter().map(|(_, s)| *s as i64).collect();
                for e in &mut after {
                    let Some(l) = Self::level_of(e, current[0]) else { continue };
                    let n = current.len();
                    let old: Vec<Level> = e.levels[l..l + n].to_vec();
                    let mut new = Vec::with_capacity(2 * n);
                    let mut points = Vec::with_capacity(n);
                    for (j, lv) in old.iter().enumerate() {
                        let it = lv.iter.unwrap();
                        let span = sizes[j] * it.step;
                        let t = it.lb + (it.v - it.lb).div_euclid(span) * span;
                        new.push(Level {
                            pos: lv.pos.clone(),
                            iter: Some(Iter { name: tiles[j], v: t, lb: it.lb, ub: it.ub, step: span, parallel: false }),
                        });
                        points.push(Level {
                            pos: if j == 0 { vec![0] } else { lv.pos.clone() },
                            iter: Some(Iter { lb: t, ub: it.ub.min(t + span), ..it }),
                        });
                    }
                    new.extend(points);
                    e.levels.splice(l..l + n, new);
                }
            }
            Transform::Unroll(Unroll { target, factor }) => {
                let id = self.require(target.as_str())?;
                self.peel_partial_tile(&mut after, target.as_str());
                let f = *factor as i64;
                if !self.innermost(id) {
                    // Unroll-and-jam: defined on a perfect nest whose inner bounds do not
                    // move with the unrolled loop (the copies then share the inner loops).
                    let mut below: BTreeSet<u32> = BTreeSet::new();
                    for e in &self.events {
                        if let Some(l) = Self::level_of(e, id) {
                            below.extend(e.levels[l + 1..].iter().filter_map(|x| x.iter.map(|i| i.name)));
                        }
                    }
                    for &inner in &below {
                        if self.children(inner).len() > 1 && !self.innermost(inner) {
                            return Err(format!("{} holds more than one child", self.names[inner as usize]));
                        }
                        if self.bounds_vary(id, inner) {
                            return Err(format!("the bounds of {} depend on {target}", self.names[inner as usize]));
                        }
                    }
                    if self.children(id).len() != 1 {
                        return Err(format!("{target} holds more than one child"));
                    }
                }
                for e in &mut after {
                    let Some(l) = Self::level_of(e, id) else { continue };
                    let it = e.levels[l].iter.unwrap();
                    let trips = (it.ub - it.lb + it.step - 1).div_euclid(it.step);
                    let k = (it.v - it.lb) / it.step;
                    let main = trips / f * f;
                    let (iter, copy, part) = if k < main {
                        let v = it.lb + k / f * f * it.step;
                        (Iter { v, ub: it.lb + main * it.step, step: f * it.step, ..it }, (k % f) as i32, 0)
                    } else {
                        (Iter { lb: it.lb + main * it.step, ..it }, 0, 1)
                    };
                    e.levels[l].iter = Some(iter);
                    e.levels[l].pos.push(part);
                    // The copies of the innermost body run one after the other.
                    e.levels.last_mut().unwrap().pos.insert(0, copy);
                }
            }
            Transform::Accumulate(Accumulate { target }) => {
                // Judged by `accumulate_conflict`; the order of every access stays.
                self.require(target.as_str())?;
            }
            Transform::Pack(Pack { target, .. }) => {
                // Judged by `pack_conflict`: the loop's reads of the buffer move to just
                // before it, where no write of the loop comes between.
                self.require(target.as_str())?;
            }
            Transform::Parallelize(Parallelize { target }) => {
                let id = self.require(target.as_str())?;
                for e in &mut after {
                    if let Some(l) = Self::level_of(e, id) {
                        e.levels[l].iter.as_mut().unwrap().parallel = true;
                    }
                }
            }
            Transform::Vectorize(Vectorize { target, width }) => {
                let id = self.require(target.as_str())?;
                if !self.innermost(id) {
                    return Err(format!("{target} is not innermost"));
                }
                self.peel_partial_tile(&mut after, target.as_str());
                // Whole groups of `width` iterations run as vector operations; the iterations
                // after the last whole group run one by one in a loop after it.
                let w = *width as i64;
                for e in &mut after {
                    let Some(l) = Self::level_of(e, id) else { continue };
                    let it = e.levels[l].iter.unwrap();
                    let trips = (it.ub - it.lb + it.step - 1).div_euclid(it.step);
                    let k = (it.v - it.lb) / it.step;
                    let main = trips / w * w;
                    if k < main {
                        e.levels[l].iter =
                            Some(Iter { v: it.lb + k / w * w * it.step, ub: it.lb + main * it.step, step: w * it.step, ..it });
                        e.levels[l].pos.push(0);
                        e.lane = (k % w) as i32;
                    } else {
                        e.levels[l].iter = Some(Iter { lb: it.lb + main * it.step, ..it });
                        e.levels[l].pos.push(1);
                    }
                }
            }
            Transform::Distribute(Distribute { target }) => {
                if self.dead_code {
                    return Err("a statement of the program never runs, so the parts cannot be counted from its accesses".into());
                }
                let id = self.require(target.as_str())?;
                let parts: Vec<Vec<i32>> = self.children(id).into_iter().collect();
                if parts.len() < 2 {
                    return Err(format!("{target} has a single child"));
                }
                let part_names: Vec<u32> = (0..parts.len()).map(|k| self.name(&format!("{target}.d{k}"))).collect();
                for e in &mut after {
                    let Some(l) = Self::level_of(e, id) else { continue };
                    let k = parts.binary_search(&e.levels[l + 1].pos).expect("a child");
                    e.levels[l].pos.push(k as i32);
                    e.levels[l].iter.as_mut().unwrap().name = part_names[k];
                }
            }
            Transform::Fuse(Fuse { first, second, depth }) => {
                let (a, b) = (self.require(first.as_str())?, self.require(second.as_str())?);
                let d = *depth;
                let tops: BTreeMap<Vec<i32>, u32> = self
                    .events
                    .iter()
                    .filter_map(|e| e.levels[0].iter.map(|i| (e.levels[0].pos.clone(), i.name)))
                    .collect();
                let order: Vec<u32> = tops.values().copied().collect();
                let ia = order.iter().position(|&n| n == a).ok_or(format!("{first} is not a nest"))?;
                if order.get(ia + 1) != Some(&b) {
                    return Err(format!("{second} is not the nest right after {first}"));
                }
                let chain = |root: u32| -> Result<Vec<(u32, BTreeSet<(i64, i64, i64)>)>, String> {
                    let mut out = Vec::new();
                    for level in 0..d {
                        let mut names = BTreeSet::new();
                        let mut bounds = BTreeSet::new();
                        for e in self.events.iter().filter(|e| e.levels[0].iter.is_some_and(|i| i.name == root)) {
                            match e.levels.get(level).and_then(|l| l.iter) {
                                Some(i) => {
                                    names.insert(i.name);
                                    bounds.insert((i.lb, i.ub, i.step));
                                }
                                None => return Err(format!("the nest {} is not {d} loops deep", self.names[root as usize])),
                            }
                        }
                        if names.len() != 1 {
                            return Err(format!("the nest {} is not perfectly nested to depth {d}", self.names[root as usize]));
                        }
                        let name = *names.iter().next().unwrap();
                        if level + 1 < d && self.children(name).len() != 1 {
                            return Err(format!("the nest {} is not perfectly nested to depth {d}", self.names[root as usize]));
                        }
                        out.push((name, bounds));
                    }
                    Ok(out)
                };
                let (ca, cb) = (chain(a)?, chain(b)?);
                for ((_, ba), (_, bb)) in ca.iter().zip(&cb) {
                    if ba.len() != 1 || ba != bb {
                        return Err("the fused loops do not have the same bounds".into());
                    }
                }
                let b_pos = self.events.iter().find(|e| e.levels[0].iter.is_some_and(|i| i.name == b)).unwrap().levels[0].pos.clone();
                for e in &mut after {
                    if !e.levels[0].iter.is_some_and(|i| i.name == a) {
                        continue;
                    }
                    e.levels[0].pos = b_pos.clone();
                    for (level, (name, _)) in cb.iter().enumerate() {
                        e.levels[level].iter.as_mut().unwrap().name = *name;
                    }
                    // The first nest's body goes first in the second's body at that depth.
                    e.levels[d].pos.insert(0, -1);
                }
            }
        }
        Ok(after)
    }

    /// Unrolling or vectorizing a tiled loop `target` first peels the partial last tile of
    /// its tile loop `target.t`, where that loop has the same bounds everywhere, more than
    /// one iteration and a last one that is partial: its last iteration becomes a copy after
    /// it (the pass's peelPartialTiles, passes/Transforms.cpp). Every access under the tile
    /// loop keeps its order; a later step on the tile loop (parallelize) then concerns the
    /// full tiles only.
    fn peel_partial_tile(&self, after: &mut [Event], target: &str) {
        let Some(tile) = self.id(&format!("{target}.t")) else { return };
        let bounds: BTreeSet<(i64, i64, i64)> = after
            .iter()
            .filter_map(|e| Self::level_of(e, tile).map(|l| e.levels[l].iter.unwrap()))
            .map(|i| (i.lb, i.ub, i.step))
            .collect();
        let Some(&(lb, ub, step)) = bounds.iter().next() else { return };
        let trips = (ub - lb + step - 1).div_euclid(step);
        if bounds.len() != 1 || trips < 2 || (ub - lb) % step == 0 {
            return;
        }
        let last = lb + (trips - 1) * step;
        for e in after.iter_mut() {
            let Some(l) = Self::level_of(e, tile) else { continue };
            let it = e.levels[l].iter.as_mut().unwrap();
            if it.v == last {
                it.lb = last;
                e.levels[l].pos.push(1);
            } else {
                it.ub = last;
                e.levels[l].pos.push(0);
            }
        }
    }

    /// The loops of the current tree, for proposing steps (one pass over the events).
    pub fn loops(&self) -> Vec<LoopInfo> {
        #[derive(Default)]
        struct Agg {
            level: usize,
            parallel: bool,
            max_trips: i64,
            innermost: bool,
            children: BTreeSet<Vec<i32>>,
            child_loops: BTreeSet<u32>,
        }
        let mut seen: BTreeMap<u32, Agg> = BTreeMap::new();
        for e in &self.events {
            for (l, lv) in e.levels.iter().enumerate() {
                let Some(i) = lv.iter else { continue };
                let trips = (i.ub - i.lb + i.step - 1).div_euclid(i.step);
                let a = seen.entry(i.name).or_insert_with(|| Agg { level: l, innermost: true, ..Default::default() });
                a.level = a.level.min(l);
                a.parallel |= i.parallel;
                a.max_trips = a.max_trips.max(trips);
                let next = &e.levels[l + 1];
                if !a.children.contains(&next.pos) {
                    a.children.insert(next.pos.clone());
                }
                if let Some(c) = next.iter {
                    a.innermost = false;
                    a.child_loops.insert(c.name);
                }
            }
        }
        let mut out = Vec::new();
        for (&id, a) in &seen {
            let mut chain = vec![id];
            loop {
                let last = &seen[chain.last().unwrap()];
                if last.children.len() == 1 && last.child_loops.len() == 1 {
                    chain.push(*last.child_loops.iter().next().unwrap());
                } else {
                    break;
                }
            }
            out.push(LoopInfo {
                name: self.names[id as usize].clone(),
                top: a.level == 0,
                innermost: a.innermost,
                children: a.children.len(),
                chain: chain.iter().map(|&c| self.names[c as usize].clone()).collect(),
                max_trips: a.max_trips,
                parallel: a.parallel,
            });
        }
        out
    }

}

/// The state after a judged step (opaque: it goes back to [`Oracle::commit`]).
pub struct EventsAfter(Vec<Event>);

fn intern(names: &mut Vec<String>, ids: &mut HashMap<String, u32>, name: &str) -> u32 {
    if let Some(&id) = ids.get(name) {
        return id;
    }
    names.push(name.to_string());
    ids.insert(name.to_string(), (names.len() - 1) as u32);
    (names.len() - 1) as u32
}

/// The names of the loops on `path` (item indices from the top), as the representation
/// names them: `L<nest>` then `.k` for the k-th loop among a loop's children.
fn loop_path_names(p: &FuzzProgram, path: &[usize]) -> Vec<String> {
    use super::gen::Item;
    let mut names = vec![format!("L{}", path[0])];
    let mut body = &p.nests[path[0]].body;
    for &k in &path[1..path.len() - 1] {
        let index = body[..k].iter().filter(|i| matches!(i, Item::Loop(_))).count();
        names.push(format!("{}.{index}", names.last().unwrap()));
        match &body[k] {
            Item::Loop(l) => body = &l.body,
            Item::Stmt(_) => unreachable!("a statement on a loop path"),
        }
    }
    names
}

/// The order of two events: compared node by node, then by the access's position in its
/// statement; iterations of a parallel loop and lanes of one vector access are unordered.
fn order(a: &Event, b: &Event) -> Order {
    for (x, y) in a.levels.iter().zip(&b.levels) {
        match x.pos.cmp(&y.pos) {
            Ordering::Less => return Order::Before,
            Ordering::Greater => return Order::After,
            Ordering::Equal => {}
        }
        match (x.iter, y.iter) {
            (Some(i), Some(j)) if i.v != j.v => {
                if i.parallel || j.parallel {
                    return Order::Unordered;
                }
                return if i.v < j.v { Order::Before } else { Order::After };
            }
            (Some(_), Some(_)) | (None, None) => {}
            // One node cannot be a loop for one event and a statement for the other.
            _ => return Order::Unordered,
        }
    }
    match a.acc.cmp(&b.acc) {
        Ordering::Less => return Order::Before,
        Ordering::Greater => return Order::After,
        Ordering::Equal => {}
    }
    if a.lane != b.lane {
        return Order::Unordered;
    }
    Order::Same
}

#[cfg(test)]
mod tests {
    use super::super::gen::{Access, Aff, Buffer, Elem, FuzzProgram, Item, Loop, Operand, Stmt};
    use super::*;
    use crate::schedule::Schedule;

    fn lp(lb: Aff, ub: Aff, step: i64, body: Vec<Item>) -> Item {
        Item::Loop(Loop::new(lb, ub, step, body))
    }
    fn c(depth: usize, v: i64) -> Aff {
        Aff::constant(depth, v)
    }
    fn aff(coeffs: &[i64], c: i64) -> Aff {
        Aff { coeffs: coeffs.to_vec(), c }
    }
    fn stmt(loads: Vec<Access>, store: Access) -> Item {
        let n = loads.len();
        Item::Stmt(Stmt {
            loads,
            store,
            first: if n > 0 { Operand::Load } else { Operand::Const(1) },
            ops: (1..n).map(|_| (super::super::gen::BinOp::Add, Operand::Load)).collect(),
        })
    }
    fn program(shape: Vec<i64>, nests: Vec<Item>) -> FuzzProgram {
        FuzzProgram {
            seed: 0,
            index: 0,
            buffers: vec![Buffer { elem: Elem::F64, shape }],
            nests: nests
                .into_iter()
                .map(|i| match i {
                    Item::Loop(l) => l,
                    Item::Stmt(_) => panic!(),
                })
                .collect(),
        }
    }
    fn verdict(p: &FuzzProgram, schedule: &str) -> Verdict {
        let s: Schedule = schedule.parse().unwrap();
        let mut o = Oracle::new(p);
        let mut last = Verdict::Legal;
        for step in &s.steps {
            let (v, after) = o.judge(step);
            if v != Verdict::Legal {
                return v;
            }
            o.commit(after.unwrap());
            last = v;
        }
        last
    }

    /// A[i][j] = A[i-1][j+1]: dependence (1, -1).
    fn skewed() -> FuzzProgram {
        program(
            vec![9, 9],
            vec![lp(
                c(0, 1),
                c(0, 8),
                1,
                vec![lp(
                    c(1, 0),
                    c(1, 7),
                    1,
                    vec![stmt(
                        vec![Access { buf: 0, idx: vec![aff(&[1, 0], -1), aff(&[0, 1], 1)] }],
                        Access { buf: 0, idx: vec![aff(&[1, 0], 0), aff(&[0, 1], 0)] },
                    )],
                )],
            )],
        )
    }

    #[test]
    fn interchange_and_tiling_of_a_skewed_dependence() {
        let p = skewed();
        assert!(matches!(verdict(&p, "interchange(L0.0, L0)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "tile(L0:2, L0.0:2)"), Verdict::Illegal(_)));
        // The inner tile covers all 7 iterations: not tiled in effect, legal.
        assert_eq!(verdict(&p, "tile(L0:2, L0.0:8)"), Verdict::Legal);
        // The outer one covering everything hoists the inner tile loop: illegal.
        assert!(matches!(verdict(&p, "tile(L0:8, L0.0:2)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "parallelize(L0)"), Verdict::Illegal(_)));
        assert_eq!(verdict(&p, "parallelize(L0.0)"), Verdict::Legal);
        assert_eq!(verdict(&p, "unroll(L0.0:4)"), Verdict::Legal);
        // Unroll-and-jam by 2 of i: the (1, -1) dependence is reversed.
        assert!(matches!(verdict(&p, "unroll(L0:2)"), Verdict::Illegal(_)));
    }

    #[test]
    fn a_reduction_through_iter_args_runs_in_order() {
        // for i { B[i] = 0.25; for k: B[i] = B[i] + A[k] } as iter_args from a constant.
        use super::super::gen::Reduction;
        let element = Access { buf: 0, idx: vec![aff(&[1, 0], 0)] };
        let mut k = Loop::new(c(1, 0), c(1, 4), 1, vec![stmt(vec![element.clone(), Access { buf: 0, idx: vec![aff(&[0, 1], 4)] }], element)]);
        k.reduce = Some(Reduction { init: Some(1) });
        let p = program(vec![8], vec![lp(c(0, 0), c(0, 4), 1, vec![Item::Loop(k)])]);
        let o = Oracle::new(&p);
        // 4 x (write, then 3 x (read, read, write)).
        assert_eq!(o.events(), 4 * (2 + 3 * 3));
        assert_eq!(verdict(&p, "unroll(L0.0:2)"), Verdict::Legal);
        assert_eq!(verdict(&p, "parallelize(L0)"), Verdict::Legal);
        assert!(matches!(verdict(&p, "parallelize(L0.0)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "vectorize(L0.0:2)"), Verdict::Illegal(_)));
        assert!(p.to_mlir().contains("iter_args("), "{}", p.to_mlir());
    }

    #[test]
    fn jam_of_a_distance_two_dependence() {
        // A[i+2][j-1] = A[i][j]: distance 2 along i.
        let p = program(
            vec![12, 9],
            vec![lp(
                c(0, 0),
                c(0, 8),
                1,
                vec![lp(
                    c(1, 1),
                    c(1, 8),
                    1,
                    vec![stmt(
                        vec![Access { buf: 0, idx: vec![aff(&[1, 0], 0), aff(&[0, 1], 0)] }],
                        Access { buf: 0, idx: vec![aff(&[1, 0], 2), aff(&[0, 1], -1)] },
                    )],
                )],
            )],
        );
        assert_eq!(verdict(&p, "unroll(L0:2)"), Verdict::Legal);
        assert!(matches!(verdict(&p, "unroll(L0:4)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "unroll(L0:3)"), Verdict::Illegal(_)));
    }

    #[test]
    fn steps_skip_iterations_that_never_run() {
        // for i = 0 to 8 step 2: A[i] = A[i-1]: no iteration writes what another reads.
        let p = program(
            vec![10],
            vec![lp(c(0, 1), c(0, 9), 2, vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[1], -1)] }], Access { buf: 0, idx: vec![aff(&[1], 0)] })])],
        );
        assert_eq!(verdict(&p, "parallelize(L0)"), Verdict::Legal);
        assert_eq!(verdict(&p, "vectorize(L0:4)"), Verdict::Legal);
    }

    #[test]
    fn vector_lanes_are_unordered() {
        // A[i+1] = A[i]: a loop-carried flow dependence of distance 1.
        let p = program(
            vec![9],
            vec![lp(c(0, 0), c(0, 8), 1, vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[1], 0)] }], Access { buf: 0, idx: vec![aff(&[1], 1)] })])],
        );
        assert!(matches!(verdict(&p, "vectorize(L0:4)"), Verdict::Illegal(_)));
        assert_eq!(verdict(&p, "unroll(L0:4)"), Verdict::Legal);
        // Fewer iterations than lanes: all of them run in the scalar remainder, in order.
        assert_eq!(verdict(&p, "vectorize(L0:16)"), Verdict::Legal);
    }

    #[test]
    fn a_vector_remainder_runs_after_the_whole_groups() {
        // for i = 0 to 10: A[i+4] = A[i]: distance 4. By 4 lanes: groups {0..3}, {4..7},
        // then 8 and 9 one by one; every read of A[i] still follows the write of it.
        let body = |d| vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[1], 0)] }], Access { buf: 0, idx: vec![aff(&[1], d)] })];
        let p = program(vec![16], vec![lp(c(0, 0), c(0, 10), 1, body(4))]);
        assert_eq!(verdict(&p, "vectorize(L0:4)"), Verdict::Legal);
        // Distance 2 within a group of 4 is still refused.
        let p = program(vec![16], vec![lp(c(0, 0), c(0, 10), 1, body(2))]);
        assert!(matches!(verdict(&p, "vectorize(L0:4)"), Verdict::Illegal(_)));
    }

    #[test]
    fn distribution_and_fusion() {
        let a = |c| Access { buf: 0, idx: vec![aff(&[1], c)] };
        let nest = |body| program(vec![10], vec![lp(c(0, 0), c(0, 8), 1, body)]);
        // for i { A[i] = 1; A[i] = A[i] }: conflicts within one iteration only.
        assert_eq!(verdict(&nest(vec![stmt(vec![], a(0)), stmt(vec![a(0)], a(0))]), "distribute(L0)"), Verdict::Legal);
        // for i { A[i+1] = 1; A[i] = A[i] }: S0(i) before S1(i+1), kept.
        assert_eq!(verdict(&nest(vec![stmt(vec![], a(1)), stmt(vec![a(0)], a(0))]), "distribute(L0)"), Verdict::Legal);
        // for i { A[i] = A[i+1]; A[i+1] = 1 }: S1(i) writes A[i+1] before S0(i+1) does;
        // distributed, every S0 runs first.
        assert!(matches!(verdict(&nest(vec![stmt(vec![a(1)], a(0)), stmt(vec![], a(1))]), "distribute(L0)"), Verdict::Illegal(_)));
        // Two nests: A[i] = 1, then A[i] = A[i+1]: fused, A[i+1] is read before it is written.
        let two = program(
            vec![10],
            vec![lp(c(0, 0), c(0, 8), 1, vec![stmt(vec![], a(0))]), lp(c(0, 0), c(0, 8), 1, vec![stmt(vec![a(1)], a(0))])],
        );
        assert!(matches!(verdict(&two, "fuse(L0, L1, 1)"), Verdict::Illegal(_)));
        // A[i] = 1, then A[i] = A[i]: fusion keeps every pair in order.
        let fine = program(
            vec![10],
            vec![lp(c(0, 0), c(0, 8), 1, vec![stmt(vec![], a(0))]), lp(c(0, 0), c(0, 8), 1, vec![stmt(vec![a(0)], a(0))])],
        );
        assert_eq!(verdict(&fine, "fuse(L0, L1, 1)"), Verdict::Legal);
    }

    #[test]
    fn unrolled_loops_keep_their_dependences() {
        // for d = 2 to 11: A[d-2] = A[d-1]: an anti-dependence of distance 1.
        let p = program(
            vec![10],
            vec![lp(c(0, 2), c(0, 11), 1, vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[1], -1)] }], Access { buf: 0, idx: vec![aff(&[1], -2)] })])],
        );
        assert!(matches!(verdict(&p, "parallelize(L0)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "unroll(L0:4); parallelize(L0)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "tile(L0:3); parallelize(L0)"), Verdict::Illegal(_)));
        assert!(matches!(verdict(&p, "tile(L0:3); parallelize(L0.t)"), Verdict::Illegal(_)));
    }

    #[test]
    fn unrolling_a_tiled_loop_peels_its_partial_tile() {
        // for i = 0 to 10: A[i] = A[i] + A[9]. In tiles of 4 the last tile [8, 10) writes
        // A[9], which every earlier tile reads: the tile loop carries that dependence.
        let p = program(
            vec![10],
            vec![lp(c(0, 0), c(0, 10), 1, vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[1], 0)] }, Access { buf: 0, idx: vec![aff(&[0], 9)] }], Access { buf: 0, idx: vec![aff(&[1], 0)] })])],
        );
        assert!(matches!(verdict(&p, "tile(L0:4); parallelize(L0.t)"), Verdict::Illegal(_)));
        // Unrolling the point loop peels the last tile into a copy after the tile loop: the
        // full tiles left in it only read A[9].
        assert_eq!(verdict(&p, "tile(L0:4); unroll(L0:2); parallelize(L0.t)"), Verdict::Legal);
        assert_eq!(verdict(&p, "tile(L0:4); vectorize(L0:2); parallelize(L0.t)"), Verdict::Legal);
        // Whole tiles (5 divides 10): nothing is peeled, the last tile stays in the loop.
        assert!(matches!(verdict(&p, "tile(L0:5); unroll(L0:2); parallelize(L0.t)"), Verdict::Illegal(_)));
    }

    #[test]
    fn empty_iterations_and_unroll() {
        // for i = 0 to 8 { for j = i to 4 { A[j] += 1 } }: legal to unroll j.
        let p = program(
            vec![8],
            vec![lp(
                c(0, 0),
                c(0, 8),
                1,
                vec![lp(aff(&[1], 0), c(1, 4), 1, vec![stmt(vec![Access { buf: 0, idx: vec![aff(&[0, 1], 0)] }], Access { buf: 0, idx: vec![aff(&[0, 1], 0)] })])],
            )],
        );
        assert_eq!(verdict(&p, "unroll(L0.0:4)"), Verdict::Legal);
        // Interchange of a triangular band only reorders iterations: each A[j] is still
        // updated in increasing i (the pass refuses it as not rectangular, a structural
        // refusal, not a claimed dependence).
        assert_eq!(verdict(&p, "interchange(L0.0, L0)"), Verdict::Legal);
        assert!(matches!(verdict(&p, "tile(L0:2, L0.0:2)"), Verdict::Unknown(_)));
    }
}
