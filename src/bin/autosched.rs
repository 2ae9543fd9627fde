//! `autosched`: the command line of affine-autosched.

use affine_autosched::schedule::ScheduleSpec;
use affine_autosched::measure::{self, Comparison, MeasureConfig};
use affine_autosched::cost_model::{self, CostModel};
use affine_autosched::{features, mlir::LoadedModule, pass, transform};

#[derive(clap::Args)]
struct RunArgs {
    file: PathBuf,
    /// The schedule to compare with the original (optional).
    #[arg(long, short)]
    schedule: Option<String>,
    /// The function to run (default: the only function with a body).
    #[arg(long)]
    function: Option<String>,
    /// Timed runs per variant (the median is reported).
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Untimed runs per variant first.
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// OpenMP threads for parallel loops (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Kill the program after this many seconds.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Compare float outputs with this relative tolerance instead of bit for bit (for
    /// schedules that reassociate reductions).
    #[arg(long)]
    tolerance: Option<f64>,
    /// Keep the generated files (MLIR, LLVM IR, libraries, driver) in this directory.
    #[arg(long)]
    keep: Option<PathBuf>,
    /// Floating-point operations per run, to print GFLOP/s.
    #[arg(long)]
    flops: Option<f64>,
    /// Another variant to run next to the original, as LABEL=PATH: an MLIR file holding
    /// the same function (e.g. the output of a pass pipeline), or a shared library
    /// exporting `_mlir_ciface_<function>` (e.g. C compiled with `autosched c-wrapper`'s
    /// wrapper). Repeatable.
    #[arg(long = "variant")]
    variants: Vec<String>,
    /// Compare float outputs within this error relative to each reference buffer's
    /// largest magnitude (for code from other compilers).
    #[arg(long)]
    normalized_tolerance: Option<f64>,
    /// Also write every timing and verdict to this JSON file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Add the measured schedule (--schedule) to this tuning records database.
    #[arg(long)]
    records: Option<PathBuf>,
}
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "autosched", version, about = "A learned loop-nest optimizer for MLIR's affine dialect")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the program representation (loop tree, computations, access matrices) of every
    /// function in FILE as JSON: the same JSON as the pass's `dump-representation=true`.
    Describe {
        /// An MLIR file with affine loop nests.
        file: PathBuf,
        /// Only this function (its symbol name, without '@').
        #[arg(long)]
        function: Option<String>,
        /// One compact JSON line per function instead of a pretty-printed array.
        #[arg(long, conflicts_with = "tree")]
        lines: bool,
        /// A readable loop tree instead of JSON.
        #[arg(long)]
        tree: bool,
        /// Accept operations of unregistered dialects (as mlir-opt's flag of the same name).
        #[arg(long)]
        allow_unregistered_dialect: bool,
    },
    /// Apply an explicit schedule to every function of FILE (or the one named by an
    /// `@name:` prefix) and print the transformed module. An illegal schedule is an error
    /// naming the step and the reason; nothing is printed then.
    Apply {
        file: PathBuf,
        /// The schedule, e.g. "tile(L0:32, L0.0:32); parallelize(L0.t)".
        #[arg(long, short)]
        schedule: String,
        /// Write the module here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Also mark the floating-point adds, subtracts and multiplies fastmath<contract>
        /// (the pass's fp-contract=true): LLVM may fuse them into multiply-adds, which
        /// changes the last bits of results.
        #[arg(long)]
        fp_contract: bool,
        /// Also ask LLVM to vectorize for vectors of this many bits (the pass's
        /// prefer-vector-width: 128, 256 or 512).
        #[arg(long, value_parser = ["128", "256", "512"])]
        prefer_vector_width: Option<String>,
    },
    /// Compile FILE's function for this CPU, run it on seeded inputs and time it; with
    /// --schedule, also the transformed version, side by side: median time, spread,
    /// speedup, and whether the outputs agree.
    Run(RunArgs),
    /// Write the C source of `_mlir_ciface_<function>` that forwards to a C function of the
    /// same name taking plain pointers (PolyBench style), for running C next to MLIR with
    /// `autosched run --variant`.
    CWrapper {
        file: PathBuf,
        #[arg(long)]
        function: Option<String>,
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Generate random programs and schedules, measure them, and append the points to
    /// DIR/shard-<i>-of-<n>.jsonl (resumable: re-run the same command to continue).
    Datagen {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Programs in the whole dataset (this shard takes every n-th).
        #[arg(long, required_unless_present = "remeasure")]
        programs: Option<u64>,
        /// Schedules measured per program, besides the identity.
        #[arg(long, default_value_t = 16)]
        schedules_per_program: usize,
        /// How many of a program's schedules are long walks (a step at nearly every stage of
        /// the search, as long as the schedules it ends with) instead of short ones (each
        /// stage with its kind's probability). 0 reproduces data generated before this option
        /// existed; a program's short schedules do not depend on it.
        #[arg(long, default_value_t = 0)]
        long_walks: usize,
        /// How many are lookahead walks: long walks that take the search's lookahead
        /// sequences where a stage has them (register tiles of contraction bands, packed or
        /// not). 0 reproduces data generated before this option existed; the short and long
        /// schedules do not depend on it.
        #[arg(long, default_value_t = 0)]
        lookahead_walks: usize,
        /// Schedules measured beside the drawn ones, at most, per program, that differ from
        /// one of them only in which loops run in parallel (hybrid's parallel neighbours; a
        /// register tile's first): which loop gets the threads, with all else equal. 0
        /// reproduces data generated before this option existed; the walks do not depend on it.
        #[arg(long, default_value_t = 0)]
        parallel_neighbours: usize,
        /// Schedules measured beside the drawn ones, at most, per program, that differ from
        /// one of them only in its unrolls: replaced by each register tile the Unroll stage
        /// offers around an accumulating loop (another shape where it has one). 0 reproduces
        /// data generated before this option existed; the walks do not depend on it.
        #[arg(long, default_value_t = 0)]
        register_neighbours: usize,
        #[arg(long)]
        out: PathBuf,
        /// This shard, as i/n.
        #[arg(long, default_value = "0/1")]
        shard: String,
        #[arg(long, default_value_t = 5)]
        reps: usize,
        #[arg(long, default_value_t = 1)]
        warmup: usize,
        #[arg(long)]
        threads: Option<usize>,
        /// Hide the progress bar.
        #[arg(long)]
        quiet: bool,
        /// Skip the programs already in these merged datasets (to grow a committed one).
        #[arg(long)]
        resume_from: Vec<PathBuf>,
        /// Program sizes: `real` (identity runs of about 50 µs to seconds, working sets up to
        /// several times the last-level cache), `resident` (the real classes with working sets
        /// that stay in the caches, up to 16 MiB) or `toy` (the first dataset's: microseconds
        /// to milliseconds).
        #[arg(long, value_enum, default_value = "real")]
        sizes: affine_autosched::datagen::programs::Sizes,
        /// Draw only programs of this class, from its own stream (programs named
        /// `r<seed>-<class>-p<index>`); `wide` (pipelines of 5 to 18 statements) and `linear`
        /// (fully connected layers, GEMMs with transposed operands) are drawn only so.
        /// Without it: the mix of the size profile's classes.
        #[arg(long, value_enum)]
        class: Option<affine_autosched::datagen::programs::ProgramClass>,
        /// Measure without first waiting for other processes to leave the CPUs (by default
        /// each batch waits, up to 10 minutes, until under 15% of the CPUs are busy: a build
        /// beside a measurement spoils it). For several shards on one machine.
        #[arg(long)]
        no_quiet_wait: bool,
        /// Instead of generating programs, measure again the points of this dataset (JSON
        /// Lines, plain or .gz) whose schedule holds a `--kind` step, each program's with its
        /// identity in one batch; merge the result before the old dataset
        /// (`autosched merge NEW OLD`) to replace them.
        #[arg(long, requires = "kind")]
        remeasure: Option<PathBuf>,
        /// The transformation kind whose points `--remeasure` measures again (e.g. vectorize;
        /// `any`: every scheduled point).
        #[arg(long, requires = "remeasure")]
        kind: Option<String>,
    },
    /// Merge shard directories and JSON Lines files (plain or .gz) into one gzip-compressed
    /// JSON Lines file, without duplicate points.
    Merge {
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        out: PathBuf,
    },
    /// Turn measured datasets (JSON Lines, plain or .gz) into the tensors the trainer reads
    /// (onnx/train.py): computation vectors, tree tables, speedups, layout.json, meta.json.
    Featurize {
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        out: PathBuf,
        /// Only the first N programs (for smoke tests).
        #[arg(long)]
        programs: Option<usize>,
    },
    /// Unlabeled computation vectors for pre-training the model's computation encoder
    /// (onnx/pretrain.py): random programs under random walks through the search's space,
    /// featurized only (nothing is compiled or run). Writes OUT/vectors.npy and OUT/meta.json.
    Vectors {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        programs: u64,
        /// Schedules per program (the identity among them).
        #[arg(long, default_value_t = 16)]
        schedules: usize,
        #[arg(long, value_enum, default_value = "real")]
        sizes: affine_autosched::datagen::programs::Sizes,
        #[arg(long, short)]
        out: PathBuf,
        #[arg(long)]
        quiet: bool,
    },
    /// Predict the speedup of a schedule on every function of FILE (or the one named by an
    /// `@name:` prefix) with the cost model. The schedule is checked for legality first.
    Predict {
        file: PathBuf,
        /// The schedule (empty: the identity).
        #[arg(long, short, default_value = "")]
        schedule: String,
        /// The ONNX model (default: the shipped onnx/model.onnx).
        #[arg(long)]
        model: Option<PathBuf>,
        /// libonnxruntime.so to load (default: $AUTOSCHED_ONNXRUNTIME, else the .venv's).
        #[arg(long)]
        onnxruntime: Option<PathBuf>,
    },
    /// The analytic tile-size model's sizes for tiling a band of loops of every function of
    /// FILE (or the one named by an `@name:` prefix of the schedule), after the schedule: one
    /// JSON object per function (band, sizes, the tiling step, the bytes of lines one tile
    /// touches, the budget, lines loaded per iteration; `interleaved`: where a reduction along
    /// the innermost loop is charged as a chain, the sizes for a register tile instead: what the
    /// search is offered).
    TileSizes {
        file: PathBuf,
        /// The loops to tile, outermost first, comma-separated (names after the schedule).
        #[arg(long)]
        band: String,
        /// The schedule before the tiling (empty: the identity).
        #[arg(long, short, default_value = "")]
        schedule: String,
        /// The budget in bytes (default: half of one core's share of this machine's L2).
        #[arg(long)]
        budget: Option<u64>,
        /// The cores the band's outermost loop is shared among (default: this machine's).
        #[arg(long)]
        cores: Option<usize>,
        /// Instead of choosing, print what the model charges these sizes (comma-separated,
        /// outermost first; repeatable): one JSON object per size vector, `cost` null where
        /// its tiles do not fit the budget. For scoring the model against a measured sweep.
        #[arg(long = "sizes")]
        sizes: Vec<String>,
        /// Also the sizes for a register tile of ROWSxCOLUMNS (the unroll-and-jam factors, as
        /// `6x16`) over a band of rows, columns and reduction (`register` in the output): what
        /// the search's register-tile lookahead tiles the band at.
        #[arg(long)]
        register: Option<String>,
        /// With --register: the tile's point loops nested columns outside rows (the lookahead's
        /// order where it packs both inputs), not rows outside columns.
        #[arg(long, requires = "register")]
        columns_outside: bool,
        /// One core's share of the L1 data cache in bytes (default: this machine's).
        #[arg(long)]
        l1: Option<u64>,
        /// With --register: the vectors the function is compiled for (the pass's
        /// prefer-vector-width: 128, 256 or 512, as far as this machine has them), which the
        /// register tile's accumulators are counted in (default: the function's own
        /// prefer-vector-width in its `passthrough`, else LLVM's 256 bits).
        #[arg(long, requires = "register", value_parser = ["128", "256", "512"])]
        prefer_vector_width: Option<String>,
    },
    /// Search a schedule for every function of FILE with the cost model (beam search), apply
    /// the best, and print the module. A function stays as it is when no schedule is
    /// predicted faster than the original.
    Optimize(OptimizeArgs),
    /// Write the schedules the pass chooses for FILE (searched, or from --records) as a
    /// Transform-dialect script that `mlir-opt-22 --transform-interpreter` replays.
    ExportTransform {
        #[command(flatten)]
        args: OptimizeArgs,
        /// The script to write.
        script: PathBuf,
    },
    /// Tune every function of FILES (or of the .mlir files under directories) once, into a
    /// tuning records database that the pass's records=PATH then applies without searching.
    /// Resumable: functions the records hold for this machine are skipped.
    Tune(TuneArgs),
    /// Fine-tune the shipped cost model for this machine: measure about --budget points here
    /// (generated programs at real sizes, random walks of the search's space), fine-tune,
    /// report ranking on held-out programs measured here before and after, export --out
    /// for the pass's model= option.
    Adapt {
        /// Points to measure here (about 17 per program).
        #[arg(long)]
        budget: u64,
        /// The adapted model (ONNX).
        #[arg(long)]
        out: PathBuf,
        /// The shipped model's PyTorch weights: an ensemble's first member; the others,
        /// `<stem>.seed<K>.pt` beside it, are adapted with it.
        #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/onnx/model.pt"))]
        base: PathBuf,
        /// Where the measurements, features and checkpoints go (resumable).
        #[arg(long, default_value = "build/adapt")]
        work: PathBuf,
        /// What is fine-tuned: tree (the LSTMs and head; the computation encoder stays),
        /// head, or all.
        #[arg(long, default_value = "tree")]
        mode: String,
        #[arg(long, default_value_t = 7001)]
        seed: u64,
        #[arg(long, value_enum, default_value = "real")]
        sizes: affine_autosched::datagen::programs::Sizes,
        /// The Python with the trainer's packages (scripts/setup.sh's venv).
        #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/.venv/bin/python"))]
        python: PathBuf,
        /// Skip training a network from scratch on the same data for comparison.
        #[arg(long)]
        no_scratch: bool,
        /// Measure without first waiting for other processes to leave the CPUs (smoke runs;
        /// measurements beside other work are noisy).
        #[arg(long)]
        no_quiet_wait: bool,
        #[arg(long)]
        quiet: bool,
    },
    /// Inspect and maintain a tuning records database (records=PATH of the pass).
    Records {
        #[command(subcommand)]
        action: RecordsAction,
    },
    /// Predict every point of a dataset (JSON Lines, plain or .gz) with the model and write
    /// `program_id<TAB>schedule<TAB>measured<TAB>predicted` lines (the Rust side of the
    /// parity check, onnx/tests/test_parity.py).
    Score {
        dataset: PathBuf,
        #[arg(long)]
        model: Option<PathBuf>,
        #[arg(long)]
        onnxruntime: Option<PathBuf>,
        /// Only the programs listed in this file (one id per line).
        #[arg(long)]
        program_ids: Option<PathBuf>,
        #[arg(long, short)]
        out: PathBuf,
        /// Also time inference on batches of N candidates (the first program's points,
        /// repeated): median/min/max over 50 calls, written to OUT.timing.json.
        #[arg(long)]
        time_batch: Option<usize>,
    },
    /// Print the computation vector's layout (the JSON the trainer reads).
    Layout,
    /// Print the random program number INDEX of stream SEED (what datagen measures).
    Program {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        index: u64,
        /// Program sizes: `real` (what users run), `resident` (the real classes at sizes that
        /// stay in the caches) or `toy` (the first dataset's).
        #[arg(long, value_enum, default_value = "real")]
        sizes: affine_autosched::datagen::programs::Sizes,
        /// The program of this class's own stream (as `datagen --class`).
        #[arg(long, value_enum)]
        class: Option<affine_autosched::datagen::programs::ProgramClass>,
    },
    /// Differential fuzzing: random programs built to break loop transformations go
    /// through the pass (default search, hybrid and 512-bit vectors' search on samples, random
    /// schedules); every step
    /// is judged by an exact oracle and every result is run against the original. Appends
    /// to DIR/results.jsonl (re-run to resume); failures go to DIR/failures/. Exits with 1
    /// when anything failed.
    Fuzz(FuzzArgs),
    /// One fuzz worker (started by `autosched fuzz`; prints START/DONE lines).
    #[command(hide = true)]
    FuzzWorker {
        #[command(flatten)]
        args: FuzzArgs,
        /// Comma-separated program indices.
        #[arg(long)]
        indices: String,
    },
}

#[derive(clap::Args)]
struct TuneArgs {
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The records database (created if missing).
    #[arg(long, required = true)]
    records: PathBuf,
    /// hybrid (model search, the best --measure-top-k measured) or execution (every
    /// candidate measured).
    #[arg(long, default_value = "hybrid")]
    evaluator: String,
    /// Stop starting functions after this long (90s, 30m, 2h, 1h30m); run again to resume.
    #[arg(long)]
    budget: Option<String>,
    /// Functions searched at once (their measurements take turns; on a machine without
    /// spare cores a search beside a measurement disturbs it, so keep 1 there).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Tune only this part of the functions, I/N (for spreading over machines of one kind;
    /// merge the databases with `autosched records merge`).
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Tune again functions the records already hold for this machine.
    #[arg(long)]
    retune: bool,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_BEAM_WIDTH as usize)]
    beam_width: usize,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_MAX_DEPTH as usize)]
    max_depth: usize,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_MEASURE_TOP_K as usize)]
    measure_top_k: usize,
    #[arg(long)]
    model: Option<PathBuf>,
    #[arg(long)]
    onnxruntime: Option<PathBuf>,
    /// Also write the summary rows as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    #[arg(long)]
    quiet: bool,
}

fn tune(args: TuneArgs) -> ExitCode {
    use affine_autosched::options::Evaluator;
    use affine_autosched::search::{OptimizeConfig, SearchConfig};
    use affine_autosched::tune;
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    };
    let evaluator: Evaluator = match args.evaluator.parse() {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let budget = match args.budget.as_deref().map(tune::parse_budget).transpose() {
        Ok(b) => b,
        Err(e) => return fail(&e),
    };
    let shard = match tune::parse_shard(&args.shard) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let model = match evaluator {
        Evaluator::Hybrid => match load_model(args.model, args.onnxruntime) {
            Ok(m) => Some(m),
            Err(code) => return code,
        },
        _ => None,
    };
    let cfg = tune::TuneConfig {
        inputs: args.files,
        optimize: OptimizeConfig::new(
            SearchConfig { beam_width: args.beam_width.max(1), max_depth: args.max_depth },
            evaluator,
            args.measure_top_k.max(1),
        ),
        budget,
        jobs: args.jobs.max(1),
        shard,
        retune: args.retune,
        progress: !args.quiet,
    };
    let started = std::time::Instant::now();
    let rows = match tune::run(&cfg, &args.records, model.as_deref()) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    print!("{}", tune::summary(&rows, started.elapsed()));
    if let Some(path) = &args.json {
        if let Err(e) = std::fs::write(path, serde_json::to_string_pretty(&rows).unwrap_or_default()) {
            return fail(&format!("{}: {e}", path.display()));
        }
    }
    if rows.iter().any(|r| matches!(r.status, tune::Status::Failed(_))) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

#[derive(Subcommand)]
enum RecordsAction {
    /// One line per function and machine: the best measured schedule and its speedup.
    Show { db: PathBuf },
    /// Write every record as JSON Lines (a fixed order: diffable, reviewable).
    Export {
        db: PathBuf,
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Add the records of JSON Lines files (exports) to DB (created if missing).
    Import { db: PathBuf, files: Vec<PathBuf> },
    /// Add every record of other databases to DB (created if missing); records already
    /// there are not added twice.
    Merge { db: PathBuf, others: Vec<PathBuf> },
}

fn records_command(action: RecordsAction) -> ExitCode {
    use affine_autosched::records::Store;
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    };
    let db = match &action {
        RecordsAction::Show { db } | RecordsAction::Export { db, .. } | RecordsAction::Import { db, .. } | RecordsAction::Merge { db, .. } => db,
    };
    // Reading never creates a database (a mistyped path is an error).
    let opened = match &action {
        RecordsAction::Show { .. } | RecordsAction::Export { .. } => Store::open_existing(db),
        _ => Store::open(db),
    };
    let mut store = match opened {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    match &action {
        RecordsAction::Show { .. } => {
            let records = match store.all() {
                Ok(r) => r,
                Err(e) => return fail(&e),
            };
            let ours = affine_autosched::machine::fingerprint().id();
            let mut best: Vec<&affine_autosched::records::Record> = Vec::new();
            for r in &records {
                match best.iter_mut().find(|b| b.function_hash == r.function_hash && b.machine.id() == r.machine.id()) {
                    Some(b) if r.speedup > b.speedup => *b = r,
                    Some(_) => {}
                    None => best.push(r),
                }
            }
            println!("{} records, {} function/machine pairs (this machine: {})", records.len(), best.len(), ours);
            println!("{:<24} {:<16} {:<18} {:>8}  {:<10} schedule", "function", "hash", "machine", "speedup", "evaluator");
            for b in best {
                let machine = if b.machine.id() == ours { format!("{} (here)", &b.machine.id()[..8]) } else { b.machine.id()[..8].to_string() };
                let schedule = if b.schedule.is_empty() { "(original)" } else { &b.schedule };
                println!(
                    "{:<24} {:<16} {:<18} {:>7.2}x  {:<10} {schedule}",
                    format!("@{}", b.function), b.function_hash.get(..16).unwrap_or(&b.function_hash), machine, b.speedup, b.evaluator
                );
            }
            ExitCode::SUCCESS
        }
        RecordsAction::Export { output, .. } => {
            let result = match output {
                Some(path) => std::fs::File::create(path)
                    .map_err(|e| format!("{}: {e}", path.display()))
                    .and_then(|f| store.export_jsonl(&mut std::io::BufWriter::new(f)).map_err(|e| e.to_string())),
                None => store.export_jsonl(&mut std::io::stdout().lock()).map_err(|e| e.to_string()),
            };
            match result {
                Ok(n) => {
                    eprintln!("autosched: exported {n} records");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        RecordsAction::Import { files, .. } | RecordsAction::Merge { others: files, .. } => {
            let import = matches!(action, RecordsAction::Import { .. });
            for f in files {
                let result = if import { store.import_jsonl(f) } else { store.merge_from(f) };
                match result {
                    Ok((read, added)) => eprintln!("autosched: {}: {read} records read, {added} new", f.display()),
                    Err(e) => return fail(&e),
                }
            }
            ExitCode::SUCCESS
        }
    }
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// Campaign directory.
    #[arg(long, default_value = "build/fuzz")]
    out: PathBuf,
    /// Programs 0..N of the stream.
    #[arg(long, default_value_t = 200)]
    programs: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker processes (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run the hybrid evaluator on every K-th program (0: never).
    #[arg(long, default_value_t = 10)]
    hybrid_every: u64,
    /// Run the default search as for a function compiled for 512-bit vectors (AVX-512's 32
    /// registers: the 12x32 register tile is offered) on every K-th program, counted from
    /// K-1 (0: never), whatever this host has; 8: the contraction programs.
    #[arg(long, default_value_t = affine_autosched::fuzz::gen::CONTRACTION_EVERY)]
    wide_every: u64,
    /// Random schedules per program.
    #[arg(long, default_value_t = 3)]
    random_schedules: usize,
    /// Most steps in a random schedule.
    #[arg(long, default_value_t = 6)]
    max_steps: usize,
    /// Skip the default search (random schedules only).
    #[arg(long)]
    no_default: bool,
    /// Seconds one program may take before its worker is killed (recorded as a timeout).
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Only summarize DIR's results (no new programs).
    #[arg(long)]
    report_only: bool,
    /// Write the summary as Markdown to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Print program INDEX (its MLIR) and exit.
    #[arg(long)]
    print: Option<u64>,
    /// Write every result so far to DIR/results.jsonl.gz (what a repository keeps; a
    /// campaign resumes from it) and exit.
    #[arg(long)]
    snapshot: bool,
    #[arg(long)]
    quiet: bool,
}

impl FuzzArgs {
    fn config(&self) -> affine_autosched::fuzz::FuzzConfig {
        affine_autosched::fuzz::FuzzConfig {
            seed: self.seed,
            programs: self.programs,
            out: self.out.clone(),
            jobs: self.jobs.unwrap_or_else(affine_autosched::machine::cores),
            hybrid_every: self.hybrid_every,
            wide_every: self.wide_every,
            random_schedules: self.random_schedules,
            max_steps: self.max_steps,
            default_search: !self.no_default,
            timeout: std::time::Duration::from_secs(self.timeout),
            progress: !self.quiet,
        }
    }
}

fn fuzz(args: FuzzArgs) -> ExitCode {
    use affine_autosched::fuzz;
    if let Some(i) = args.print {
        let p = fuzz::gen::FuzzProgram::generate(args.seed, i);
        println!("// {}\n{}", p.id(), p.to_mlir());
        return ExitCode::SUCCESS;
    }
    let cfg = args.config();
    if args.snapshot {
        return match fuzz::write_snapshot(&cfg.out) {
            Ok(n) => {
                println!("{}: {n} programs", fuzz::snapshot_path(&cfg.out).display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("autosched: error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let started = std::time::Instant::now();
    let summary = if args.report_only {
        fuzz::read_results(&cfg.out).map(|r| fuzz::summarize(&r))
    } else {
        fuzz::run(&cfg)
    };
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            eprintln!("autosched: error: {e}");
            return ExitCode::from(2);
        }
    };
    let command = format!(
        "autosched fuzz --seed {} --programs {} --hybrid-every {} --wide-every {} --random-schedules {} --max-steps {}{}",
        cfg.seed,
        cfg.programs,
        cfg.hybrid_every,
        cfg.wide_every,
        cfg.random_schedules,
        cfg.max_steps,
        if cfg.default_search { "" } else { " --no-default" }
    );
    let title = if (summary.programs as u64) < cfg.programs {
        format!("Fuzz campaign (in progress: {} of {} programs)", summary.programs, cfg.programs)
    } else {
        format!("Fuzz campaign ({} programs)", summary.programs)
    };
    let mut md = summary.markdown(&title, &command);
    // The causes behind the counts, written by people, live next to the campaign.
    if let Ok(notes) = std::fs::read_to_string(cfg.out.join("explanations.md")) {
        md.push('\n');
        md.push_str(&notes);
    }
    if let Some(path) = &args.report {
        if let Err(e) = std::fs::write(path, &md) {
            eprintln!("autosched: error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let _ = std::fs::write(cfg.out.join("summary.json"), serde_json::to_string_pretty(&summary).unwrap_or_default());
    println!("{md}");
    if !args.report_only {
        println!("wall time: {:.0} s", started.elapsed().as_secs_f64());
    }
    if summary.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn datagen(cfg: affine_autosched::datagen::DatagenConfig) -> ExitCode {
    match affine_autosched::datagen::run(&cfg) {
        Ok(s) => {
            let rate = s.points as f64 / s.wall_s.max(1e-9);
            eprintln!(
                "datagen shard {}/{}: {} programs measured ({} already done, {} failed), {} points, {} mismatches; \
                 {:.0} s wall ({:.0} s compiling, {:.0} s running, {:.0} s waiting for a quiet machine; \
                 {} batches measured on a busy one, {} measured again after a disturbance), {:.2} points/s = {:.0} points/hour",
                cfg.shard.0, cfg.shard.1, s.programs, s.skipped, s.failed, s.points, s.mismatches,
                s.wall_s, s.compile_s, s.run_s, s.quiet_wait_s, s.busy_batches, s.remeasured_batches, rate, rate * 3600.0
            );
            if s.mismatches > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(e) => {
            eprintln!("autosched: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn parse_shard(text: &str) -> Option<(u64, u64)> {
    let (i, n) = text.split_once('/')?;
    let (i, n) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
    (n > 0 && i < n).then_some((i, n))
}

fn run(args: RunArgs) -> ExitCode {
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    };
    let spec: Option<ScheduleSpec> = match args.schedule.as_deref().map(str::parse).transpose() {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let function = match only_function(&args.file, args.function.clone()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let (original, sig) = match measure::variant_from_file(&args.file, &function, "original", None) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let mut variants = vec![original];
    if let Some(spec) = &spec {
        match measure::variant_from_file(&args.file, &function, "scheduled", Some(&spec.schedule)) {
            Ok((v, _)) => variants.push(v),
            Err(e) => return fail(&e),
        }
    }
    // Other variants: MLIR files (lowered here) and prebuilt libraries.
    let mut prebuilt: Vec<(String, PathBuf)> = Vec::new();
    let mut order: Vec<(String, Option<usize>)> = variants.iter().enumerate().map(|(i, v)| (v.label.clone(), Some(i))).collect();
    for v in &args.variants {
        let Some((label, path)) = v.split_once('=') else {
            return fail(&format!("--variant '{v}': expected LABEL=PATH"));
        };
        let path = PathBuf::from(path);
        if path.extension().is_some_and(|e| e == "so") {
            prebuilt.push((label.to_string(), path));
            order.push((label.to_string(), None));
        } else {
            match measure::variant_from_file(&path, &function, label, None) {
                Ok((mut var, other)) if other == sig => {
                    var.label = label.to_string();
                    order.push((label.to_string(), Some(variants.len())));
                    variants.push(var);
                }
                Ok(_) => return fail(&format!("--variant '{v}': @{function} has another signature there")),
                Err(e) => return fail(&format!("--variant '{v}': {e}")),
            }
        }
    }
    let mut cfg = MeasureConfig {
        reps: args.reps.max(1),
        warmup: args.warmup,
        timeout: std::time::Duration::from_secs(args.timeout),
        work_dir: args.keep.clone(),
        ..Default::default()
    };
    if let Some(t) = args.threads {
        cfg.threads = t.max(1);
    }
    if let Some(tol) = args.tolerance {
        cfg.comparison = Comparison::Relative(tol);
    }
    if let Some(tol) = args.normalized_tolerance {
        cfg.comparison = Comparison::Normalized(tol);
    }
    let mut libraries: Vec<measure::Library> = variants.iter().map(|v| measure::Library::Mlir(&v.mlir)).collect();
    libraries.extend(prebuilt.iter().map(|(_, p)| measure::Library::Prebuilt(p)));
    let mut next_prebuilt = variants.len();
    let entries: Vec<measure::Entry> = order
        .iter()
        .map(|(label, lib)| {
            let library = lib.unwrap_or_else(|| {
                next_prebuilt += 1;
                next_prebuilt - 1
            });
            measure::Entry { label: label.clone(), library, function: function.clone() }
        })
        .collect();
    let m = match measure::measure_entries(&libraries, &entries, &sig, &cfg) {
        Ok(m) => m,
        Err(e) => return fail(&e),
    };
    println!("@{function}: {} timed runs per variant after {} warm-up, {} thread(s), variants interleaved", cfg.reps, cfg.warmup, m.threads);
    if let Some(spec) = &spec {
        println!("schedule: {}", spec.schedule);
    }
    println!("{:<10} {:>12} {:>12} {:>12} {:>9} {:>9}{}", "variant", "median ms", "min ms", "max ms", "MAD %", "speedup",
        if args.flops.is_some() { "   GFLOP/s" } else { "" });
    for (v, t) in m.timings.iter().enumerate() {
        let gflops = args.flops.map(|f| format!(" {:>9.2}", f / t.median() / 1e9)).unwrap_or_default();
        println!(
            "{:<10} {:>12.3} {:>12.3} {:>12.3} {:>9.1} {:>8.2}x{gflops}",
            t.label,
            t.median() * 1e3,
            t.min() * 1e3,
            t.max() * 1e3,
            t.relative_mad() * 100.0,
            m.speedup(v)
        );
    }
    let mut ok = true;
    for verdict in &m.verdicts {
        println!("{}: {}", verdict.label, verdict.detail);
        ok &= verdict.equivalent;
    }
    if let Some(path) = &args.json {
        let rows: Vec<serde_json::Value> = m
            .timings
            .iter()
            .enumerate()
            .map(|(v, t)| {
                let verdict = if v == 0 { None } else { m.verdicts.get(v - 1) };
                serde_json::json!({
                    "label": t.label,
                    "times": t.times,
                    "median": t.median(),
                    "min": t.min(),
                    "max": t.max(),
                    "relative_mad": t.relative_mad(),
                    "speedup": m.speedup(v),
                    "equivalent": verdict.map(|d| d.equivalent).unwrap_or(true),
                    "detail": verdict.map(|d| d.detail.clone()).unwrap_or_else(|| "reference".into()),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "function": function,
            "threads": m.threads,
            "reps": cfg.reps,
            "warmup": cfg.warmup,
            "rounds": m.rounds,
            "compile_seconds": m.compile_seconds,
            "run_seconds": m.run_seconds,
            "variants": rows,
        });
        if let Err(e) = std::fs::write(path, serde_json::to_string_pretty(&doc).expect("serializes")) {
            return fail(&format!("cannot write {}: {e}", path.display()));
        }
    }
    if let (Some(db), Some(spec)) = (&args.records, &spec) {
        if !ok {
            eprintln!("autosched: not added to the records: the schedule's outputs differ from the original's");
        } else if let Err(e) = add_run_record(db, &args.file, &function, &spec.schedule, &m) {
            return fail(&format!("--records: {e}"));
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// Records what `autosched run --schedule S --records DB` measured.
fn add_run_record(
    db: &std::path::Path,
    file: &std::path::Path,
    function: &str,
    schedule: &affine_autosched::schedule::Schedule,
    m: &measure::Measurement,
) -> Result<(), String> {
    use affine_autosched::records::{self, Measurement, Record, Store};
    let mut store = Store::open(db).map_err(|e| e.to_string())?;
    let module = load(&file.to_path_buf(), false).map_err(|_| format!("cannot read {}", file.display()))?;
    let func = module
        .functions()
        .into_iter()
        .find(|f| f.string_attr("sym_name").as_deref() == Some(function))
        .ok_or_else(|| format!("no @{function} in {}", file.display()))?;
    let speedup = m.speedup(1);
    let record = Record {
        function_hash: affine_autosched::ir::canonical::function_hash(func),
        function: function.into(),
        machine: affine_autosched::machine::fingerprint().clone(),
        language_version: affine_autosched::schedule::LANGUAGE_VERSION,
        model_version: None,
        evaluator: "run".into(),
        schedule: schedule.to_string(),
        speedup,
        original_seconds: Some(m.timings[0].median()),
        threads: m.threads,
        measured: vec![Measurement { schedule: schedule.to_string(), speedup, vector_width: None }],
        measured_at: records::now(),
    };
    store.insert(&[record]).map_err(|e| e.to_string())?;
    eprintln!("autosched: added to {}: {schedule} at {speedup:.2}x", db.display());
    Ok(())
}

/// `function`, or the only function of `file` when none is named.
fn only_function(file: &PathBuf, function: Option<String>) -> Result<String, ExitCode> {
    if let Some(f) = function {
        return Ok(f);
    }
    let module = load(file, false)?;
    let names: Vec<String> = module.functions().iter().filter_map(|f| f.string_attr("sym_name")).collect();
    match names.as_slice() {
        [one] => Ok(one.clone()),
        _ => {
            eprintln!("autosched: error: {} has {} functions: name one with --function", file.display(), names.len());
            Err(ExitCode::from(2))
        }
    }
}

fn c_wrapper(file: PathBuf, function: Option<String>, output: Option<PathBuf>) -> ExitCode {
    let function = match only_function(&file, function) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let source = measure::variant_from_file(&file, &function, "original", None)
        .map_err(|e| e.to_string())
        .and_then(|(_, sig)| measure::driver::c_wrapper(&sig, &function).map_err(|e| e.to_string()));
    match (source, output) {
        (Ok(c), Some(path)) => match std::fs::write(&path, c) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("autosched: error: cannot write {}: {e}", path.display());
                ExitCode::from(2)
            }
        },
        (Ok(c), None) => {
            print!("{c}");
            ExitCode::SUCCESS
        }
        (Err(e), _) => {
            eprintln!("autosched: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn load(file: &PathBuf, allow_unregistered: bool) -> Result<LoadedModule, ExitCode> {
    LoadedModule::from_file_with(file, allow_unregistered).map_err(|e| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    })
}

fn parse_spec(schedule: &str) -> Result<ScheduleSpec, ExitCode> {
    schedule.parse().map_err(|e| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    })
}

fn load_model(model: Option<PathBuf>, onnxruntime: Option<PathBuf>) -> Result<std::sync::Arc<CostModel>, ExitCode> {
    if let Some(lib) = onnxruntime {
        // Read by cost_model before the runtime is loaded (once per process).
        std::env::set_var("AUTOSCHED_ONNXRUNTIME", lib);
    }
    cost_model::load(model.as_deref()).map_err(|e| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    })
}

/// `autosched tile-sizes`' options beside the file, band and schedule.
struct TileSizesOptions {
    budget: Option<u64>,
    cores: Option<usize>,
    sizes: Vec<String>,
    register: Option<String>,
    columns_outside: bool,
    l1: Option<u64>,
    vector_bits: Option<u32>,
}

fn tile_sizes(file: PathBuf, band: String, schedule: String, options: TileSizesOptions) -> ExitCode {
    use affine_autosched::schedule::{tile_sizes, tree::Scheduled, LoopName, Tile, Transform};
    let TileSizesOptions { budget, cores, sizes, register, columns_outside, l1, vector_bits } = options;
    let unit: Option<[u32; 2]> = match register.as_deref().map(|r| r.split_once('x').map(|(a, b)| (a.trim().parse::<u32>(), b.trim().parse::<u32>()))) {
        None => None,
        Some(Some((Ok(r), Ok(c)))) if r > 0 && c > 0 => Some([r, c]),
        Some(_) => {
            eprintln!("autosched: error: --register {}: expected ROWSxCOLUMNS, two positive factors (as 6x16)", register.unwrap_or_default());
            return ExitCode::from(2);
        }
    };
    let spec = match parse_spec(&schedule) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let names: Result<Vec<LoopName>, String> = band.split(',').map(|n| n.trim().parse()).collect();
    let names = match names {
        Ok(n) if !n.is_empty() => n,
        Ok(_) => {
            eprintln!("autosched: error: --band: no loops given");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("autosched: error: --band: {e}");
            return ExitCode::from(2);
        }
    };
    let module = match load(&file, false) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if unit.is_some() && names.len() != 3 {
        eprintln!("autosched: error: --register: the band must be three loops (rows, columns, reduction), not {}", names.len());
        return ExitCode::from(2);
    }
    let order = if columns_outside { tile_sizes::PointOrder::ColumnsOutside } else { tile_sizes::PointOrder::RowsOutside };
    // With --register, --sizes are scored as the register tile's band.
    let register_kernel = |program: &affine_autosched::ir::Program, tree: &Scheduled, nodes: &[usize]| {
        let band3 = <[usize; 3]>::try_from(nodes.to_vec()).ok()?;
        unit.map(|u| affine_autosched::schedule::kinds::register_kernel(program, tree, band3, u, order))
    };
    let machine = tile_sizes::Target::machine();
    let host = tile_sizes::Target {
        budget_bytes: budget.unwrap_or(machine.budget_bytes),
        cores: cores.unwrap_or(machine.cores).max(1),
        vector_registers: machine.vector_registers,
        l1_bytes: l1.unwrap_or(machine.l1_bytes),
        vector_bytes: machine.vector_bytes,
    };
    quiet_on_broken_pipe();
    for f in module.functions() {
        let name = f.string_attr("sym_name").unwrap_or_default();
        if !spec.applies_to(&name) {
            continue;
        }
        // The vectors asked for, else those the function's own prefer-vector-width asks (as the search).
        let target = host.with_vector_width(vector_bits.or_else(|| affine_autosched::transform::preferred_vector_width(f)));
        let program = match affine_autosched::ir::analyze_function(f) {
            Ok(a) => a.program,
            Err(e) => {
                eprintln!("autosched: error: @{name}: {e}");
                return ExitCode::from(1);
            }
        };
        let tree = match Scheduled::new(&program, &spec.schedule) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("autosched: error: @{name}: {e}");
                return ExitCode::from(1);
            }
        };
        let nodes: Option<Vec<usize>> = names.iter().map(|n| tree.node_named(&program, n)).collect();
        let Some(nodes) = nodes else {
            eprintln!("autosched: error: @{name}: a loop of --band {band} does not exist after the schedule");
            return ExitCode::from(1);
        };
        if !sizes.is_empty() {
            for text in &sizes {
                let vector: Result<Vec<u32>, _> = text.split(',').map(|s| s.trim().parse::<u32>()).collect();
                match vector {
                    Ok(v) if v.len() == nodes.len() && v.iter().all(|s| *s > 0) => {
                        let cost = match register_kernel(&program, &tree, &nodes) {
                            Some(kernel) => tile_sizes::register_cost(&program, &tree, &nodes, &target, kernel, &v),
                            None => tile_sizes::cost(&program, &tree, &nodes, &target, &v),
                        };
                        println!("{}", serde_json::json!({"function": name, "sizes": v, "cost": cost}));
                    }
                    _ => {
                        eprintln!("autosched: error: --sizes {text}: expected {} positive sizes, comma-separated", nodes.len());
                        return ExitCode::from(2);
                    }
                }
            }
            continue;
        }
        let Some(choice) = tile_sizes::choose(&program, &tree, &nodes, &target) else {
            eprintln!("autosched: error: @{name}: the band {band} cannot be sized (a trip count unknown or too small)");
            return ExitCode::from(1);
        };
        let step = Tile { band: names.iter().cloned().zip(choice.sizes.iter().copied()).collect() };
        let mut out = serde_json::json!({"function": name, "band": band, "step": Transform::from(step).to_string(), "choice": choice});
        // Where a reduction along the innermost loop makes them differ: the sizes for a register
        // tile that interleaves its chains (the ones the search is offered).
        if let Some(other) = tile_sizes::choose_interleaved(&program, &tree, &nodes, &target).filter(|c| c.sizes != choice.sizes) {
            out["interleaved"] = serde_json::json!(other);
        }
        if let (Some(unit), Ok(band3)) = (unit, <[usize; 3]>::try_from(nodes.clone())) {
            let choice = affine_autosched::schedule::kinds::register_tile_sizes(&program, &tree, band3, &target, unit, order);
            out["register"] = serde_json::json!(choice);
        }
        println!("{out}");
    }
    ExitCode::SUCCESS
}

fn predict(file: PathBuf, schedule: String, model: Option<PathBuf>, onnxruntime: Option<PathBuf>) -> ExitCode {
    let spec = match parse_spec(&schedule) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let model = match load_model(model, onnxruntime) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let module = match load(&file, false) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut done = 0;
    for f in module.functions() {
        let name = f.string_attr("sym_name").unwrap_or_default();
        if !spec.applies_to(&name) {
            continue;
        }
        let program = match affine_autosched::ir::analyze_function(f) {
            Ok(a) => a.program,
            Err(e) => {
                eprintln!("autosched: error: @{name}: {e}");
                return ExitCode::from(1);
            }
        };
        if program.nests.is_empty() {
            eprintln!("autosched: @{name}: no modeled loop nest, nothing to predict");
            continue;
        }
        for n in &program.not_modeled {
            eprintln!("autosched: @{name}: nest at {} not modeled ({}); predicting the others", n.location, n.reason);
        }
        // Predictions of illegal schedules mean nothing: check by applying (in memory).
        if let Err(e) = transform::apply(f, &spec.schedule) {
            eprintln!("autosched: error: @{name}: {e}");
            return ExitCode::from(1);
        }
        let started = std::time::Instant::now();
        let predicted = features::featurize(&program, &spec.schedule)
            .map_err(|e| e.to_string())
            .and_then(|x| model.predict_members(&[&x]).map_err(|e| e.to_string()));
        match predicted {
            Ok(p) => {
                // An ensemble: its geometric mean, and the range of its members.
                let members = &p[0];
                let range = if members.len() > 1 {
                    let lo = members.iter().copied().fold(f32::INFINITY, f32::min);
                    let hi = members.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    if model.interval_output() {
                        format!(" [{lo:.3}x, {hi:.3}x] (the model's error interval)")
                    } else {
                        format!(" [{lo:.3}x, {hi:.3}x] ({} members)", members.len())
                    }
                } else {
                    String::new()
                };
                println!(
                    "@{name}: predicted speedup {:.3}x{range} for '{}' ({:.1} ms)",
                    affine_autosched::cost_model::geometric_mean(members),
                    spec.schedule,
                    started.elapsed().as_secs_f64() * 1e3
                )
            }
            Err(e) => {
                eprintln!("autosched: error: @{name}: {e}");
                return ExitCode::from(1);
            }
        }
        done += 1;
    }
    if done == 0 && spec.function.is_some() {
        eprintln!("autosched: error: no function matches the schedule's @-prefix");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

#[derive(clap::Args)]
struct OptimizeArgs {
    file: PathBuf,
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_BEAM_WIDTH as usize)]
    beam_width: usize,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_MAX_DEPTH as usize)]
    max_depth: usize,
    #[arg(long)]
    model: Option<PathBuf>,
    #[arg(long)]
    onnxruntime: Option<PathBuf>,
    /// How candidates are scored: model, execution (compile and run every candidate) or
    /// hybrid (model search, then the best --measure-top-k are run and the fastest kept)
    #[arg(long, default_value = "model")]
    evaluator: String,
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_MEASURE_TOP_K as usize)]
    measure_top_k: usize,
    /// With --evaluator model: apply a schedule only if the model gives it at least this
    /// probability (percent, 50-99) of beating the original (50: the point estimate)
    #[arg(long, default_value_t = affine_autosched::options::DEFAULT_CONFIDENCE as u64,
          value_parser = clap::value_parser!(u64)
              .range(affine_autosched::options::MIN_CONFIDENCE as u64..=affine_autosched::options::MAX_CONFIDENCE as u64))]
    confidence: u64,
    /// Write each function's decision (schedule, predicted/measured speedup, candidates,
    /// times) as one JSON line to this file (schema: src/report.schema.json)
    #[arg(long)]
    report: Option<PathBuf>,
    /// Tuning records database: a function measured before on this machine gets its best
    /// measured schedule without a search; hybrid and execution runs add what they measured
    #[arg(long)]
    records: Option<PathBuf>,
    /// Write the chosen schedules as a Transform-dialect script to this file
    #[arg(long)]
    emit_transform: Option<PathBuf>,
    /// Also print the search's N best schedules with their scores
    #[arg(long, default_value_t = 0)]
    show_ranking: usize,
    /// Mark each function's floating-point adds, subtracts and multiplies
    /// fastmath<contract> before the search (the pass's fp-contract=true): LLVM may fuse
    /// them into multiply-adds, which changes the last bits of results
    #[arg(long)]
    fp_contract: bool,
    /// Ask LLVM to vectorize each function for vectors of this many bits before the search
    /// (the pass's prefer-vector-width: 128, 256 or 512)
    #[arg(long, value_parser = ["128", "256", "512"])]
    prefer_vector_width: Option<String>,
}

/// The pass's search from the command line: the same decisions, remarks on stderr.
fn optimize(args: OptimizeArgs) -> ExitCode {
    use affine_autosched::options::Evaluator;
    use affine_autosched::search::{OptimizeConfig, SearchConfig};
    let evaluator: Evaluator = match args.evaluator.parse() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("autosched: {e}");
            return ExitCode::from(2);
        }
    };
    let model = match evaluator {
        Evaluator::Execution if args.model.is_none() => None,
        _ => match load_model(args.model, args.onnxruntime) {
            Ok(m) => Some(m),
            Err(code) => return code,
        },
    };
    let module = match load(&args.file, false) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let cfg = OptimizeConfig {
        confidence: args.confidence as usize,
        vector_bits: args.prefer_vector_width.as_deref().map(|w| w.parse().expect("checked by clap")),
        ..OptimizeConfig::new(
            SearchConfig { beam_width: args.beam_width.max(1), max_depth: args.max_depth },
            evaluator,
            args.measure_top_k.max(1),
        )
    };
    let store = match &args.records {
        Some(path) => match affine_autosched::records::Store::open(path) {
            Ok(s) => Some(std::sync::Mutex::new(s)),
            Err(e) => {
                eprintln!("autosched: error: --records: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut lines = Vec::new();
    let mut script_entries = Vec::new();
    for f in module.functions() {
        let name = f.string_attr("sym_name").unwrap_or_default();
        let program = match affine_autosched::ir::analyze_function(f) {
            Ok(a) => a.program,
            Err(e) => {
                eprintln!("autosched: @{name}: left unchanged: {e}");
                continue;
            }
        };
        if program.nests.is_empty() {
            continue;
        }
        let width = args.prefer_vector_width.as_deref().map(|w| w.parse().expect("checked by clap"));
        for line in pass::apply_codegen_options(f, args.fp_contract, width) {
            eprintln!("autosched: {line}");
        }
        let (decision, hash) = match affine_autosched::records::decide(f, &program, model.as_deref(), &cfg, store.as_ref()) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("autosched: @{name}: left unchanged: the search failed: {e}");
                continue;
            }
        };
        // The report's hash is of the function before the schedule changes it.
        let hash = hash.or_else(|| args.report.is_some().then(|| affine_autosched::ir::canonical::function_hash(f)));
        for w in &decision.warnings {
            eprintln!("autosched: warning: {w}");
        }
        for n in &decision.notes {
            eprintln!("autosched: {n}");
        }
        // Asked for, the ranking is shown even where the pass keeps the original without a
        // search (a function outside the model's domain): what the model would rank, not applied.
        let searched;
        let ranked = match (&model, decision.ranked.is_empty() && args.show_ranking > 0) {
            (Some(m), true) if evaluator == Evaluator::Model => {
                searched = cfg
                    .target_for(f)
                    .scoped(|| affine_autosched::search::beam_search(f, &program, m, cfg.search))
                    .map(|r| r.ranked)
                    .unwrap_or_else(|e| {
                        eprintln!("autosched: @{name}: no ranking to show: the search failed: {e}");
                        Vec::new()
                    });
                &searched[..]
            }
            _ => &decision.ranked[..],
        };
        for (i, s) in ranked.iter().take(args.show_ranking).enumerate() {
            eprintln!("autosched: @{name}: #{:<3} {:>7.3}  {}", i + 1, s.score, s.schedule);
        }
        // The script's entry is of the function before the schedule, kept once it applied.
        let entry = args.emit_transform.is_some().then(|| {
            affine_autosched::transform::script::ScriptEntry::new(f, &name, &decision.schedule, decision.evidence(evaluator))
                .with_codegen(args.fp_contract, decision.vector_bits(width), true)
        });
        let mut applied = false;
        if !decision.schedule.is_identity() {
            match decision.apply(f) {
                Ok(()) => applied = true,
                Err(e) => {
                    eprintln!("autosched: @{name}: left unchanged: the chosen schedule failed to apply: {e}");
                    continue;
                }
            }
        }
        script_entries.extend(entry);
        eprintln!("autosched: {}", decision.summary(&name, evaluator));
        if let Some(hash) = hash.filter(|_| args.report.is_some()) {
            let report = affine_autosched::report::DecisionReport::new(&name, &hash, evaluator.name(), &decision, applied)
                .with_codegen(args.fp_contract, width);
            lines.push(serde_json::to_string(&report).unwrap_or_default());
        }
    }
    if let Some(path) = &args.emit_transform {
        script_entries.sort_by(|a, b| a.function.cmp(&b.function));
        if let Err(e) = std::fs::write(path, affine_autosched::transform::script::script(&script_entries)) {
            eprintln!("autosched: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.report {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("autosched: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    write_module(&module, args.output)
}

fn score(
    dataset: PathBuf,
    model: Option<PathBuf>,
    onnxruntime: Option<PathBuf>,
    program_ids: Option<PathBuf>,
    out: PathBuf,
    time_batch: Option<usize>,
) -> ExitCode {
    let model = match load_model(model, onnxruntime) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let wanted: Option<std::collections::HashSet<String>> = match program_ids {
        None => None,
        Some(p) => match std::fs::read_to_string(&p) {
            Ok(t) => Some(t.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()),
            Err(e) => {
                eprintln!("autosched: error: {}: {e}", p.display());
                return ExitCode::from(2);
            }
        },
    };
    #[derive(serde::Deserialize)]
    struct Point {
        program_id: String,
        representation: affine_autosched::ir::Program,
        schedule: String,
        speedup: f64,
        #[serde(default)]
        machine: Option<PointHost>,
    }
    #[derive(serde::Deserialize)]
    struct PointHost {
        #[serde(default)]
        caches: Vec<affine_autosched::machine::Cache>,
    }
    // Points of one program are scored together, as the search does; each is featurized for
    // the host it was measured on (as `autosched featurize` does for the trainer).
    type Scored = (String, f64, features::Host);
    let mut groups: Vec<(String, affine_autosched::ir::Program, Vec<Scored>)> = Vec::new();
    let read = affine_autosched::datagen::for_each_line(&dataset, |line| {
        let Ok(p) = serde_json::from_str::<Point>(line) else { return };
        if wanted.as_ref().is_some_and(|w| !w.contains(&p.program_id)) {
            return;
        }
        let host = features::Host::recorded(p.machine.as_ref().map_or(&[][..], |m| &m.caches));
        match groups.last_mut() {
            Some(g) if g.0 == p.program_id => g.2.push((p.schedule, p.speedup, host)),
            _ => groups.push((p.program_id, p.representation, vec![(p.schedule, p.speedup, host)])),
        }
    });
    if let Err(e) = read {
        eprintln!("autosched: error: {e}");
        return ExitCode::from(2);
    }
    let mut lines = String::new();
    let started = std::time::Instant::now();
    let mut n = 0;
    let mut timed = false;
    for (id, program, points) in &groups {
        let mut feats = Vec::new();
        for (s, _, host) in points {
            let f = s
                .parse::<affine_autosched::schedule::Schedule>()
                .map_err(|e| e.to_string())
                .and_then(|s| features::Featurizer::for_host(program, host.clone()).featurize(&s).map_err(|e| e.to_string()));
            match f {
                Ok(f) => feats.push(f),
                Err(e) => {
                    eprintln!("autosched: error: {id} '{s}': {e}");
                    return ExitCode::from(1);
                }
            }
        }
        if let (Some(size), false) = (time_batch, timed) {
            timed = true;
            let refs: Vec<&features::Featurized> = (0..size.max(1)).map(|i| &feats[i % feats.len()]).collect();
            let mut ms = Vec::new();
            for _ in 0..50 {
                let t = std::time::Instant::now();
                if let Err(e) = model.predict(&refs) {
                    eprintln!("autosched: error: {id}: {e}");
                    return ExitCode::from(1);
                }
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            ms.sort_by(f64::total_cmp);
            // The host by what its timing depends on (two CPUs share the name "AMD EPYC" here).
            let timing = serde_json::json!({
                "batch": size, "repetitions": ms.len(), "median_ms": ms[ms.len() / 2], "min_ms": ms[0],
                "max_ms": ms[ms.len() - 1], "program": id,
                "machine": affine_autosched::machine::fingerprint().describe(),
            });
            let path = PathBuf::from(format!("{}.timing.json", out.display()));
            if let Err(e) = std::fs::write(&path, timing.to_string()) {
                eprintln!("autosched: error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
            eprintln!("inference, batches of {size}: median {:.2} ms (min {:.2}, max {:.2})", ms[ms.len() / 2], ms[0], ms[ms.len() - 1]);
        }
        for chunk in (0..feats.len()).collect::<Vec<_>>().chunks(32) {
            let refs: Vec<&features::Featurized> = chunk.iter().map(|i| &feats[*i]).collect();
            match model.predict(&refs) {
                Ok(p) => {
                    for (i, pred) in chunk.iter().zip(p) {
                        let (s, measured, _) = &points[*i];
                        lines.push_str(&format!("{id}\t{s}\t{measured}\t{pred}\n"));
                        n += 1;
                    }
                }
                Err(e) => {
                    eprintln!("autosched: error: {id}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }
    if let Err(e) = std::fs::write(&out, lines) {
        eprintln!("autosched: error: {}: {e}", out.display());
        return ExitCode::from(2);
    }
    eprintln!(
        "scored {n} points of {} programs in {:.2} s ({})",
        groups.len(),
        started.elapsed().as_secs_f64(),
        model.path().display()
    );
    ExitCode::SUCCESS
}

fn apply(file: PathBuf, schedule: String, output: Option<PathBuf>, fp_contract: bool, vector_width: Option<u32>) -> ExitCode {
    let spec = match parse_spec(&schedule) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let module = match load(&file, false) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut applied = 0;
    for f in module.functions() {
        let name = f.string_attr("sym_name").unwrap_or_default();
        if !spec.applies_to(&name) {
            continue;
        }
        if let Err(e) = transform::apply(f, &spec.schedule) {
            eprintln!("autosched: error: schedule not applied to @{name}: {e}; nothing was written");
            return ExitCode::from(1);
        }
        eprintln!("autosched: applied schedule to @{name}: {}", spec.schedule);
        for line in pass::apply_codegen_options(f, fp_contract, vector_width) {
            eprintln!("autosched: {line}");
        }
        applied += 1;
    }
    if applied == 0 {
        eprintln!("autosched: error: no function in {} matches the schedule", file.display());
        return ExitCode::from(2);
    }
    write_module(&module, output)
}

/// Prints the module to `output` (stdout when None).
fn write_module(module: &LoadedModule, output: Option<PathBuf>) -> ExitCode {
    let text = module.operation().to_text();
    let written = match output {
        Some(path) => std::fs::write(&path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            use std::io::Write;
            let _ = writeln!(std::io::stdout(), "{text}");
            Ok(())
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("autosched: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// For the commands that only print (`program`, `describe`, `layout`): end quietly when the
/// reader of their output goes away (`| head`), as other command-line tools do, instead of
/// panicking in println!. Not for commands that write to their children's pipes (a child
/// that died must be an error there, not a signal).
fn quiet_on_broken_pipe() {
    // SAFETY: restores the default disposition of one signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match cli.command {
        Command::Apply { file, schedule, output, fp_contract, prefer_vector_width } => {
            apply(file, schedule, output, fp_contract, prefer_vector_width.map(|w| w.parse().expect("checked by clap")))
        }
        Command::Datagen { seed, programs, schedules_per_program, long_walks, lookahead_walks, parallel_neighbours, register_neighbours, out, shard, reps, warmup, threads, quiet, resume_from, sizes, class, no_quiet_wait, remeasure, kind } => {
            let Some(shard) = parse_shard(&shard) else {
                eprintln!("autosched: error: --shard must be i/n with 0 <= i < n, got '{shard}'");
                return ExitCode::from(2);
            };
            let mut measure = affine_autosched::datagen::default_measure_config();
            measure.reps = reps.max(1);
            measure.warmup = warmup;
            if let Some(t) = threads {
                measure.threads = t.max(1);
            }
            let remeasure = remeasure.zip(kind).map(|(dataset, kind)| affine_autosched::datagen::Remeasure { dataset, kind });
            datagen(affine_autosched::datagen::DatagenConfig {
                seed, programs: programs.unwrap_or(0), schedules_per_program, long_walks, lookahead_walks,
                neighbours: affine_autosched::datagen::Neighbours { parallel: parallel_neighbours, register: register_neighbours },
                out, shard, measure, progress: !quiet, resume_from,
                quiet: (!no_quiet_wait).then(affine_autosched::measure::quiet::QuietPolicy::default),
                sizes, class, remeasure,
            })
        }
        Command::Merge { inputs, out } => match affine_autosched::datagen::merge(&inputs, &out) {
            Ok((n, dups)) => {
                eprintln!("merged {n} points into {} ({dups} duplicates dropped)", out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("autosched: error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Vectors { seed, programs, schedules, sizes, out, quiet } => {
            match affine_autosched::features::dataset::unlabeled_vectors(seed, programs, schedules, sizes, &out, !quiet) {
                Ok(m) => {
                    eprintln!(
                        "{} computation vectors of {} programs x {} schedules ({} schedules skipped) into {}",
                        m.vectors, m.programs, schedules, m.skipped, out.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("autosched: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Featurize { inputs, out, programs } => {
            match affine_autosched::features::dataset::featurize_dataset(&inputs, &out, programs) {
                Ok(meta) => {
                    eprintln!(
                        "featurized {} points ({} programs, {} computations, {} features each) into {}; {} skipped",
                        meta.points,
                        meta.programs.len(),
                        meta.computations,
                        meta.features,
                        out.display(),
                        meta.skipped.len()
                    );
                    for s in meta.skipped.iter().take(5) {
                        eprintln!("  skipped: {s}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("autosched: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Predict { file, schedule, model, onnxruntime } => predict(file, schedule, model, onnxruntime),
        Command::Score { dataset, model, onnxruntime, program_ids, out, time_batch } => {
            score(dataset, model, onnxruntime, program_ids, out, time_batch)
        }
        Command::Optimize(args) => optimize(args),
        Command::ExportTransform { mut args, script } => {
            args.emit_transform = Some(script);
            // The IR only where asked for: the script is the output.
            args.output.get_or_insert_with(|| PathBuf::from("/dev/null"));
            optimize(args)
        }
        Command::Records { action } => records_command(action),
        Command::Adapt { budget, out, base, work, mode, seed, sizes, python, no_scratch, no_quiet_wait, quiet } => {
            let cfg = affine_autosched::adapt::AdaptConfig {
                budget, out: out.clone(), base, work, mode, seed, sizes, python,
                root: PathBuf::from(env!("CARGO_MANIFEST_DIR")), progress: !quiet, no_scratch, no_quiet_wait,
            };
            match affine_autosched::adapt::run(&cfg) {
                Ok(line) => {
                    println!("{line}");
                    println!("wrote {} (use it with the pass's model= option)", out.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("autosched: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Tune(args) => tune(args),
        Command::TileSizes { file, band, schedule, budget, cores, sizes, register, columns_outside, l1, prefer_vector_width } => {
            let vector_bits = prefer_vector_width.map(|w| w.parse().expect("checked by clap"));
            tile_sizes(file, band, schedule, TileSizesOptions { budget, cores, sizes, register, columns_outside, l1, vector_bits })
        }
        Command::Layout => {
            quiet_on_broken_pipe();
            println!("{}", serde_json::to_string_pretty(&affine_autosched::features::layout::spec()).expect("serializes"));
            ExitCode::SUCCESS
        }
        Command::Program { seed, index, sizes, class } => {
            quiet_on_broken_pipe();
            let p = affine_autosched::datagen::programs::generate_class(seed, index, sizes, class);
            println!("// {} ({:?})\n{}", p.id, p.class, p.mlir);
            ExitCode::SUCCESS
        }
        Command::Fuzz(args) => fuzz(args),
        Command::FuzzWorker { args, indices } => {
            let indices: Result<Vec<u64>, _> = indices.split(',').filter(|s| !s.is_empty()).map(str::parse).collect();
            let Ok(indices) = indices else {
                eprintln!("autosched: error: --indices must be comma-separated integers");
                return ExitCode::from(2);
            };
            match affine_autosched::fuzz::worker(&args.config(), &indices) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("autosched: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::CWrapper { file, function, output } => c_wrapper(file, function, output),
        Command::Run(args) => run(args),
        Command::Describe { file, function, lines, tree, allow_unregistered_dialect } => {
            quiet_on_broken_pipe();
            let module = match load(&file, allow_unregistered_dialect) {
                Ok(m) => m,
                Err(code) => return code,
            };
            let mut programs = pass::describe(&module.functions());
            if let Some(name) = &function {
                programs.retain(|p| &p.function == name);
                if programs.is_empty() {
                    eprintln!("autosched: error: no function @{name} in {}", file.display());
                    return ExitCode::from(2);
                }
            }
            for p in &programs {
                if !tree {
                    for nm in &p.not_modeled {
                        eprintln!("{}: remark: affine-autosched: nest not modeled: {}", nm.location, nm.reason);
                    }
                }
                log::info!("{p}");
            }
            let out = if tree {
                programs.iter().map(|p| p.to_tree_string()).collect::<Vec<_>>().join("\n")
            } else if lines {
                programs.iter().map(|p| serde_json::to_string(p).expect("plain data")).collect::<Vec<_>>().join("\n")
            } else {
                serde_json::to_string_pretty(&programs).expect("plain data")
            };
            use std::io::Write;
            // A closed pipe (e.g. `| head`) is not an error worth a panic.
            let _ = writeln!(std::io::stdout(), "{out}");
            ExitCode::SUCCESS
        }
    }
}
