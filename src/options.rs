//! The pass options, their defaults and their valid ranges: defined once, here.
//!
//! The C++ pass declares the same options to MLIR's option parser (which rejects text that
//! is not a bool/int at all) and hands the parsed values to [`PassOptions::validate`], which
//! rejects values out of range with an error naming the option.

use crate::schedule::{ParseError, ScheduleSpec};
use std::path::PathBuf;
use std::str::FromStr;

/// How candidate schedules are scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Evaluator {
    /// The learned cost model (ONNX).
    #[default]
    Model,
    /// Compile and run every candidate.
    Execution,
    /// Search with the model, then run the best finalists and keep the fastest.
    Hybrid,
}

impl Evaluator {
    pub fn name(self) -> &'static str {
        match self {
            Evaluator::Model => "model",
            Evaluator::Execution => "execution",
            Evaluator::Hybrid => "hybrid",
        }
    }
}

impl FromStr for Evaluator {
    type Err = OptionError;
    fn from_str(s: &str) -> Result<Self, OptionError> {
        match s {
            "model" => Ok(Evaluator::Model),
            "execution" => Ok(Evaluator::Execution),
            "hybrid" => Ok(Evaluator::Hybrid),
            _ => Err(OptionError::BadEnum { option: "evaluator", value: s.into(), allowed: "model, execution, hybrid" }),
        }
    }
}

pub const DEFAULT_BEAM_WIDTH: i64 = 8;
pub const MAX_BEAM_WIDTH: i64 = 256;
// Steps on one nest (`Schedule::depth`): a register tile and its parallelization take 7-9.
pub const DEFAULT_MAX_DEPTH: i64 = 12;
pub const MAX_SCHEDULE_LENGTH: i64 = 32;
pub const DEFAULT_MEASURE_TOP_K: i64 = 3;
pub const MAX_MEASURE_TOP_K: i64 = 64;
/// Model mode applies a schedule only when the model gives at least this probability (in
/// percent) that it beats the original by the margin: the low end of the model's interval
/// at this one-sided level. 90 is the low end of the 80% interval the shipped model is
/// calibrated to; 50 is the point estimate. onnx/coverage_sweep.py shows the trade-off.
pub const DEFAULT_CONFIDENCE: i64 = 90;
pub const MIN_CONFIDENCE: i64 = 50;
pub const MAX_CONFIDENCE: i64 = 99;

/// Options as the user wrote them (after MLIR parsed the scalars).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawOptions {
    pub dump_representation: bool,
    pub dump_file: String,
    pub schedule: String,
    pub beam_width: i64,
    pub max_depth: i64,
    pub model: String,
    pub evaluator: String,
    pub measure_top_k: i64,
    pub confidence: i64,
    pub records: String,
    pub report: String,
    pub emit_transform: String,
    pub fp_contract: bool,
    pub prefer_vector_width: i64,
}

impl Default for RawOptions {
    fn default() -> Self {
        RawOptions {
            dump_representation: false,
            dump_file: String::new(),
            schedule: String::new(),
            beam_width: DEFAULT_BEAM_WIDTH,
            max_depth: DEFAULT_MAX_DEPTH,
            model: String::new(),
            evaluator: "model".into(),
            measure_top_k: DEFAULT_MEASURE_TOP_K,
            confidence: DEFAULT_CONFIDENCE,
            records: String::new(),
            report: String::new(),
            emit_transform: String::new(),
            fp_contract: false,
            prefer_vector_width: 0,
        }
    }
}

/// Validated options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    pub dump_representation: bool,
    pub dump_file: Option<PathBuf>,
    pub schedule: Option<ScheduleSpec>,
    pub beam_width: usize,
    pub max_depth: usize,
    pub model: Option<PathBuf>,
    pub evaluator: Evaluator,
    pub measure_top_k: usize,
    /// Model mode: the one-sided level, in percent, of the interval end that must clear the margin.
    pub confidence: usize,
    /// The tuning records database (`records=`).
    pub records: Option<PathBuf>,
    /// Where each function's decision is written as a JSON line (`report=`).
    pub report: Option<PathBuf>,
    /// Where the chosen schedules are written as a Transform-dialect script (`emit-transform=`).
    pub emit_transform: Option<PathBuf>,
    /// Mark the function's floating-point adds, subtracts and multiplies
    /// `fastmath<contract>` (`fp-contract=true`): a permission that changes rounding, so
    /// never the default and never a schedule step.
    pub fp_contract: bool,
    /// The vector width (bits) LLVM is asked to prefer for the function
    /// (`prefer-vector-width`; None: as LLVM chooses).
    pub prefer_vector_width: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("option '{option}' must be in [{min}, {max}], got {value}")]
    OutOfRange { option: &'static str, value: i64, min: i64, max: i64 },
    #[error("option '{option}' must be one of {allowed}, got '{value}'")]
    BadEnum { option: &'static str, value: String, allowed: &'static str },
    #[error("option 'model': no model file at '{0}'")]
    MissingModel(String),
    #[error("option 'model': {0}")]
    Model(String),
    #[error("option 'dump-file': cannot write '{path}': {reason}")]
    DumpFile { path: String, reason: String },
    #[error("options: {0}")]
    Syntax(String),
    #[error("option 'records': {0}")]
    Records(String),
    #[error("option 'emit-transform': cannot write '{path}': {reason}")]
    EmitTransform { path: String, reason: String },
    #[error("option 'report': cannot write '{path}': {reason}")]
    Report { path: String, reason: String },
    #[error("option 'schedule': {0}")]
    Schedule(#[from] ParseError),
}

fn in_range(option: &'static str, value: i64, min: i64, max: i64) -> Result<usize, OptionError> {
    if (min..=max).contains(&value) {
        Ok(value as usize)
    } else {
        Err(OptionError::OutOfRange { option, value, min, max })
    }
}

impl RawOptions {
    /// Options written as the pass takes them between braces, `key=value` separated by
    /// spaces (`evaluator=hybrid beam-width=4`); a value may be quoted ("...") to hold
    /// spaces. For `transform.autosched.optimize`.
    pub fn from_text(text: &str) -> Result<RawOptions, OptionError> {
        let mut o = RawOptions::default();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=').ok_or_else(|| OptionError::Syntax(format!("expected key=value at '{rest}'")))?;
            let key = key.trim();
            let after = after.trim_start();
            let (value, next) = match after.strip_prefix('"') {
                Some(q) => {
                    let end = q.find('"').ok_or_else(|| OptionError::Syntax(format!("unterminated quote after '{key}='")))?;
                    (&q[..end], &q[end + 1..])
                }
                None => after.split_at(after.find(char::is_whitespace).unwrap_or(after.len())),
            };
            let int = |option: &'static str| {
                value.parse::<i64>().map_err(|_| OptionError::Syntax(format!("option '{option}' takes an integer, got '{value}'")))
            };
            let boolean = |option: &'static str| match value {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(OptionError::BadEnum { option, value: value.into(), allowed: "true, false" }),
            };
            match key {
                "dump-representation" => o.dump_representation = boolean("dump-representation")?,
                "fp-contract" => o.fp_contract = boolean("fp-contract")?,
                "prefer-vector-width" => o.prefer_vector_width = int("prefer-vector-width")?,
                "dump-file" => o.dump_file = value.into(),
                "schedule" => o.schedule = value.into(),
                "beam-width" => o.beam_width = int("beam-width")?,
                "max-depth" => o.max_depth = int("max-depth")?,
                "model" => o.model = value.into(),
                "evaluator" => o.evaluator = value.into(),
                "measure-top-k" => o.measure_top_k = int("measure-top-k")?,
                "confidence" => o.confidence = int("confidence")?,
                "records" => o.records = value.into(),
                "report" => o.report = value.into(),
                "emit-transform" => o.emit_transform = value.into(),
                other => return Err(OptionError::Syntax(format!("no option named '{other}'"))),
            }
            rest = next.trim_start();
        }
        Ok(o)
    }

    pub fn validate(&self) -> Result<PassOptions, OptionError> {
        let beam_width = in_range("beam-width", self.beam_width, 1, MAX_BEAM_WIDTH)?;
        let max_depth = in_range("max-depth", self.max_depth, 0, MAX_SCHEDULE_LENGTH)?;
        let measure_top_k = in_range("measure-top-k", self.measure_top_k, 1, MAX_MEASURE_TOP_K)?;
        let confidence = in_range("confidence", self.confidence, MIN_CONFIDENCE, MAX_CONFIDENCE)?;
        let evaluator = self.evaluator.trim().parse()?;
        let model = match self.model.trim() {
            "" => None,
            p if std::path::Path::new(p).is_file() => Some(PathBuf::from(p)),
            p => return Err(OptionError::MissingModel(p.into())),
        };
        let schedule = match self.schedule.trim() {
            "" => None,
            _ => Some(self.schedule.parse::<ScheduleSpec>()?),
        };
        let path = |p: &str| match p.trim() {
            "" => None,
            p => Some(PathBuf::from(p)),
        };
        let dump_file = path(&self.dump_file);
        let prefer_vector_width = match self.prefer_vector_width {
            0 => None,
            w @ (128 | 256 | 512) => Some(w as u32),
            w => return Err(OptionError::BadEnum { option: "prefer-vector-width", value: w.to_string(), allowed: "0, 128, 256, 512" }),
        };
        Ok(PassOptions {
            dump_representation: self.dump_representation,
            dump_file,
            schedule,
            beam_width,
            max_depth,
            model,
            evaluator,
            measure_top_k,
            confidence,
            records: path(&self.records),
            report: path(&self.report),
            emit_transform: path(&self.emit_transform),
            fp_contract: self.fp_contract,
            prefer_vector_width,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate() {
        let o = RawOptions::default().validate().unwrap();
        assert_eq!(o.beam_width, DEFAULT_BEAM_WIDTH as usize);
        assert_eq!(o.evaluator, Evaluator::Model);
        assert_eq!(o.model, None);
    }

    #[test]
    fn out_of_range_names_the_option() {
        let o = RawOptions { beam_width: 0, ..Default::default() };
        let e = o.validate().unwrap_err().to_string();
        assert!(e.contains("'beam-width'") && e.contains("got 0"), "{e}");
        let o = RawOptions { max_depth: 99, ..Default::default() };
        assert!(o.validate().unwrap_err().to_string().contains("'max-depth'"));
        let o = RawOptions { measure_top_k: -1, ..Default::default() };
        assert!(o.validate().unwrap_err().to_string().contains("'measure-top-k'"));
        for bad in [49, 100] {
            let o = RawOptions { confidence: bad, ..Default::default() };
            assert!(o.validate().unwrap_err().to_string().contains("'confidence' must be in [50, 99]"));
        }
        assert_eq!(RawOptions::from_text("confidence=75").unwrap().validate().unwrap().confidence, 75);
    }

    #[test]
    fn evaluator_must_be_known() {
        for ok in ["model", "execution", "hybrid"] {
            let o = RawOptions { evaluator: ok.into(), ..Default::default() };
            assert!(o.validate().is_ok());
        }
        let o = RawOptions { evaluator: "magic".into(), ..Default::default() };
        let e = o.validate().unwrap_err().to_string();
        assert!(e.contains("'evaluator'") && e.contains("magic"), "{e}");
    }

    #[test]
    fn schedule_is_parsed_with_its_errors() {
        let o = RawOptions { schedule: "@f: tile(L0:32); parallelize(L0.t)".into(), ..Default::default() };
        let spec = o.validate().unwrap().schedule.unwrap();
        assert_eq!(spec.schedule.steps.len(), 2);
        let o = RawOptions { schedule: "tile(L0:1)".into(), ..Default::default() };
        let e = o.validate().unwrap_err().to_string();
        assert!(e.starts_with("option 'schedule': schedule:9: a tile size must be in"), "{e}");
    }

    #[test]
    fn options_are_read_from_their_text_form() {
        let o = RawOptions::from_text(r#"evaluator=hybrid  beam-width=4 schedule="tile(L0:32); parallelize(L0.t)""#).unwrap();
        assert_eq!((o.evaluator.as_str(), o.beam_width), ("hybrid", 4));
        assert_eq!(o.schedule, "tile(L0:32); parallelize(L0.t)");
        assert!(!o.fp_contract);
        assert!(RawOptions::from_text("fp-contract=true").unwrap().validate().unwrap().fp_contract);
        assert_eq!(RawOptions::from_text("prefer-vector-width=512").unwrap().validate().unwrap().prefer_vector_width, Some(512));
        assert_eq!(RawOptions::default().validate().unwrap().prefer_vector_width, None);
        let e = RawOptions::from_text("prefer-vector-width=384").unwrap().validate().unwrap_err().to_string();
        assert!(e.contains("'prefer-vector-width' must be one of 0, 128, 256, 512, got '384'"), "{e}");
        let e = RawOptions::from_text("fp-contract=fast").unwrap_err().to_string();
        assert!(e.contains("'fp-contract'") && e.contains("true, false"), "{e}");
        assert_eq!(RawOptions::from_text("").unwrap(), RawOptions::default());
        for (bad, says) in [("beam-width=four", "'beam-width'"), ("colour=red", "'colour'"), ("evaluator", "key=value"), ("schedule=\"x", "quote")] {
            let e = RawOptions::from_text(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn missing_model_is_an_error() {
        let o = RawOptions { model: "/nonexistent/model.onnx".into(), ..Default::default() };
        assert!(matches!(o.validate(), Err(OptionError::MissingModel(_))));
    }
}
