//! `autosched`: the command line of affine-autosched.

use affine_autosched::schedule::ScheduleSpec;
use affine_autosched::{mlir::LoadedModule, pass, transform};
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
    },
}

fn load(file: &PathBuf, allow_unregistered: bool) -> Result<LoadedModule, ExitCode> {
    LoadedModule::from_file_with(file, allow_unregistered).map_err(|e| {
        eprintln!("autosched: error: {e}");
        ExitCode::from(2)
    })
}

fn apply(file: PathBuf, schedule: String, output: Option<PathBuf>) -> ExitCode {
    let spec: ScheduleSpec = match schedule.parse() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("autosched: error: {e}");
            return ExitCode::from(2);
        }
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
        applied += 1;
    }
    if applied == 0 {
        eprintln!("autosched: error: no function in {} matches the schedule", file.display());
        return ExitCode::from(2);
    }
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

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match cli.command {
        Command::Apply { file, schedule, output } => apply(file, schedule, output),
        Command::Describe { file, function, lines, tree, allow_unregistered_dialect } => {
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
