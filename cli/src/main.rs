//! `zlink`: the command-line face of the zlink routing core.
//!
//! Today it runs the in-process demo; `make test` runs `zlink demo --json`
//! as a smoke test, so every outcome the demo narrates is also checked.

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod demo;

/// zlink: routing core of a distributed virtual-actor framework.
#[derive(Debug, Parser)]
#[command(name = "zlink", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run three in-process nodes and narrate how global IDs are routed.
    ///
    /// node-a, node-b and node-c share one embedded Location Store and one
    /// manual clock. The scenes: activation, cold then warm resolution, a
    /// relocation met by a stale cached route, Missing, and Unavailable
    /// (Creating, Releasing, LeaseExpired). Every outcome is checked; the
    /// command exits non-zero if one differs.
    Demo(DemoArgs),
}

#[derive(Debug, Args)]
struct DemoArgs {
    /// Print one JSON summary of the runtimes' counters instead of the narration.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => demo::run(args.json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zlink: error: {e}");
            ExitCode::FAILURE
        }
    }
}
