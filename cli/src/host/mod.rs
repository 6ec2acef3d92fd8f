//! `zlink host NAME RID REDIS_URL`: the Rust host of the five-language
//! interop run (docs/interop.md, interop/run.sh), a small Spot runtime over
//! zlink-core in-process. It moves frames over TCP and asks zlink for every
//! routing decision. One thread runs everything from one channel (frames,
//! commands, timers), so Actors need no locks; reader threads only queue
//! what arrives. Commands come on stdin, one per line; each answer is one
//! JSON line on stdout.

mod node;
mod transport;

use std::error::Error;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use zlink_core::{MeshName, NodeGeneration, NodeIdentity, NodeRid, OwnerLeaseGeneration, Runtime};
use zlink_redis::RedisStore;

use node::Host;
use transport::{Input, Transport};

/// The host's arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct HostArgs {
    /// The host's name in the run (its language: java, python, node, c, rust).
    name: String,
    /// Its routing ID.
    rid: u64,
    /// The Redis Location Store every host shares.
    redis_url: String,
}

/// Runs the host until stdin closes or `quit` comes.
pub(crate) fn run(args: &HostArgs) -> Result<(), Box<dyn Error>> {
    Ok(serve(&args.name, args.rid, &args.redis_url)?)
}

fn serve(name: &str, rid: u64, url: &str) -> Result<(), String> {
    let store = RedisStore::open(url).map_err(|e| e.to_string())?;
    let identity = NodeIdentity {
        mesh: MeshName::new("interop").map_err(|e| e.to_string())?,
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(1),
    };
    let rt = Runtime::builder(identity)
        .store(Arc::new(store))
        .build()
        .map_err(|e| e.to_string())?;
    let (inbox, arrivals) = mpsc::channel();
    let port = Transport::listen(inbox.clone()).map_err(|e| e.to_string())?;
    let stdin_inbox = inbox.clone();
    thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if stdin_inbox.send(Input::Command(line)).is_err() {
                return;
            }
        }
        let _ = stdin_inbox.send(Input::Command("quit".to_owned()));
    });
    let mut host = Host::new(name, rid, rt, inbox);
    let say = |v: Value| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    };
    say(json!({ "ok": true, "port": port }));
    loop {
        let now = host.rt.now();
        let wait = host
            .rt
            .next_deadline()
            .map_or(Duration::from_millis(10), |d| {
                Duration::from_nanos(d.0.saturating_sub(now.0)).min(Duration::from_millis(10))
            });
        match arrivals.recv_timeout(wait) {
            Ok(Input::Frame(from, frame)) => {
                let d = host.rt.on_frame(NodeRid(from), &frame);
                host.handle(d);
            }
            Ok(Input::Command(line)) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.first().is_none_or(|w| *w == "quit") {
                    say(json!({ "ok": true }));
                    return Ok(());
                }
                say(match host.command(&words) {
                    Ok(Value::Object(mut fields)) => {
                        fields.insert("ok".to_owned(), json!(true));
                        Value::Object(fields)
                    }
                    Ok(other) => json!({ "ok": true, "value": other }),
                    Err(e) => json!({ "ok": false, "error": e }),
                });
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        host.tick();
    }
}
