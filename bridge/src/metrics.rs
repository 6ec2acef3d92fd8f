//! The metrics, named once for every host: each counter of
//! [`crate::stats`] and each latency histogram of the core as a metric
//! family with its Prometheus name, OpenTelemetry name, unit and help.
//! Rust and C hosts take the Prometheus text exposition
//! ([`prometheus_text`]); the managed hosts take the families themselves
//! (surface records) and hand them to their ecosystem's library (Python's
//! `prometheus_client`, Node's `prom-client`, the JVM's Micrometer).
//!
//! Reading them costs a snapshot of atomics; recording them costs nothing
//! on the cache-hit path (DESIGN §6).

use std::fmt::Write;

use zlink_core::{BUCKET_BOUNDS_NS, HistogramStats, Stats};

use crate::codes::MetricKind;
use crate::stats::{Counter, counters};
use crate::surface::{MetricFamily, MetricSample};

/// The counter groups whose counters are one family's samples, told apart
/// by a label: (group, Prometheus name, OpenTelemetry name, label, help).
const LABELLED: &[(&str, &str, &str, &str, &str)] = &[
    (
        "resolutions",
        "zlink_resolutions_total",
        "zlink.resolutions",
        "result",
        "Resolutions, by how they ended (cache hits included).",
    ),
    (
        "invalidations",
        "zlink_cache_invalidations_total",
        "zlink.cache.invalidations",
        "reason",
        "Route cache entries removed, by reason.",
    ),
];

/// The latency histograms: (Prometheus name, OpenTelemetry name, help).
const HISTOGRAMS: [(&str, &str, &str); 6] = [
    (
        "zlink_store_read_duration_seconds",
        "zlink.store.read.duration",
        "How long a store read took, from the call to its answer.",
    ),
    (
        "zlink_store_write_duration_seconds",
        "zlink.store.write.duration",
        "How long an authority or descriptor write took, replicas' acknowledgement included.",
    ),
    (
        "zlink_relocation_duration_seconds",
        "zlink.relocation.duration",
        "How long a move took on its source, from its start to its hand-off, abort or failure.",
    ),
    (
        "zlink_relocation_held_duration_seconds",
        "zlink.relocation.held.duration",
        "How long a moving object's work was held on its target, from the Restore to the commit or the move's end.",
    ),
    (
        "zlink_request_duration_seconds",
        "zlink.request.duration",
        "How long a request took, from its send to its reply or error reply.",
    ),
    (
        "zlink_bind_duration_seconds",
        "zlink.bind.duration",
        "How long a bind took, from its send to its terminal reply.",
    ),
];

/// Every metric family of `stats`: the counters in the list's order (a
/// labelled group where its first counter stands), then the histograms.
pub fn families(stats: &Stats) -> Vec<MetricFamily> {
    let mut out: Vec<MetricFamily> = Vec::with_capacity(72);
    for c in counters(stats) {
        match LABELLED.iter().find(|(g, ..)| *g == c.group) {
            Some(&(_, name, otel, label, help)) => {
                let sample = plain(c.name, c.value);
                match out.iter_mut().find(|f| f.name == name) {
                    Some(f) => f.samples.push(sample),
                    None => {
                        let mut f = family(name, otel, help, MetricKind::Counter, "1");
                        f.label = label.to_owned();
                        f.samples.push(sample);
                        out.push(f);
                    }
                }
            }
            None => out.push(counter_family(&c)),
        }
    }
    let l = &stats.latencies;
    let histograms = [
        &l.store_read,
        &l.store_write,
        &l.relocation,
        &l.relocation_held,
        &l.request,
        &l.bind,
    ];
    for ((name, otel, help), h) in HISTOGRAMS.iter().zip(histograms) {
        let mut f = family(name, otel, help, MetricKind::Histogram, "s");
        f.bounds_ns = BUCKET_BOUNDS_NS.to_vec();
        f.samples.push(histogram_sample(h));
        out.push(f);
    }
    out
}

fn family(name: &str, otel: &str, help: &str, kind: MetricKind, unit: &str) -> MetricFamily {
    MetricFamily {
        name: name.to_owned(),
        otel_name: otel.to_owned(),
        help: help.to_owned(),
        unit: unit.to_owned(),
        kind,
        label: String::new(),
        bounds_ns: Vec::new(),
        samples: Vec::new(),
    }
}

fn plain(label_value: &str, value: u64) -> MetricSample {
    MetricSample {
        label_value: label_value.to_owned(),
        value,
        buckets: Vec::new(),
        sum_ns: 0,
    }
}

/// A counter of its own: `zlink_<group>_<name>` (`_total` for a running
/// total), `zlink.<group>.<name>`.
fn counter_family(c: &Counter) -> MetricFamily {
    let path = match c.group {
        "" => c.name.to_owned(),
        group => format!("{group}_{}", c.name),
    };
    let otel = match c.group {
        "" => format!("zlink.{}", c.name),
        group => format!("zlink.{group}.{}", c.name),
    };
    let (name, kind) = if c.is_gauge() {
        (format!("zlink_{path}"), MetricKind::Gauge)
    } else {
        (format!("zlink_{path}_total"), MetricKind::Counter)
    };
    let mut f = family(&name, &otel, c.help, kind, "1");
    f.samples.push(plain("", c.value));
    f
}

fn histogram_sample(h: &HistogramStats) -> MetricSample {
    let mut running = 0;
    let buckets = h.counts[..BUCKET_BOUNDS_NS.len()]
        .iter()
        .map(|n| {
            running += n;
            running
        })
        .collect();
    MetricSample {
        label_value: String::new(),
        value: h.count(),
        buckets,
        sum_ns: h.sum_ns,
    }
}

/// `families` in the Prometheus text exposition format (version 0.0.4):
/// what a scrape of `/metrics` answers.
pub fn prometheus_text(families: &[MetricFamily]) -> String {
    let mut t = String::with_capacity(families.len() * 160);
    for f in families {
        let _ = writeln!(t, "# HELP {} {}", f.name, escape_help(&f.help));
        let _ = writeln!(t, "# TYPE {} {}", f.name, f.kind.name());
        for s in &f.samples {
            let label = |extra: Option<String>| -> String {
                let mut pairs = Vec::new();
                if !f.label.is_empty() {
                    pairs.push(format!("{}=\"{}\"", f.label, escape_label(&s.label_value)));
                }
                pairs.extend(extra);
                if pairs.is_empty() {
                    String::new()
                } else {
                    format!("{{{}}}", pairs.join(","))
                }
            };
            if f.kind != MetricKind::Histogram {
                let _ = writeln!(t, "{}{} {}", f.name, label(None), s.value);
                continue;
            }
            for (bound, n) in f.bounds_ns.iter().zip(&s.buckets) {
                let le = format!("le=\"{}\"", seconds(*bound));
                let _ = writeln!(t, "{}_bucket{} {n}", f.name, label(Some(le)));
            }
            let inf = Some("le=\"+Inf\"".to_owned());
            let _ = writeln!(t, "{}_bucket{} {}", f.name, label(inf), s.value);
            let _ = writeln!(t, "{}_sum{} {}", f.name, label(None), seconds(s.sum_ns));
            let _ = writeln!(t, "{}_count{} {}", f.name, label(None), s.value);
        }
    }
    t
}

/// Nanoseconds as seconds, in the shortest decimal that reads back the
/// same (`50000` → `0.00005`).
fn seconds(ns: u64) -> String {
    format!("{}", ns as f64 / 1e9)
}

fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn escape_label(text: &str) -> String {
    escape_help(text).replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> zlink_core::Runtime {
        let identity = crate::setup::identity("m", 1, 1, 1).expect("identity");
        zlink_core::Runtime::builder(identity)
            .build()
            .expect("runtime")
    }

    #[test]
    fn names_are_unique_and_follow_the_conventions() {
        let all = families(&runtime().stats());
        let mut names: Vec<&str> = all.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "one family per name");
        for f in &all {
            assert!(f.name.starts_with("zlink_") && f.otel_name.starts_with("zlink."));
            match f.kind {
                MetricKind::Counter => assert!(f.name.ends_with("_total"), "{}", f.name),
                MetricKind::Gauge => assert!(!f.name.ends_with("_total"), "{}", f.name),
                MetricKind::Histogram => {
                    assert!(f.name.ends_with("_seconds") && f.unit == "s", "{}", f.name);
                }
            }
        }
        let reasons = all.iter().find(|f| f.label == "reason").expect("labelled");
        assert_eq!(reasons.samples.len(), 5);
    }

    #[test]
    fn the_text_writes_a_histogram_cumulatively_in_seconds() {
        let mut h = HistogramStats::default();
        h.counts[0] = 2; // at most 50 µs
        h.counts[2] = 1; // at most 250 µs
        h.sum_ns = 300_000;
        let mut stats = runtime().stats();
        stats.latencies.store_read = h;
        let text = prometheus_text(&families(&stats));
        for line in [
            "# TYPE zlink_store_read_duration_seconds histogram",
            "zlink_store_read_duration_seconds_bucket{le=\"0.00005\"} 2",
            "zlink_store_read_duration_seconds_bucket{le=\"0.0001\"} 2",
            "zlink_store_read_duration_seconds_bucket{le=\"0.00025\"} 3",
            "zlink_store_read_duration_seconds_bucket{le=\"10\"} 3",
            "zlink_store_read_duration_seconds_bucket{le=\"+Inf\"} 3",
            "zlink_store_read_duration_seconds_sum 0.0003",
            "zlink_store_read_duration_seconds_count 3",
            "zlink_resolutions_total{result=\"ready_route\"} 0",
            "# TYPE zlink_cache_entries gauge",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "no line {line:?} in\n{text}"
            );
        }
    }
}
