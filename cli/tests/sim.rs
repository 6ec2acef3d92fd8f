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
    assert!(
        all.contains("--trace seed-"),
        "the replay offers a diagram: {all}"
    );
    // The replay line's own arguments fail the same way, and draw the run.
    let dir = std::env::temp_dir().join(format!("zlink-sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let mermaid = dir.join("failing.mmd");
    let mut args: Vec<&str> = replay.split_whitespace().skip(7).collect();
    args.retain(|a| *a != "--verbose");
    let trace = mermaid.to_str().expect("a UTF-8 path");
    args.extend(["--trace", trace]);
    let again = zlink(&args);
    assert!(!again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("no operation delivered twice"));
    let drawn = std::fs::read_to_string(&mermaid).expect("the failing run is drawn");
    assert!(drawn.starts_with("sequenceDiagram\n"), "{drawn}");
    assert!(drawn.contains("Note over n"), "{drawn}");
    let page = std::fs::read_to_string(dir.join("failing.html")).expect("its page");
    assert!(page.contains("<svg") && page.contains("sequenceDiagram"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The golden picture of one fixed seed: `ZLINK_UPDATE_GOLDEN=1` writes it
/// again after a deliberate change of the run or of the drawing.
#[test]
fn a_fixed_seed_draws_its_golden_diagram() {
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/diagrams/sim-seed-3.mmd"
    );
    let dir = std::env::temp_dir().join(format!("zlink-sim-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let mermaid = dir.join("seed-3.mmd");
    let trace = mermaid.to_str().expect("a UTF-8 path");
    let args = [
        "--seed",
        "3",
        "--steps",
        "30",
        "--nodes",
        "3",
        "--objects",
        "2",
        "--trace",
        trace,
    ];
    let out = zlink(&args);
    assert!(out.status.success(), "{}", text(&out));
    let drawn = std::fs::read_to_string(&mermaid).expect("the run is drawn");
    let _ = std::fs::remove_dir_all(&dir);
    if std::env::var_os("ZLINK_UPDATE_GOLDEN").is_some() {
        std::fs::write(golden, &drawn).expect("the golden file is written");
    }
    let want =
        std::fs::read_to_string(golden).expect("the golden file (ZLINK_UPDATE_GOLDEN=1 writes it)");
    assert_eq!(
        drawn, want,
        "seed 3's picture changed; if on purpose, run with ZLINK_UPDATE_GOLDEN=1"
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [&["--nodes", "1"][..], &["--seeds", "0"], &["--steps", "x"]] {
        let out = zlink(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
}
