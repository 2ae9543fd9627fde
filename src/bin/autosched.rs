//! `autosched`: the command line of affine-autosched.

use affine_autosched::{mlir::LoadedModule, pass};
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
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match cli.command {
        Command::Describe { file, function, lines, tree, allow_unregistered_dialect } => {
            let module = match LoadedModule::from_file_with(&file, allow_unregistered_dialect) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("autosched: error: {e}");
                    return ExitCode::from(2);
                }
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
