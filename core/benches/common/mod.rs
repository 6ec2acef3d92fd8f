//! One bench figure as a record for the summary table `make bench` ends
//! with (scripts/bench-summary.py): appended as a JSON line to the file
//! `ZLINK_BENCH_OUT` names, when it is set. Every bench of every language
//! writes the same fields.

use std::io::Write;

/// A figure: `value` in `unit`; `ratio` to `vs` (same run) and the target
/// the ratio (or value) is held to, when there is one.
pub(crate) struct Figure<'a> {
    pub(crate) bench: &'a str,
    pub(crate) figure: &'a str,
    pub(crate) value: f64,
    pub(crate) unit: &'a str,
    pub(crate) ratio: Option<f64>,
    pub(crate) vs: Option<&'a str>,
    pub(crate) target: Option<&'a str>,
    pub(crate) met: Option<bool>,
}

/// Appends `f` to the summary's records (nothing when not asked for).
pub(crate) fn record(f: &Figure<'_>) {
    let Ok(path) = std::env::var("ZLINK_BENCH_OUT") else {
        return;
    };
    let line = serde_json::json!({
        "bench": f.bench, "figure": f.figure, "value": f.value, "unit": f.unit,
        "ratio": f.ratio, "vs": f.vs, "target": f.target, "met": f.met,
    });
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path);
    if let Ok(mut file) = file {
        let _ = writeln!(file, "{line}");
    }
}
