//! `zlink sim`, run as the real binary: a thousand seeds pass (in about a
//! minute in a debug build), a seed replays exactly, and a planted bug is
//! caught with a replay command, so the checks can fail.

use std::process::{Command, Output};

fn zlink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zlink"))
        .arg("sim")
        .args(args)
        .output()
        .expect("the zlink binary runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_thousand_seeds_keep_every_invariant() {
    // The step count keeps a debug build near a minute on two busy cores;
    // `make sim` runs longer ones on the release binary.
    let out = zlink(&["--seed", "1", "--seeds", "1000", "--steps", "160"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("sim: 1000 seeds from 1 passed"), "{all}");
    assert!(all.contains("seeds/s"), "{all}");
}

#[test]
fn a_seed_replays_exactly() {
    let out = zlink(&["--seed", "77", "--seeds", "10", "--check-replay"]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_planted_duplicate_delivery_is_caught_with_its_replay_command() {
    let out = zlink(&[
        "--seed",
        "5",
        "--seeds",
        "50",
        "--inject",
        "duplicate-delivery",
    ]);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("FAILED"), "{all}");
    assert!(all.contains("no operation delivered twice"), "{all}");
    let replay = all
        .lines()
        .find_map(|l| l.strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay line in {all}"));
    assert!(
        replay.starts_with("cargo run -q -p zlink-cli -- sim --seed "),
        "{replay}"
    );
    // The replay line's own arguments fail the same way.
    let args: Vec<&str> = replay.split_whitespace().skip(7).collect();
    let again = zlink(&args);
    assert!(!again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("no operation delivered twice"));
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [&["--nodes", "1"][..], &["--seeds", "0"], &["--steps", "x"]] {
        let out = zlink(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
}
