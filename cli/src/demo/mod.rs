//! `zlink demo`: three MeshNode runtimes in one process, sharing one
//! Location Store, walk through the routing rules of spec §2: cold and warm
//! resolution, a relocation met by a stale cached route, Missing and
//! Unavailable.
//!
//! The store is the embedded one (one manual clock drives everything) or,
//! with `--store URL`, a real Redis or Redis Cluster under a fresh key
//! prefix (real time; see `cluster`). Every scene checks the outcomes it
//! narrates on either store and fails the command when one differs, so
//! `zlink demo --json` doubles as the smoke test `make test` runs.

use std::error::Error;
use std::fmt::{self, Display};
use std::io::{self, Write};

use zlink_core::{InvalidationReason, Stats};

/// A scene saw an outcome other than the one it demonstrates: the core's
/// behaviour no longer matches what the demo (and the spec) says.
#[derive(Debug)]
struct Unexpected(String);

impl Display for Unexpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unexpected outcome: {}", self.0)
    }
}

impl Error for Unexpected {}

/// Fails the current scene unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(Box::new($crate::demo::Unexpected(format!($($msg)+))));
        }
    };
}

mod cluster;
mod scenes;
mod summary;

pub(crate) use cluster::Backend;
use cluster::Cluster;
use scenes::{PLAYER, SCENES};

type DemoResult<T = ()> = Result<T, Box<dyn Error>>;

/// Prints the narration, or nothing in `--json` mode so stdout stays one
/// JSON document.
struct Narrator {
    quiet: bool,
}

// Write errors are ignored: a reader that stops early (`zlink demo | head`)
// must not stop the scenes, whose checks decide the exit status.
impl Narrator {
    fn scene(&self, title: &str) {
        if !self.quiet {
            let _ = writeln!(io::stdout(), "\n== {title}");
        }
    }

    fn say(&self, line: impl Display) {
        if !self.quiet {
            let _ = writeln!(io::stdout(), "  {line}");
        }
    }
}

/// Runs every scene in order on `backend`; the first unexpected outcome
/// stops the demo.
pub(crate) fn run(json: bool, backend: Backend) -> DemoResult {
    let narrator = Narrator { quiet: json };
    let cluster = Cluster::start(backend)?;
    for line in cluster.intro() {
        narrator.say(line);
    }
    for (name, scene) in SCENES {
        scene(&cluster, &narrator).map_err(|e| format!("scene {name}: {e}"))?;
    }
    if json {
        writeln!(io::stdout(), "{}", summary::summary(&cluster))?;
    } else {
        totals(&cluster, &narrator);
    }
    Ok(())
}

/// The closing narration: the mesh's main counters and, on Redis, where
/// the records the demo left can be inspected.
fn totals(cluster: &Cluster, narrator: &Narrator) {
    let all: Vec<Stats> = cluster.nodes().iter().map(|n| n.rt.stats()).collect();
    narrator.scene("totals");
    narrator.say(format_args!(
        "{} scenes checked; cache hits {}, misses {}, store reads {}, stale-route invalidations {}",
        SCENES.len(),
        all.iter().map(|s| s.cache_hits).sum::<u64>(),
        all.iter().map(|s| s.cache_misses).sum::<u64>(),
        all.iter().map(|s| s.store_reads).sum::<u64>(),
        all.iter()
            .map(|s| s.invalidations_for(InvalidationReason::StaleRoute))
            .sum::<u64>(),
    ));
    narrator.say("(`zlink demo --json` prints every counter)");
    if let Backend::Redis { url, prefix } = &cluster.backend {
        narrator.say(format_args!(
            "the records stay in Redis under {prefix}:*; read one with\n    \
             zlink inspect --store {} --prefix {prefix} actor {PLAYER}",
            crate::store::masked(url),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_passes_and_the_summary_has_the_documented_keys() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary::summary(&cluster);
        for key in [
            "resolutions",
            "cache_hits",
            "cache_misses",
            "store_reads",
            "invalidations",
            "scenes",
            "nodes",
            "store",
        ] {
            assert!(doc.get(key).is_some(), "missing top-level key {key}");
        }
        for tag in ["ReadyRoute", "Missing", "Unavailable", "StoreFailure"] {
            assert!(doc["resolutions"][tag].is_u64(), "missing resolution {tag}");
        }
        assert_eq!(doc["invalidations"]["stale_route"], 1);
        assert_eq!(doc["resolutions"]["StoreFailure"], 0);
        assert_eq!(doc["nodes"]["node-c"]["rid"], 3);
        assert_eq!(doc["store"], serde_json::json!({"kind": "memory"}));
        assert_eq!(doc["clock_ms"], 31_000, "the manual timeline is unchanged");
    }
}
