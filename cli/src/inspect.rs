//! `zlink inspect`: reads one object's authority record straight from a
//! Redis Location Store and prints it, with the store's time and epoch.
//!
//! It reads through `RedisStore`, the very code the runtimes use, so what it
//! shows is what a resolver would read (decoding included), not a second
//! interpretation of the Redis hash.

use std::error::Error;
use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Value, json};
use zlink_core::store::Observed;
use zlink_core::{AuthorityRecord, KeyRef, LocationStore, ObjectKind};

use crate::store;

/// Longest wait for the one read. The store's own response timeout (2 s)
/// ends it first; this only guarantees the command cannot hang.
const READ_DEADLINE: Duration = Duration::from_secs(10);

/// What to inspect, and where.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub(crate) url: &'a str,
    pub(crate) prefix: &'a str,
    pub(crate) kind: ObjectKind,
    pub(crate) id: &'a str,
    pub(crate) json: bool,
}

/// One read of the record, as printed.
struct Report<'a> {
    request: &'a Request<'a>,
    redis_key: String,
    observed: Observed<Option<AuthorityRecord>>,
}

/// Opens the store, reads the record once and prints it. A missing record
/// is an answer (`Missing`), not an error.
pub(crate) fn run(request: &Request<'_>) -> Result<(), Box<dyn Error>> {
    let store = store::open_redis(request.url, request.prefix)?;
    let key = KeyRef {
        kind: request.kind,
        id: request.id,
    };
    // The store's connection is driven by its own I/O thread; a call made
    // inside a tokio runtime runs on that runtime, so give it timers and I/O.
    let waiter = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let observed = waiter
        .block_on(async { tokio::time::timeout(READ_DEADLINE, store.read(key)).await })
        .map_err(|_| format!("the store did not answer within {READ_DEADLINE:?}"))?
        .map_err(|e| format!("reading {} {:?}: {e}", request.kind, request.id))?;
    let report = Report {
        request,
        redis_key: store.key_of(key),
        observed,
    };
    let mut out = io::stdout().lock();
    if request.json {
        writeln!(out, "{}", report.json())?;
    } else {
        write!(out, "{}", report.text())?;
    }
    Ok(())
}

impl Report<'_> {
    /// Milliseconds of lease left on the store's clock; negative once over.
    fn lease_left(&self, record: &AuthorityRecord) -> i64 {
        let left =
            i128::from(record.owner.lease.expires_at.0) - i128::from(self.observed.store_time.0);
        // Both are u64 store times: the difference fits i64 unless corrupt.
        i64::try_from(left).unwrap_or(if left > 0 { i64::MAX } else { i64::MIN })
    }

    fn text(&self) -> String {
        let r = self.request;
        let mut out = format!("{} {} (key {})\n", r.kind, r.id, self.redis_key);
        let mut row = |name: &str, value: String| {
            out.push_str(&format!("  {name:<27} {value}\n"));
        };
        match &self.observed.value {
            None => row("state", "no authority record (Missing)".to_owned()),
            Some(record) => {
                let owner = &record.owner;
                let left = self.lease_left(record);
                let lease_left = if left > 0 {
                    format!("{left} ms left")
                } else {
                    format!("expired {} ms ago", left.unsigned_abs())
                };
                row("state", record.state.as_str().to_owned());
                row("object generation", record.object_generation.to_string());
                row(
                    "authority owner generation",
                    record.authority_owner_generation.to_string(),
                );
                row(
                    "owner",
                    format!(
                        "mesh {}, node rid {}, node generation {}",
                        owner.route.mesh, owner.route.node, owner.node_generation
                    ),
                );
                row(
                    "owner lease",
                    format!(
                        "generation {}, expires at {} ms (store clock), {lease_left}",
                        owner.lease.generation, owner.lease.expires_at.0
                    ),
                );
                row("store version", record.store_version.to_string());
                row("last proposal", record.last_proposal.to_string());
            }
        }
        row("store time", format!("{} ms", self.observed.store_time.0));
        row("epoch", self.observed.epoch.0.to_string());
        out
    }

    /// One JSON object. Proposal ids and epochs are random 64-bit values:
    /// they are strings, so readers that hold numbers as doubles (jq,
    /// JavaScript) keep them exact. Generations and versions count up from 1.
    fn json(&self) -> Value {
        let r = self.request;
        let record = self.observed.value.as_ref().map(|record| {
            let owner = &record.owner;
            json!({
                "object_generation": record.object_generation.get(),
                "authority_owner_generation": record.authority_owner_generation.get(),
                "owner": {
                    "mesh": owner.route.mesh.as_str(),
                    "node_rid": owner.route.node.get(),
                    "node_generation": owner.node_generation.get(),
                },
                "owner_lease": {
                    "generation": owner.lease.generation.get(),
                    "expires_at_ms": owner.lease.expires_at.0,
                    "ms_left": self.lease_left(record),
                },
                "store_version": record.store_version.get(),
                "last_proposal": record.last_proposal.get().to_string(),
            })
        });
        let state = self
            .observed
            .value
            .as_ref()
            .map_or("missing", |record| record.state.as_str());
        json!({
            "kind": r.kind.as_str(),
            "id": r.id,
            "key": self.redis_key,
            "store": {
                "kind": "redis",
                "prefix": r.prefix,
                "cluster": store::is_cluster(r.url),
            },
            "state": state,
            "record": record,
            "store_time_ms": self.observed.store_time.0,
            "epoch": self.observed.epoch.0.to_string(),
        })
    }
}
