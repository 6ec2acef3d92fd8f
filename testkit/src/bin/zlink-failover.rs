//! `zlink-failover sentinel|cluster [KEY]`: runs a [`FailoverDrill`] for a
//! test in another language (Python, Node, JVM, C), which drives it over
//! stdin/stdout one line at a time:
//!
//! - first the kit prints `ready URL` (the store URL to connect to);
//! - `cut-off` → `ok`: the key's replica stops reading and its primary
//!   drops the replication link;
//! - `fail-over` → `ok MS`: the primary is killed and the stale replica
//!   promoted; MS is how long that took after the primary died;
//! - a failed command → `error WHY` (the drill goes on);
//! - `quit`, or the end of stdin (the test ended or died) → every server
//!   stops and the kit exits.
//!
//! KEY is the Redis key whose primary fails over: `zlink:{actor:x}`
//! (prefix `zlink`, Actor `x`) unless given.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use zlink_testkit::{Deployment, FailoverDrill};

const USAGE: &str = "usage: zlink-failover sentinel|cluster [KEY]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(deployment), key) = (
        args.first().and_then(|d| Deployment::parse(d)),
        args.get(1).map_or("zlink:{actor:x}", String::as_str),
    ) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if args.len() > 2 {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let drill = match FailoverDrill::start(deployment, key) {
        Ok(drill) => drill,
        Err(e) => {
            eprintln!("zlink-failover: cannot start the deployment: {e}");
            return ExitCode::FAILURE;
        }
    };
    match serve(&drill) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zlink-failover: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Answers commands until `quit` or the end of stdin.
fn serve(drill: &FailoverDrill) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "ready {}", drill.url())?;
    out.flush()?;
    for line in io::stdin().lock().lines() {
        let answer = match line?.trim() {
            "cut-off" => drill.cut_off().map(|()| "ok".to_owned()),
            "fail-over" => drill
                .fail_over()
                .map(|died| format!("ok {}", died.elapsed().as_millis())),
            "quit" => return Ok(()),
            other => Err(io::Error::other(format!("unknown command {other:?}"))),
        };
        match answer {
            Ok(text) => writeln!(out, "{text}")?,
            Err(e) => writeln!(out, "error {e}")?,
        }
        out.flush()?;
    }
    Ok(())
}
