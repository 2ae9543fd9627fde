//! `parallelize(L0)`: run the iterations of a loop in parallel (lowered to OpenMP). The
//! loop becomes an `affine.parallel` and its name is gone for later steps.

use super::{Memo, Names, Stage, TransformKind};
use crate::features::layout::Kind as FieldKind;
use crate::ir::Program;
use crate::schedule::tree::{LoopAt, Scheduled, TreeError};
use crate::schedule::{LoopName, ParseError, Parser};
use crate::transform::ffi::{self, Call};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Parallelize {
    pub target: LoopName,
}

impl TransformKind for Parallelize {
    const NAME: &'static str = "parallelize";
    /// Parallelize.cpp checks the dependences inside the named loop and rewrites it in place.
    const LOCAL: bool = true;
    const SINCE_LAYOUT: u32 = 1;
    const FEATURES: &'static [(&'static str, FieldKind)] =
        &[("parallel", FieldKind::Bool), ("tile_loop_parallel", FieldKind::Bool)];
    const WALK_PROBABILITY: f64 = 0.5;
    const STRUCTURAL: bool = false;
    const HAS_COMBINATIONS: bool = true;

    fn parse(p: &mut Parser) -> Result<Self, ParseError> {
        Ok(Parallelize { target: p.loop_name()? })
    }

    fn write_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.target)
    }

    fn loops(&self) -> Vec<&LoopName> {
        vec![&self.target]
    }

    fn rename(&self, names: &mut Names) -> Result<(), String> {
        names.consume(self.target.as_str(), Self::NAME);
        Ok(())
    }

    fn reshape(&self, tree: &mut Scheduled, step: usize) -> Result<(), TreeError> {
        let (ent, _) = tree.resolve(step, &self.target)?;
        tree.set_tag(ent, Stage::Parallelize, 1);
        Ok(())
    }

    fn features(_program: &Program, tree: &Scheduled, at: &LoopAt, set: &mut dyn FnMut(&'static str, f64)) {
        set("parallel", tree.tag(at.point, Stage::Parallelize).is_some() as u8 as f64);
        // A tile loop of either level (a model that sees second-level tiles tells them
        // apart by their depth).
        let tile_parallel = [at.tile, at.tile2].iter().any(|e| tree.tag(*e, Stage::Parallelize).is_some());
        set("tile_loop_parallel", tile_parallel as u8 as f64);
    }

    /// The two outermost loops of every chain that may run more than once (a loop known to
    /// run once, as a batch of one or a group of one channel, has nothing to share).
    fn candidates(program: &Program, tree: &Scheduled) -> Vec<Self> {
        let mut out = Vec::new();
        for chain in tree.chains() {
            let shared = chain.iter().filter(|n| tree.trip_count(program, **n).is_none_or(|t| t > 1));
            for n in shared.take(2) {
                out.push(Parallelize { target: tree.name(program, *n) });
            }
        }
        out
    }

    /// The outermost legal loop of each nest, never one inside another.
    fn combinations(program: &Program, tree: &Scheduled, legal: &[Self]) -> Vec<Vec<Self>> {
        let mut chosen: Vec<(usize, &Self)> = Vec::new();
        for t in legal {
            let Some(n) = tree.node_named(program, &t.target) else { continue };
            if chosen.iter().all(|&(c, _)| c != n && !tree.inside(n, c) && !tree.inside(c, n)) {
                chosen.push((n, t));
            }
        }
        if chosen.len() >= 2 {
            vec![chosen.into_iter().map(|(_, t)| t.clone()).collect()]
        } else {
            Vec::new()
        }
    }

    fn apply(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_parallelize(call.func, name.as_ptr(), report, ctx) }
    }

    /// The dependence analysis decides alone (affineParallelize itself does not refuse what
    /// it passed): learned once per loop name of a search state, for its plain step and
    /// every combination that starts from it.
    fn check_in_place(&self, call: &mut Call, memo: &mut Memo) -> Option<i32> {
        let key = format!("parallelize {}", self.target);
        let verdict = memo.entry(key).or_insert_with(|| {
            let mut probe = Call::new(call.func);
            let status = self.probe(&mut probe, true);
            if status == ffi::AUTOSCHED_TX_OK as i32 {
                Ok(Vec::new())
            } else {
                Err((status, probe.into_reason()))
            }
        });
        match verdict {
            Ok(_) => Some(ffi::AUTOSCHED_TX_OK as i32),
            Err((status, why)) => {
                call.say(why);
                Some(*status)
            }
        }
    }

    fn check_given_dependences(&self, call: &mut Call) -> Option<i32> {
        Some(self.probe(call, false))
    }

    fn apply_checked(&self, call: &mut Call) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live; the name outlives the call.
        unsafe { ffi::autosched_tx_parallelize_checked(call.func, name.as_ptr(), report, ctx) }
    }
}

impl Parallelize {
    /// Parallelize.cpp's checks on `call.func` without changing it (the dependence analysis
    /// only with `dependences`).
    fn probe(&self, call: &mut Call, dependences: bool) -> i32 {
        let name = ffi::cstring(self.target.as_str());
        let (report, ctx) = call.report();
        // SAFETY: the clone is live and only read; the name outlives the call.
        unsafe { ffi::autosched_tx_parallelize_check(call.func, name.as_ptr(), dependences as i32, report, ctx) }
    }
}
