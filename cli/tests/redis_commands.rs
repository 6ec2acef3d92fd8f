//! `zlink demo --store` and `zlink inspect`, run as the real binary against
//! real `redis-server` processes this test starts on loopback ports (never a
//! server it did not start).

use std::ffi::OsStr;
use std::fmt::Debug;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use zlink_testkit::{RedisCluster, RedisServer};

/// How long a command may take against a server that is down: the store's
/// connect timeouts end it in seconds, never a hang.
const FAIL_FAST: Duration = Duration::from_secs(10);

fn zlink<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zlink"))
        .args(args)
        .output()
        .expect("the zlink binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs a command that must succeed and print one JSON document.
fn zlink_json<S: AsRef<OsStr> + Debug>(args: &[S]) -> Value {
    let out = zlink(args);
    assert!(
        out.status.success(),
        "zlink {args:?} failed ({}): {}",
        out.status,
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("zlink {args:?} printed no JSON ({e}): {}", stdout(&out)))
}

/// The prefix a Redis demo run reports, after checking it reports Redis.
fn demo_prefix(doc: &Value, cluster: bool) -> String {
    assert_eq!(doc["store"]["kind"], "redis", "{doc}");
    assert_eq!(doc["store"]["cluster"], cluster, "{doc}");
    let prefix = doc["store"]["prefix"].as_str().expect("a string prefix");
    assert!(prefix.starts_with("zlink-demo-"), "{prefix}");
    prefix.to_owned()
}

/// What the demo leaves for actor player-1: relocated from node-a to node-b
/// (owner generation 2), lease renewed once (store version 4).
fn assert_player_record(doc: &Value, prefix: &str) {
    assert_eq!(doc["state"], "ready", "{doc}");
    assert_eq!(doc["key"], format!("{prefix}:{{actor:player-1}}"));
    let record = &doc["record"];
    // A generation is the store's (Redis: never below its time in ms x 1000,
    // so it cannot repeat after a tombstone expired): only its order counts.
    assert!(
        record["object_generation"].as_u64().is_some_and(|g| g > 0),
        "{doc}"
    );
    assert_eq!(record["authority_owner_generation"], 2, "{doc}");
    assert_eq!(record["owner"]["mesh"], "demo-mesh", "{doc}");
    assert_eq!(record["owner"]["node_rid"], 2, "{doc}");
    assert_eq!(record["owner"]["node_generation"], 1, "{doc}");
    assert_eq!(record["owner_lease"]["generation"], 1, "{doc}");
    assert_eq!(record["store_version"], 4, "{doc}");
    assert!(record["owner_lease"]["ms_left"].is_i64(), "{doc}");
    assert!(doc["store_time_ms"].is_u64(), "{doc}");
    assert!(doc["epoch"].is_string(), "{doc}");
}

#[test]
fn demo_on_redis_checks_every_scene_and_counts_what_the_embedded_demo_counts() {
    let redis = RedisServer::start().expect("redis-server starts");
    let url = redis.url();
    // Three runs at once on one server (two --json, one narrated): fresh
    // prefixes keep them apart.
    let runs: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_zlink"))
                .args(["demo", "--json", "--store", &url])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the zlink binary starts")
        })
        .collect();
    let narrated = Command::new(env!("CARGO_BIN_EXE_zlink"))
        .args(["demo", "--store", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the zlink binary starts");
    let embedded = zlink_json(&["demo", "--json"]);
    assert_eq!(embedded["store"]["kind"], "memory");
    // The cliff scene runs on the in-process mesh, so it reports the same
    // numbers on Redis (compared with the rest below) and says why.
    assert!(
        embedded["cliff"]["notifications_on"].is_object(),
        "{embedded}"
    );
    let out = narrated.wait_with_output().expect("the zlink binary runs");
    assert!(out.status.success(), "demo on Redis: {}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "== f. the performance cliff",
        "(not Redis: the mesh harness is in-process by design)",
        "== g. request/reply through a relocation",
        "the demo waited 300ms",
        "node-c's next_deadline is due: on_timeout -> q3 Timeout",
        "completed twice: 0; late results dropped: 2",
        "== h. relocation handoff: an actor moves a -> b -> c -> a under load",
        "run by a node that no longer owned the actor 0",
        "== i. a session bound to three actors, one relocating mid-stream",
        "0 order violations",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
    // Scenes f. and i. both say why they are not on Redis.
    assert_eq!(
        text.matches("(not Redis: the mesh harness is in-process by design)")
            .count(),
        2,
        "{text}"
    );
    let mut prefixes: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("key prefix "))
        .filter_map(|rest| rest.split(';').next())
        .map(str::to_owned)
        .collect();
    assert_eq!(prefixes.len(), 1, "the narration names its prefix:\n{text}");
    for run in runs {
        let out = run.wait_with_output().expect("the zlink binary runs");
        assert!(out.status.success(), "demo on Redis: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        prefixes.push(demo_prefix(&doc, false));
        // Same scenes, same outcomes: every counter matches the embedded run
        // (the cliff scene's numbers included); only the clock and the store
        // differ.
        for (key, value) in embedded.as_object().expect("an object") {
            if key != "clock_ms" && key != "store" {
                assert_eq!(&doc[key], value, "counter {key} differs on Redis");
            }
        }
        let on = &doc["cliff"]["notifications_on"];
        assert!(
            on["detours_per_move_per_sender"].as_f64() <= Some(1.5),
            "{doc}"
        );
        // The request/reply scene ran on Redis too (its keys were compared
        // with the embedded run's above): every request ended once.
        assert_eq!(doc["requests"], 4, "{doc}");
        assert_eq!(doc["terminal_results"]["Reply"], 2, "{doc}");
        assert_eq!(doc["terminal_results"]["Timeout"], 1, "{doc}");
        assert_eq!(doc["terminal_results"]["Cancelled"], 1, "{doc}");
        assert_eq!(doc["double_completions"], 0, "{doc}");
        assert_eq!(doc["late_results_dropped"], 2, "{doc}");
        // The session scene, on its in-process mesh (its keys were compared
        // with the embedded run's above): order kept, held ones counted.
        assert_eq!(doc["session_order_violations"], 0, "{doc}");
        assert_eq!(doc["session_held"], 4, "{doc}");
        assert_eq!(doc["session_relays"], 35, "{doc}");
    }
    let distinct: std::collections::BTreeSet<_> = prefixes.iter().collect();
    assert_eq!(
        distinct.len(),
        3,
        "each run gets its own prefix: {prefixes:?}"
    );

    let keys = redis.cli(&["--scan"]).expect("redis-cli scan");
    assert!(!keys.trim().is_empty(), "the demo leaves its records");
    for key in keys.lines() {
        assert!(
            prefixes.iter().any(|p| key.starts_with(&format!("{p}:"))),
            "key {key:?} outside the demo's prefixes"
        );
    }
}

#[test]
fn inspect_prints_the_record_the_demo_left_and_missing_for_a_new_id() {
    let redis = RedisServer::start().expect("redis-server starts");
    let url = redis.url();
    let prefix = demo_prefix(&zlink_json(&["demo", "--json", "--store", &url]), false);
    let base = ["inspect", "--store", &url, "--prefix", &prefix];
    let with = |rest: &[&str]| -> Vec<String> {
        base.iter().chain(rest).map(|s| (*s).to_owned()).collect()
    };

    let doc = zlink_json(&with(&["--json", "actor", "player-1"]));
    assert_player_record(&doc, &prefix);
    // The same record as Redis holds it (docs/location-store.md layout).
    let key = format!("{prefix}:{{actor:player-1}}");
    let hget = |field: &str| {
        let v = redis.cli(&["hget", &key, field]).expect("redis-cli hget");
        v.trim().to_owned()
    };
    assert_eq!(hget("ver"), "4");
    assert_eq!(
        doc["record"]["last_proposal"].as_str(),
        Some(&*hget("prop"))
    );

    let out = zlink(&with(&["actor", "player-1"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "actor player-1 (key ",
        "state                       ready",
        "authority owner generation  2",
        "owner                       mesh demo-mesh, node rid 2, node generation 1",
        "store version               4",
        "store time",
        "epoch",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }

    // node-a never renewed room-7: its lease is over on the store's clock.
    let room = zlink_json(&with(&["--json", "spot", "room-7"]));
    assert_eq!(room["record"]["owner"]["node_rid"], 1, "{room}");
    assert!(room["record"]["owner_lease"]["ms_left"].as_i64() <= Some(0));
    let text = stdout(&zlink(&with(&["spot", "room-7"])));
    assert!(text.contains("ms ago"), "{text}");

    let out = zlink(&with(&["actor", "never-created"]));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no authority record (Missing)"),
        "{}",
        stdout(&out)
    );
    let missing = zlink_json(&with(&["--json", "actor", "never-created"]));
    assert_eq!(missing["state"], "missing");
    assert!(missing["record"].is_null());
    // guild-2 was released in the demo: no record, like a new ID.
    let released = zlink_json(&with(&["--json", "actor", "guild-2"]));
    assert_eq!(released["state"], "missing");

    // The default prefix is another namespace: the demo never wrote there.
    let other = zlink_json(&["inspect", "--store", &url, "--json", "actor", "player-1"]);
    assert_eq!(other["state"], "missing");
    assert_eq!(other["key"], "zlink:{actor:player-1}");
}

#[test]
fn demo_and_inspect_on_a_stopped_server_fail_fast_with_one_line() {
    let redis = RedisServer::start().expect("redis-server starts");
    let url = redis.url();
    redis.kill().expect("the server stops");
    for args in [
        vec!["demo", "--store", &url],
        vec!["demo", "--json", "--store", &url],
        vec!["inspect", "--store", &url, "actor", "player-1"],
        vec!["demo", "--store", "http://127.0.0.1:1"],
        vec!["inspect", "--store", "not-a-url", "spot", "x"],
    ] {
        let started = Instant::now();
        let out = zlink(&args);
        let took = started.elapsed();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(took < FAIL_FAST, "{args:?} took {took:?}");
        assert!(err.starts_with("zlink: error: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("Location Store"), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}: nothing on stdout");
    }
}

#[test]
fn demo_and_inspect_work_on_a_three_master_cluster() {
    let cluster = RedisCluster::start(3).expect("the cluster forms");
    let seeds: Vec<String> = cluster
        .urls()
        .iter()
        .map(|u| u.trim_start_matches("redis://").to_owned())
        .collect();
    let url = format!("redis+cluster://{}", seeds.join(","));
    let demo = zlink_json(&["demo", "--json", "--store", &url]);
    let prefix = demo_prefix(&demo, true);
    assert_eq!(demo["requests"], 4, "{demo}");
    assert_eq!(demo["double_completions"], 0, "{demo}");
    assert_eq!(demo["late_results_dropped"], 2, "{demo}");
    assert_eq!(demo["session_order_violations"], 0, "{demo}");
    assert_eq!(demo["session_held"], 4, "{demo}");
    let doc = zlink_json(&[
        "inspect", "--store", &url, "--prefix", &prefix, "--json", "actor", "player-1",
    ]);
    assert_player_record(&doc, &prefix);
    assert_eq!(doc["store"]["cluster"], true);
}

#[test]
fn inspect_rejects_bad_arguments_before_touching_a_store() {
    let long = "x".repeat(64 * 1024 + 1);
    let nobody = "redis://127.0.0.1:1";
    for (args, says) in [
        (vec!["inspect", "actor", "x"], "--store"),
        (vec!["inspect", "--store", nobody, "widget", "x"], "widget"),
        (vec!["inspect", "--store", nobody, "actor", ""], "empty"),
        (vec!["inspect", "--store", nobody, "spot", &long], "65535"),
        (
            vec!["inspect", "--store", nobody, "--prefix", "a{b", "spot", "x"],
            "braces",
        ),
    ] {
        let out = zlink(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{says:?} not in {err}");
        assert!(err.len() < 1000, "the error quotes no huge ID: {err}");
    }
}
