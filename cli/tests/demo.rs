//! `zlink demo` on the embedded store, run as the real binary: the scenes it
//! narrates, and the `--json` keys of the performance-cliff, request/reply
//! and session scenes.

use std::process::{Command, Output};

use serde_json::Value;

/// The keys the cliff scene adds, for each run and (notifications on) at
/// the top level.
const CLIFF_KEYS: [&str; 8] = [
    "messages_sent",
    "delivered",
    "lost",
    "duplicated",
    "follow_relays",
    "notifications_sent",
    "notifications_suppressed",
    "detours_per_move_per_sender",
];

fn zlink(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_zlink"))
        .args(args)
        .output()
        .expect("the zlink binary runs");
    assert!(
        out.status.success(),
        "zlink {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn rate(run: &Value) -> f64 {
    run["detours_per_move_per_sender"]
        .as_f64()
        .unwrap_or_else(|| panic!("no detours_per_move_per_sender in {run}"))
}

#[test]
fn demo_json_reports_the_cliff_with_notifications_on_and_off() {
    let doc: Value = serde_json::from_slice(&zlink(&["demo", "--json"]).stdout)
        .expect("one JSON document on stdout");
    // The keys the demo had before the cliff scene are all still there.
    for key in [
        "resolutions",
        "cache_hits",
        "cache_misses",
        "cache_entries",
        "cache_evictions",
        "store_reads",
        "store_failures",
        "store_recoveries",
        "invalidations",
        "mesh",
        "scenes",
        "clock_ms",
        "store",
        "nodes",
    ] {
        assert!(doc.get(key).is_some(), "missing top-level key {key}");
    }
    // 31 s of lease scene, then one 200 ms request timeout.
    assert_eq!(doc["clock_ms"], 31_200);
    assert_eq!(
        doc["scenes"],
        serde_json::json!([
            "activate",
            "cold_then_warm",
            "relocation",
            "missing",
            "unavailable",
            "cliff",
            "request_reply",
            "handoff",
            "session"
        ])
    );

    let on = &doc["cliff"]["notifications_on"];
    let off = &doc["cliff"]["notifications_off"];
    for key in CLIFF_KEYS {
        assert!(on[key].is_number(), "notifications_on lacks {key}: {doc}");
        assert!(off[key].is_number(), "notifications_off lacks {key}: {doc}");
        assert_eq!(
            doc[key], on[key],
            "top-level {key}: the notifications-on run"
        );
    }
    for run in [on, off] {
        assert_eq!(run["lost"], 0, "{run}");
        assert_eq!(run["duplicated"], 0, "{run}");
        assert_eq!(run["delivered"], run["messages_sent"], "{run}");
        assert!(run["messages_sent"].as_u64() > Some(0), "{run}");
    }
    let target = doc["cliff"]["scenario"]["target_detours_per_move_per_sender"]
        .as_f64()
        .expect("the target is reported");
    assert!(target <= 1.5, "the target is the spec's: {target}");
    assert!(rate(on) <= 1.5, "notifications on: {on}");
    assert!(rate(on) < rate(off), "on {on}, off {off}");
    // Without notifications the stale route is kept for the whole run: one
    // detour per round between moves, for every sender.
    assert!(rate(off) >= 10.0, "notifications off: {off}");
    assert!(on["notifications_sent"].as_u64() > Some(0), "{on}");
}

#[test]
fn demo_json_reports_every_request_ended_exactly_once() {
    let doc: Value = serde_json::from_slice(&zlink(&["demo", "--json"]).stdout)
        .expect("one JSON document on stdout");
    assert_eq!(doc["requests"], 4, "{doc}");
    let results = doc["terminal_results"]
        .as_object()
        .unwrap_or_else(|| panic!("no terminal_results object in {doc}"));
    let kinds: Vec<&str> = results.keys().map(String::as_str).collect();
    assert_eq!(
        kinds,
        ["Cancelled", "Error", "Reply", "Shutdown", "Timeout"],
        "every kind is listed"
    );
    let ended: u64 = results.values().filter_map(Value::as_u64).sum();
    assert_eq!(ended, 4, "one terminal result per request: {results:?}");
    assert_eq!(results["Reply"], 2);
    assert_eq!(results["Timeout"], 1);
    assert_eq!(results["Cancelled"], 1);
    assert_eq!(doc["double_completions"], 0, "no request completed twice");
    // The timed-out and the cancelled request were both answered late.
    assert_eq!(doc["late_results_dropped"], 2);
}

#[test]
fn demo_json_reports_the_session_scene_in_order() {
    let doc: Value = serde_json::from_slice(&zlink(&["demo", "--json"]).stdout)
        .expect("one JSON document on stdout");
    for key in ["session_relays", "session_held", "session_order_violations"] {
        assert!(doc[key].is_u64(), "missing {key}: {doc}");
    }
    assert_eq!(doc["session_order_violations"], 0, "{doc}");
    // 36 messages to three actors, 4 of them held while one was sealed:
    // 32 sent at once plus 3 disconnect notifications are relays.
    assert_eq!(doc["session_held"], 4, "{doc}");
    assert_eq!(doc["session_relays"], 35, "{doc}");
    let session = &doc["session"];
    assert_eq!(session["messages_sent"], 36, "{session}");
    assert_eq!(session["delivered"], session["messages_sent"], "{session}");
    assert_eq!(session["held_released"], doc["session_held"], "{session}");
    assert_eq!(session["disconnect_notifications"], 3, "{session}");
    assert_eq!(session["pushes"], 1, "{session}");
    assert_eq!(session["session_owner_lookups"], 0, "{session}");
    // The scene added last: the earlier scenes' keys are as they were.
    assert_eq!(doc["requests"], 4, "{doc}");
    assert_eq!(doc["clock_ms"], 31_200, "{doc}");
}

#[test]
fn demo_narrates_the_cliff_after_the_other_scenes() {
    let text = String::from_utf8(zlink(&["demo"]).stdout).expect("UTF-8 narration");
    let scenes: Vec<usize> = [
        "== a. ",
        "== b. ",
        "== c. ",
        "== d. ",
        "== e. ",
        "== f. the performance cliff",
        "== g. request/reply through a relocation",
        "== h. relocation handoff: an actor moves a -> b -> c -> a under load",
        "== i. a session bound to three actors, one relocating mid-stream",
        "== totals",
    ]
    .iter()
    .map(|title| {
        text.find(title)
            .unwrap_or_else(|| panic!("no {title:?} in:\n{text}"))
    })
    .collect();
    assert!(scenes.is_sorted(), "scenes out of order:\n{text}");
    for line in [
        "in-process mesh",
        "notifications off: the network drops every command 50 notification",
        "9 scenes checked",
        "node-a stores each route as its bind reply verified it",
        "no store read, no cache lookup",
        "quest-8's 4 messages (seq 14, 17, 20, 23) are Held on node-a",
        "releases the held messages there, in order: seq 14, 17, 20, 23",
        "0 order violations",
        "node-a notifies chat-8 and wallet-8 on node-b and quest-8 on node-c",
        "q2 completes once at node-c, under its own correlation: Reply \"q2 answered by node-b\"",
        "node-c's next_deadline is due: on_timeout -> q3 Timeout",
        "the manual clock moved 200ms",
        "node-c cancels it while the frame is in flight -> q4 Cancelled",
        "completed twice: 0; late results dropped: 2",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
    // The on/off table: its columns, whatever the padding.
    for (row, cells) in [
        ("detours per move per sender", ["1.00", "10.00"]),
        ("lost / duplicated", ["0/0", "0/0"]),
        ("messages sent / delivered", ["360/360", "360/360"]),
    ] {
        let found = text
            .lines()
            .find(|l| l.trim_start().starts_with(row))
            .unwrap_or_else(|| panic!("no row {row:?} in:\n{text}"));
        let got: Vec<&str> = found[found.find(row).expect("found") + row.len()..]
            .split_whitespace()
            .collect();
        assert_eq!(got, cells, "row {row:?}");
    }
    // The routes after command 44: the two actors not moved are unchanged.
    for (actor, owner, verdict) in [
        ("chat-8", "node-b", "unchanged since bind"),
        (
            "quest-8",
            "node-c",
            "moved: same object gen, binding gen and token",
        ),
        ("wallet-8", "node-b", "unchanged since bind"),
    ] {
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(actor) && l.contains("binding gen"))
            .unwrap_or_else(|| panic!("no route row for {actor} in:\n{text}"));
        assert!(
            row.contains(owner) && row.ends_with(verdict),
            "{actor}: {row}"
        );
    }
    assert!(
        !text.contains("not Redis"),
        "the embedded demo says nothing of Redis"
    );
}
