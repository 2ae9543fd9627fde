//! `search`: beam search over schedules, scored by the cost model (the seeds' search, thesis
//! §4.2): stages in a fixed order, each expanding every beam state with its legal
//! candidates, all children of a stage scored in one batched model call, the best
//! `beam_width` kept (a state may also skip a stage), at most `max_depth` steps.
//! Deterministic: candidates come in a fixed order and ties break on the schedule's text.

pub mod candidates;

use crate::cost_model::{CostModel, ModelError};
use crate::features::{featurize, Featurized};
use crate::ir::{mlir::Op, Program};
use crate::schedule::Schedule;
use crate::transform;
use candidates::{candidates, STAGES};
use std::collections::HashSet;
use std::time::Instant;

#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    pub beam_width: usize,
    pub max_depth: usize,
}

/// A scored schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub schedule: Schedule,
    pub predicted: f32,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Every legal schedule scored, best first (the identity among them).
    pub ranked: Vec<Scored>,
    /// Candidates proposed, and those the legality checks accepted (and the model scored).
    pub proposed: usize,
    pub scored: usize,
    pub seconds: f64,
}

impl SearchResult {
    pub fn best(&self) -> &Scored {
        &self.ranked[0]
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the cost model failed: {0}")]
    Model(#[from] ModelError),
    #[error("the identity cannot be featurized: {0}")]
    Features(String),
}

fn order(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    b.predicted.total_cmp(&a.predicted).then_with(|| a.schedule.to_string().cmp(&b.schedule.to_string()))
}

/// Searches schedules for `func` (whose representation is `program`), scoring with `model`.
/// `func` is not changed.
pub fn beam_search(func: Op, program: &Program, model: &CostModel, cfg: SearchConfig) -> Result<SearchResult, SearchError> {
    let started = Instant::now();
    let identity = Schedule::default();
    let f = featurize(program, &identity).map_err(|e| SearchError::Features(e.to_string()))?;
    let base = model.predict(&[&f])?[0];
    let mut beam = vec![Scored { schedule: identity.clone(), predicted: base }];
    let mut all = beam.clone();
    let mut seen: HashSet<String> = HashSet::from([identity.to_string()]);
    let (mut proposed, mut scored) = (0, 1);
    for stage in STAGES {
        let mut children: Vec<(Schedule, Featurized)> = Vec::new();
        for state in &beam {
            if state.schedule.steps.len() >= cfg.max_depth {
                continue;
            }
            for step in candidates(program, &state.schedule, stage) {
                let mut s = state.schedule.clone();
                s.steps.push(step);
                proposed += 1;
                if !seen.insert(s.to_string()) {
                    continue;
                }
                if let Err(e) = transform::check(func, &s) {
                    log::trace!("{s}: {e}");
                    continue;
                }
                match featurize(program, &s) {
                    Ok(f) => children.push((s, f)),
                    Err(e) => log::debug!("{s}: not featurized: {e}"),
                }
            }
        }
        if children.is_empty() {
            continue;
        }
        let mut next: Vec<Scored> = beam.clone();
        for chunk in children.chunks(64) {
            let refs: Vec<&Featurized> = chunk.iter().map(|(_, f)| f).collect();
            let predicted = model.predict(&refs)?;
            for ((s, _), p) in chunk.iter().zip(predicted) {
                next.push(Scored { schedule: s.clone(), predicted: p });
                all.push(Scored { schedule: s.clone(), predicted: p });
            }
            scored += chunk.len();
        }
        next.sort_by(order);
        next.truncate(cfg.beam_width.max(1));
        log::debug!("{stage:?}: {} children, best {} ({:.3}x)", children.len(), next[0].schedule, next[0].predicted);
        beam = next;
    }
    all.sort_by(order);
    Ok(SearchResult { ranked: all, proposed, scored, seconds: started.elapsed().as_secs_f64() })
}
