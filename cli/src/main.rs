//! `zlink`: the command-line face of the zlink routing core.
//!
//! `zlink demo` runs the in-process demo (on the embedded store, or on Redis
//! with `--store`); `make test` runs `zlink demo --json` as a smoke test, so
//! every outcome the demo narrates is also checked. `zlink inspect` reads
//! one authority record from a Redis Location Store. `zlink sim` runs the
//! seeded whole-cluster simulation; `zlink host` is the Rust host of the
//! five-language interop run (interop/run.sh).

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use zlink_core::{InputError, ObjectKey, ObjectKind};

mod demo;
mod diagram;
mod host;
mod inspect;
mod sim;
mod store;

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
    /// node-a, node-b and node-c share one Location Store: the embedded one
    /// with a manual clock by default, or Redis with `--store`. The scenes:
    /// activation, cold then warm resolution, a relocation met by a stale
    /// cached route, Missing, and Unavailable (Creating, Releasing,
    /// LeaseExpired). Scene f. measures the performance cliff of moves
    /// under traffic on a separate in-process mesh (also under `--store`),
    /// with relay notifications on and off. Scene g. sends requests to an
    /// actor on the three nodes and answers them on their reply route
    /// through a relocation, with one timeout and one cancellation. The
    /// last scene, h., binds a session to three actors on another
    /// in-process mesh (also under `--store`) and moves one of them
    /// mid-stream: its messages are held, then released in order, while
    /// the other two keep their routes. Every outcome is checked; the
    /// command exits non-zero if one differs.
    Demo(DemoArgs),
    /// Print the authority record of one Spot or Actor in a Redis Location Store.
    ///
    /// Shows state, generations, owner, owner lease (on the store's clock),
    /// store version, last proposal, store time and epoch, and the Redis key.
    /// No record prints "no authority record (Missing)" and succeeds.
    Inspect(InspectArgs),
    /// Run a seeded, deterministic simulation of a whole cluster.
    ///
    /// Each seed drives real runtimes on the in-process mesh (one manual
    /// clock, one embedded store, a simulated network) through random
    /// sends, requests, session binds and relays, moves (concurrent, back
    /// and forth, aborted), node crashes and restarts, store failures and
    /// stalls, a lossy, slow and reordering network, lost notifications,
    /// config changes and clock advances, and checks the routing invariants
    /// after every step. A failing seed prints the command that replays it;
    /// the last line gives seeds per second.
    Sim(sim::SimArgs),
    /// Run one host of the five-language interop run (interop/run.sh).
    ///
    /// A small Spot runtime on a Redis Location Store with frames over TCP
    /// (docs/interop.md), driven by commands on stdin, one JSON answer per
    /// line on stdout.
    Host(host::HostArgs),
}

#[derive(Debug, Args)]
struct DemoArgs {
    /// Print one JSON summary of the runtimes' counters instead of the
    /// narration; the cliff scene's numbers are under `cliff` (both runs)
    /// and, for the notifications-on run, also at the top level; the
    /// request/reply scene's are `requests`, `terminal_results`,
    /// `double_completions` and `late_results_dropped`; the session
    /// scene's are `session_relays`, `session_held`,
    /// `session_order_violations` (always 0) and a `session` object.
    #[arg(long)]
    json: bool,
    /// After the narration, print each node's metrics in the Prometheus
    /// text exposition format: the counters and the latency histograms
    /// (store reads and writes, moves, held work, requests, binds), as a
    /// scrape of that node would read them (docs/metrics.md).
    #[arg(long, conflicts_with = "json")]
    metrics: bool,
    /// Draw scene h. (an actor moving a -> b -> c -> a under traffic on
    /// six in-process nodes) as a sequence diagram: every frame carried,
    /// every decision (held, relayed, notified, delivered) and due timer
    /// per node. Writes the Mermaid text to FILE and a page that opens in
    /// a browser (an SVG drawing, the Mermaid text beside it) to FILE with
    /// `.html`.
    #[arg(long, value_name = "FILE")]
    trace: Option<std::path::PathBuf>,
    /// Run on Redis instead of the embedded store: redis://HOST:PORT,
    /// rediss://HOST:PORT (TLS), redis+cluster://HOST:PORT,HOST:PORT or
    /// redis+sentinel://HOST:PORT,HOST:PORT/MASTER.
    ///
    /// Keys go under a fresh prefix (zlink-demo-PID-MILLIS, printed) and are
    /// left there for `zlink inspect`. Leases then expire on the server's
    /// clock, so the demo uses real time with 1.5 s leases and waits ~2 s.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// The Redis Location Store: redis://HOST:PORT, rediss://HOST:PORT,
    /// redis+cluster://HOST:PORT,HOST:PORT or
    /// redis+sentinel://HOST:PORT,HOST:PORT/MASTER.
    ///
    /// Required: the embedded store lives only inside the process that runs
    /// it, so no other command can read it.
    #[arg(long, value_name = "URL")]
    store: String,
    /// Key prefix the runtimes were configured with (`zlink demo --store`
    /// prints its own).
    #[arg(long, value_name = "P", default_value = "zlink", value_parser = key_prefix)]
    prefix: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The object's kind.
    #[arg(value_enum)]
    kind: Kind,
    /// The object's global ID (1 to 65535 bytes, taken verbatim).
    id: String,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    Spot,
    Actor,
}

impl From<Kind> for ObjectKind {
    fn from(kind: Kind) -> Self {
        match kind {
            Kind::Spot => ObjectKind::Spot,
            Kind::Actor => ObjectKind::Actor,
        }
    }
}

/// The rule `RedisStore` applies to its prefix (no braces: they would move
/// the hash tag), checked here so the error names the flag.
fn key_prefix(prefix: &str) -> Result<String, &'static str> {
    if prefix.is_empty() || prefix.contains(['{', '}']) {
        return Err("the key prefix must be non-empty and without braces");
    }
    Ok(prefix.to_owned())
}

/// Accepts any ID a runtime could have stored: the largest cap a config may
/// set, not the default one, since the deployment's cap is unknown here.
/// Checked after parsing, so a rejected ID of 64 KiB is not echoed back.
fn check_object_id(kind: Kind, id: &str) -> Result<(), InputError> {
    ObjectKey::new(kind.into(), id).map(drop)
}

/// Exits as clap does for a bad argument (status 2, the subcommand's usage).
fn usage_error(subcommand: &str, message: String) -> ! {
    let mut root = Cli::command();
    // Building names every subcommand `zlink <sub>` for its usage line.
    root.build();
    let mut command = root
        .find_subcommand_mut(subcommand)
        .map_or_else(Cli::command, |sub| sub.clone());
    command.error(ErrorKind::ValueValidation, message).exit()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Inspect(args) = &cli.command
        && let Err(e) = check_object_id(args.kind, &args.id)
    {
        usage_error("inspect", format!("invalid <ID>: {e}"));
    }
    let result = match cli.command {
        Command::Demo(args) => demo::run(
            demo::Output::of(args.json, args.metrics),
            demo::Backend::from_arg(args.store.as_deref()),
            args.trace.as_deref(),
        ),
        Command::Sim(args) => sim::run(&args),
        Command::Host(args) => host::run(&args),
        Command::Inspect(args) => inspect::run(&inspect::Request {
            url: &args.store,
            prefix: &args.prefix,
            kind: args.kind.into(),
            id: &args.id,
            json: args.json,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zlink: error: {e}");
            ExitCode::FAILURE
        }
    }
}
