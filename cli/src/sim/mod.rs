//! `zlink sim`: a deterministic, seeded simulation of a whole cluster
//! (after FoundationDB's simulator and TigerBeetle's VOPR). Each seed runs a
//! random cluster on the in-process mesh (`zlink_core::mesh`: real runtimes,
//! one manual clock, one embedded store, a simulated network), draws a few
//! hundred steps of traffic, moves, faults and time, and checks the
//! invariants after every step and once more when everything has settled.
//! A failing seed prints the command that replays it, shrunk to the
//! shortest failing run.
//!
//! `rng` is the only source of chance, `world` the cluster and what the run
//! remembers, `steps` what can happen, `checks` the invariants.

use std::error::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use zlink_core::mesh::Diagram;

mod checks;
mod rng;
mod steps;
mod world;

use checks::Violation;
use world::{Inject, Params, World};

/// `zlink sim` arguments.
#[derive(Debug, Args)]
pub(crate) struct SimArgs {
    /// The seed of the (first) run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many seeds to run: SEED, SEED+1, … (stops at the first failure).
    #[arg(long, value_name = "COUNT", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    seeds: u64,
    /// Nodes in the cluster.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(2..=16))]
    nodes: u64,
    /// Objects activated at the start (more are activated as it runs).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=64))]
    objects: u64,
    /// Steps per run, before everything settles and the end checks run.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    steps: u64,
    /// Stop starting new seeds after this many seconds of wall time (it
    /// never changes what a run does).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    max_seconds: Option<u64>,
    /// Also let links deliver a frame twice (outside the transport the spec
    /// assumes: operations are not deduplicated by the core).
    #[arg(long)]
    duplicate: bool,
    /// Also let a link reorder its own frames (outside the transport the
    /// spec assumes: relocation relies on ordered connections).
    #[arg(long)]
    unordered: bool,
    /// Also check that each Session's relays arrive in the order it sent
    /// them (§3.1); not a default: §3.3's commit 1 s after relay-ready
    /// lets a lost or slow relay span be overtaken (seed 1002422).
    #[arg(long)]
    session_order: bool,
    /// Print every step of every run.
    #[arg(long)]
    verbose: bool,
    /// Draw the run as a sequence diagram: every frame carried or lost,
    /// every decision and due timer per node, each step as a band. Writes
    /// the Mermaid text to FILE and a page that opens in a browser (an
    /// SVG drawing, the Mermaid text beside it) to FILE with `.html`.
    /// With several seeds, the last one run (a failing one) is drawn.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Do not shrink a failing run.
    #[arg(long)]
    no_shrink: bool,
    /// Run every seed twice and fail if the two runs differ.
    #[arg(long, hide = true)]
    check_replay: bool,
    /// Plant a bug, to show the checks catch it.
    #[arg(long, hide = true, value_enum)]
    inject: Option<Inject>,
}

/// How one seed's run ended.
struct Outcome {
    /// The step (1-based; `steps + 1` is the end) and what broke.
    failure: Option<(u64, Violation)>,
    trace: Vec<String>,
    digest: u64,
    totals: Totals,
    steps_run: Vec<u64>,
    /// The run's picture, when drawn.
    diagram: Option<Diagram>,
}

/// What the runs did, summed (so a run that does nothing shows).
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    operations: usize,
    delivered: usize,
    detoured: usize,
    requests: usize,
    relays: usize,
    moves: usize,
    lost_by_faults: usize,
}

impl Totals {
    fn add(&mut self, o: &Totals) {
        self.operations += o.operations;
        self.delivered += o.delivered;
        self.detoured += o.detoured;
        self.requests += o.requests;
        self.relays += o.relays;
        self.moves += o.moves;
        self.lost_by_faults += o.lost_by_faults;
    }
}

impl SimArgs {
    fn params(&self, steps: u64) -> Params {
        Params {
            nodes: self.nodes,
            objects: self.objects as usize,
            steps: steps as usize,
            duplicate: self.duplicate,
            unordered: self.unordered,
            session_order: self.session_order,
            inject: self.inject,
        }
    }

    /// The one-line command that replays `seed` with `steps` steps.
    fn replay(&self, seed: u64, steps: u64) -> String {
        let mut line = format!(
            "cargo run -q -p zlink-cli -- sim --seed {seed} --steps {steps} --nodes {} --objects {}",
            self.nodes, self.objects
        );
        for (on, flag) in [
            (self.duplicate, " --duplicate"),
            (self.unordered, " --unordered"),
            (self.session_order, " --session-order"),
        ] {
            if on {
                line.push_str(flag);
            }
        }
        if let Some(bug) = self.inject {
            let name = clap::ValueEnum::to_possible_value(&bug)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default();
            line.push_str(&format!(" --inject {name}"));
        }
        line + " --verbose"
    }
}

/// Runs one seed to the end or to its first broken invariant. A panic in
/// the core or the harness is a failure of the seed, not of the command.
fn run_seed(seed: u64, params: Params, show: Show) -> Result<Outcome, Box<dyn Error>> {
    let steps = params.steps as u64;
    let verbose = show.verbose;
    let mut world = World::new(seed, params)?;
    if show.draw {
        world.mesh.draw();
    }
    let mut trace = Vec::new();
    let mut failure = None;
    let ran = catch_unwind(AssertUnwindSafe(|| {
        for n in 1..=steps {
            let before = world.mesh.diagram().map(Diagram::len);
            let what = steps::step(&mut world);
            // A step that did nothing is no band of the picture.
            if let (Some(at), Some(d)) = (before, world.mesh.diagram_mut())
                && !what.ends_with("nothing to do")
            {
                d.note_at(at, &format!("step {n}: {what}"));
            }
            if verbose {
                println!("  {n:>5} {what}");
            }
            trace.push(what);
            if let Err(v) = checks::after_step(&world) {
                failure = Some((n, v));
                return;
            }
        }
        if let Some(d) = world.mesh.diagram_mut() {
            d.note("settle: faults healed, every frame carried, every timer run");
        }
        steps::settle(&mut world);
        let l = &world.mesh.ledger;
        let summary = format!(
            "end: {} delivered, {} ended, {} completed, {} session relays",
            l.delivered.len(),
            l.ended.len(),
            l.completed.len(),
            l.session_delivered.len()
        );
        // The whole ledger, not just its sizes: IDs are seeded, so any
        // difference between two runs of a seed shows in the digest.
        let fates = format!(
            "{:?}{:?}{:?}{:?}",
            l.delivered, l.ended, l.completed, l.session_delivered
        );
        world.note(&summary);
        world.note(&fates);
        if verbose {
            println!("  {summary}");
        }
        trace.push(summary);
        if let Err(v) = checks::after_step(&world).and_then(|()| checks::at_end(&world)) {
            failure = Some((steps + 1, v));
        }
    }));
    if let Err(panic) = ran {
        let text = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        failure = Some((
            trace.len() as u64 + 1,
            Violation {
                invariant: "no panic",
                detail: text,
            },
        ));
    }
    let l = &world.mesh.ledger;
    let totals = Totals {
        operations: l.sent.len(),
        delivered: l.delivered.len(),
        detoured: l.detours(),
        requests: world.requests.len(),
        relays: world.relays.len(),
        moves: world.commits.len(),
        lost_by_faults: l.lost_with_frames.len() + l.lost_with_process.len(),
    };
    let diagram = world.mesh.diagram().cloned();
    Ok(Outcome {
        failure,
        trace,
        digest: world.digest,
        totals,
        steps_run: world.steps_run,
        diagram,
    })
}

/// What a run shows as it goes.
#[derive(Debug, Clone, Copy, Default)]
struct Show {
    /// Print every step.
    verbose: bool,
    /// Draw the run.
    draw: bool,
}

/// Writes `diagram` of `seed`'s run and says where.
fn write_diagram(path: &Path, seed: u64, diagram: &Diagram) -> Result<(), Box<dyn Error>> {
    let (mermaid, page) =
        crate::diagram::write(path, &format!("zlink sim --seed {seed}"), diagram)?;
    println!(
        "sim: drew seed {seed} ({} events): {mermaid} (Mermaid), {page} (open it in a browser)",
        diagram.len()
    );
    Ok(())
}

/// The fewest steps with which `seed` still fails. A failure after step
/// `n` needs only `n` steps (the first `n` steps do not depend on how many
/// follow); one found at the end is searched for by halving.
fn shrink(args: &SimArgs, seed: u64, at: u64) -> Result<u64, Box<dyn Error>> {
    let steps = args.steps;
    if at <= steps {
        return Ok(at);
    }
    let (mut lo, mut hi) = (1, steps);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if run_seed(seed, args.params(mid), Show::default())?
            .failure
            .is_some()
        {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(hi)
}

/// `zlink sim`.
pub(crate) fn run(args: &SimArgs) -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let mut totals = Totals::default();
    let mut steps_run = vec![0u64; steps::STEPS.len()];
    let mut ran = 0u64;
    let last = args.seed.saturating_add(args.seeds - 1);
    for seed in args.seed..=last {
        if args
            .max_seconds
            .is_some_and(|max| started.elapsed().as_secs() >= max)
        {
            println!("sim: time bound reached after {ran} seeds");
            break;
        }
        if args.verbose {
            println!("seed {seed}:");
        }
        let show = Show {
            verbose: args.verbose,
            draw: args.trace.is_some(),
        };
        let outcome = run_seed(seed, args.params(args.steps), show)?;
        if let (Some(path), Some(d)) = (&args.trace, &outcome.diagram)
            && (outcome.failure.is_some() || seed == last)
        {
            write_diagram(path, seed, d)?;
        }
        ran += 1;
        totals.add(&outcome.totals);
        for (sum, n) in steps_run.iter_mut().zip(&outcome.steps_run) {
            *sum += n;
        }
        if args.check_replay {
            let again = run_seed(seed, args.params(args.steps), Show::default())?;
            if again.digest != outcome.digest {
                return Err(format!(
                    "seed {seed} did not replay identically (digest {:x} then {:x})\nreplay: {}",
                    outcome.digest,
                    again.digest,
                    args.replay(seed, args.steps)
                )
                .into());
            }
        }
        if let Some((at, v)) = outcome.failure {
            let when = if at > args.steps {
                "at the end".to_owned()
            } else {
                format!("after step {at}")
            };
            println!("seed {seed}: FAILED {when}: {}: {}", v.invariant, v.detail);
            if !args.verbose {
                let from = outcome.trace.len().saturating_sub(12);
                println!("last steps:");
                for (i, what) in outcome.trace.iter().enumerate().skip(from) {
                    println!("  {:>5} {what}", i + 1);
                }
            }
            let steps = if args.no_shrink {
                args.steps
            } else {
                shrink(args, seed, at)?
            };
            println!("replay: {}", args.replay(seed, steps));
            println!(
                "(add --trace seed-{seed}.mmd to draw it as a sequence diagram, seed-{seed}.html \
                 opens in a browser; ZLINK_MESH_TRACE=1 before it prints every frame, decision \
                 and due timer)"
            );
            return Err(format!("seed {seed} broke \"{}\"", v.invariant).into());
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "sim: {ran} seeds from {} passed ({} nodes, {} objects, {} steps each): \
         {} operations, {} delivered ({} by Message Follow), {} requests, \
         {} session relays, {} moves committed, {} operations lost to injected faults",
        args.seed,
        args.nodes,
        args.objects,
        args.steps,
        totals.operations,
        totals.delivered,
        totals.detoured,
        totals.requests,
        totals.relays,
        totals.moves,
        totals.lost_by_faults
    );
    println!(
        "sim: steps that did something: {}",
        steps::tally(&steps_run)
    );
    println!(
        "sim: {:.1} seeds/s ({ran} seeds in {secs:.1} s)",
        ran as f64 / secs.max(1e-9)
    );
    Ok(())
}
