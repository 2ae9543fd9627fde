//! `report`: the pass's decisions in a declared machine-readable form (`report=PATH`,
//! `autosched optimize --report`): one JSON object per function, one per line.
//!
//! [`DecisionReport`] is the schema: its serde form is what is written, and
//! `src/report.schema.json` is generated from it (`schemars`) and checked by a test, so the
//! documented schema cannot drift from what is written. Tools read this, never remark text.
//! Readers ignore fields they do not know, so adding a field is compatible; removing or changing one bumps
//! [`REPORT_SCHEMA_VERSION`].

use crate::search::{Decision, Source};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// How many of the search's best schedules a report lists.
pub const REPORTED_CANDIDATES: usize = 10;

/// One function's decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DecisionReport {
    /// [`REPORT_SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The function's symbol name.
    pub function: String,
    /// The canonical hash of the function before the pass (the tuning records' key).
    pub function_hash: String,
    /// `model`, `execution` or `hybrid`.
    pub evaluator: String,
    /// Where the schedule came from.
    pub source: DecisionSource,
    /// The chosen schedule in the schedule language ('' keeps the original).
    pub schedule: String,
    /// Whether the IR was changed.
    pub applied: bool,
    /// Why the original was kept, when it was.
    pub kept: Option<String>,
    /// The model's predicted speedup of the schedule over the original.
    pub predicted: Option<Prediction>,
    /// The measured speedup of the schedule over the original (median over repetitions,
    /// both measured in one run; from the records when `source` is `records`).
    pub measured: Option<f64>,
    /// The original's median run time in the final measurement, in seconds.
    pub original_seconds: Option<f64>,
    /// The tuning record the decision was taken from.
    pub record: Option<RecordSummary>,
    /// Schedules the search proposed and scored (with hybrid's searches from the fusions its
    /// beam dropped).
    pub proposed: usize,
    pub scored: usize,
    /// Compile-and-run measurements made.
    pub measurements: usize,
    pub search_seconds: f64,
    pub measure_seconds: f64,
    /// The finalists measured against the original, with their speedups.
    pub finalists: Vec<MeasuredSchedule>,
    /// The search's best schedules (at most [`REPORTED_CANDIDATES`]), best first, with the
    /// evaluator's score relative to the original's.
    pub candidates: Vec<RankedSchedule>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
    /// The code generation options the function was given (its measured speedups were taken
    /// with them); absent in reports written before they existed.
    #[serde(default)]
    pub codegen: CodegenOptions,
    /// The vector width a measuring evaluator chose for the function over LLVM's default, set
    /// with the schedule as `prefer-vector-width` (`measured` is the speedup at it); absent
    /// where none was chosen, and in reports written before such a choice existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_width: Option<ChosenWidth>,
}

/// A vector width chosen by measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChosenWidth {
    /// The width LLVM was asked to vectorize for, in bits.
    pub bits: u32,
    /// The schedule's measured speedup over the original at this width, and at LLVM's default
    /// width in the same run (from the tuning records: its figure among the finalists).
    pub speedup: f64,
    pub default_width_speedup: f64,
}

/// The pass's code generation options (`fp-contract=`, `prefer-vector-width=`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CodegenOptions {
    /// The floating-point arithmetic was marked `fastmath<contract>`.
    pub fp_contract: bool,
    /// LLVM was asked to vectorize for vectors of this many bits (none: its default).
    pub prefer_vector_width: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DecisionSource {
    /// This run's search.
    Search,
    /// The tuning records (no search).
    Records,
    /// The `schedule=` option.
    Explicit,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Prediction {
    pub speedup: f32,
    /// The ensemble's or the error model's interval `[low, high]`, when it has one.
    pub interval: Option<[f32; 2]>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordSummary {
    /// Unix seconds of the measurement.
    pub measured_at: i64,
    /// The evaluator of the run that measured it.
    pub evaluator: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeasuredSchedule {
    pub schedule: String,
    pub speedup: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RankedSchedule {
    pub schedule: String,
    /// The evaluator's score over the original's: a predicted speedup (model, hybrid) or a
    /// measured one (execution).
    pub relative_score: f32,
}

impl DecisionReport {
    /// The report of `decision` for `function`.
    pub fn new(function: &str, function_hash: &str, evaluator: &str, decision: &Decision, applied: bool) -> Self {
        let identity = decision.ranked.iter().find(|s| s.schedule.is_identity()).map(|s| s.score);
        let (source, record) = match &decision.source {
            Source::Search => (DecisionSource::Search, None),
            Source::Records(o) => (
                DecisionSource::Records,
                Some(RecordSummary { measured_at: o.measured_at, evaluator: o.evaluator.clone() }),
            ),
        };
        DecisionReport {
            schema_version: REPORT_SCHEMA_VERSION,
            function: function.into(),
            function_hash: function_hash.into(),
            evaluator: evaluator.into(),
            source,
            schedule: decision.schedule.to_string(),
            applied,
            kept: decision.kept.clone(),
            predicted: decision
                .predicted
                .map(|speedup| Prediction { speedup, interval: decision.predicted_interval.map(|(lo, hi)| [lo, hi]) }),
            measured: decision.measured,
            original_seconds: decision.original_seconds,
            record,
            proposed: decision.proposed,
            scored: decision.scored,
            measurements: decision.measurements,
            search_seconds: decision.search_seconds,
            measure_seconds: decision.measure_seconds,
            finalists: decision
                .finalists
                .iter()
                .map(|(s, m)| MeasuredSchedule { schedule: s.to_string(), speedup: *m })
                .collect(),
            candidates: decision
                .ranked
                .iter()
                .take(REPORTED_CANDIDATES)
                .map(|s| RankedSchedule {
                    schedule: s.schedule.to_string(),
                    relative_score: identity.filter(|&i| i > 0.0).map_or(s.score, |i| s.score / i),
                })
                .collect(),
            warnings: decision.warnings.clone(),
            notes: decision.notes.clone(),
            codegen: CodegenOptions::default(),
            vector_width: decision
                .vector_width
                .map(|w| ChosenWidth { bits: w.bits, speedup: w.speedup, default_width_speedup: w.default_speedup }),
        }
    }

    /// The report with the code generation options the function was given.
    pub fn with_codegen(mut self, fp_contract: bool, prefer_vector_width: Option<u32>) -> Self {
        self.codegen = CodegenOptions { fp_contract, prefer_vector_width };
        self
    }

    /// The report of an explicit `schedule=`.
    pub fn explicit(function: &str, function_hash: &str, schedule: &str, predicted: Option<f32>) -> Self {
        let mut d = Decision::without_search(crate::schedule::Schedule::default(), Source::Search);
        d.predicted = predicted;
        let mut r = DecisionReport::new(function, function_hash, "model", &d, true);
        r.source = DecisionSource::Explicit;
        r.schedule = schedule.into();
        r
    }
}

/// The JSON Schema of a report line, as `src/report.schema.json` holds it.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(DecisionReport);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schema is the one the types generate. To update it after a deliberate
    /// change: `UPDATE_SCHEMA=1 cargo test --lib report`.
    #[test]
    fn the_committed_schema_is_generated_from_the_types() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report.schema.json");
        let generated = schema_json();
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == generated, "src/report.schema.json is stale: run UPDATE_SCHEMA=1 cargo test --lib report");
    }

    #[test]
    fn a_report_round_trips() {
        let mut d = Decision::without_search("tile(L0:32); parallelize(L0.t)".parse().unwrap(), Source::Search);
        d.predicted = Some(2.5);
        d.predicted_interval = Some((1.5, 3.0));
        d.measured = Some(2.1);
        d.finalists = vec![("tile(L0:32); parallelize(L0.t)".parse().unwrap(), 2.1)];
        let r = DecisionReport::new("f", "00ff", "hybrid", &d, true);
        let text = serde_json::to_string(&r).unwrap();
        let back: DecisionReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.predicted.as_ref().unwrap().interval, Some([1.5, 3.0]));
        // A reader of this version ignores fields a later version adds.
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["added_later"] = serde_json::json!(1);
        assert_eq!(serde_json::from_value::<DecisionReport>(v).unwrap(), r);
        assert!(text.contains("\"source\":\"search\""));
        // The code generation options round-trip; a line written before they existed reads
        // as the defaults.
        let r = r.with_codegen(true, Some(512));
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"codegen\":{\"fp_contract\":true,\"prefer_vector_width\":512}"), "{text}");
        assert_eq!(serde_json::from_str::<DecisionReport>(&text).unwrap(), r);
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old.as_object_mut().unwrap().remove("codegen");
        assert_eq!(serde_json::from_value::<DecisionReport>(old).unwrap().codegen, CodegenOptions::default());
        // A vector width chosen by measurement is written only where there is one.
        assert!(!text.contains("vector_width\":{"), "{text}");
        d.vector_width = Some(crate::search::WiderVectors { bits: 512, speedup: 2.6, default_speedup: 2.1 });
        d.measured = Some(2.6);
        let r = DecisionReport::new("f", "00ff", "hybrid", &d, true);
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"vector_width\":{\"bits\":512,\"speedup\":2.6,\"default_width_speedup\":2.1}"), "{text}");
        assert_eq!(serde_json::from_str::<DecisionReport>(&text).unwrap(), r);
    }
}
