//! `make bench` (durability part, issue 27): what durable authority writes
//! cost, measured side by side in one run on one `redis-server` with one
//! replica: each authority write's latency (p50/p99) and the activations per
//! second of 16 threads, with `WriteAcks::AllReplicas` (the default: `WAIT`
//! for the replica) against `WriteAcks::PrimaryOnly`; and, on a Sentinel
//! group, how long after a primary's death an object is usable again; and
//! how long an owner of 100,001 objects takes to re-confirm them after a
//! store recovery event.
//!
//! Prints figures and ratios; never fails on a timing.

use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::{Figure, record};
use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore, WriteAcks};
use zlink_testkit::{RedisSentinels, RedisServer};

const SERIAL_ACTIVATIONS: usize = 2_000;
const THREADS: usize = 16;
const RUN: Duration = Duration::from_secs(2);

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("bench-durable").expect("valid"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

fn runtime(url: &str, rid: u64, acks: WriteAcks) -> Arc<Runtime> {
    let options = RedisOptions {
        write_acks: acks,
        epoch_check_interval: Duration::from_millis(200),
        ..RedisOptions::default()
    };
    let store = RedisStore::open_with(url, options).expect("connects");
    let rt = Runtime::builder(identity(rid))
        .store(Arc::new(store))
        .build()
        .expect("valid runtime");
    Arc::new(rt)
}

/// Latencies of `SERIAL_ACTIVATIONS` creates and as many publishes, one
/// at a time, in µs, sorted.
fn write_latencies(rt: &Runtime, tag: &str) -> Vec<f64> {
    let mut micros = Vec::with_capacity(SERIAL_ACTIVATIONS * 2);
    for i in 0..SERIAL_ACTIVATIONS {
        let id = format!("{tag}-serial-{i}");
        let t = Instant::now();
        rt.create(ObjectKind::Actor, &id).expect("creates");
        micros.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        rt.publish_ready(ObjectKind::Actor, &id).expect("publishes");
        micros.push(t.elapsed().as_secs_f64() * 1e6);
    }
    micros.sort_by(f64::total_cmp);
    micros
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Activations (create + publish Ready) per second of `THREADS` threads.
fn activations_per_second(rt: &Arc<Runtime>, tag: &str) -> f64 {
    let started = Instant::now();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (rt, tag) = (rt.clone(), tag.to_owned());
            std::thread::spawn(move || {
                let mut done = 0u64;
                while started.elapsed() < RUN {
                    rt.activate(ObjectKind::Actor, &format!("{tag}-{t}-{done}"))
                        .expect("activates");
                    done += 1;
                }
                done
            })
        })
        .collect();
    let done: u64 = threads.into_iter().map(|t| t.join().expect("ran")).sum();
    done as f64 / started.elapsed().as_secs_f64()
}

/// On a Sentinel group: A activates `x` durably, the primary dies; the time
/// until B resolves `x` to A again (the object usable after the failover).
fn usable_after_failover() -> Duration {
    let group = RedisSentinels::start(1).expect("a Sentinel group");
    let (a, b) = (
        runtime(&group.url(), 1, WriteAcks::AllReplicas),
        runtime(&group.url(), 2, WriteAcks::AllReplicas),
    );
    a.activate(ObjectKind::Actor, "x").expect("activates");
    group.server(0).kill().expect("kill the primary");
    let died = Instant::now();
    while died.elapsed() < Duration::from_secs(60) {
        if let Ok(Resolution::ReadyRoute(_)) = b.resolve(ObjectKind::Actor, "x") {
            return died.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("x not usable 60 s after the primary died");
}

/// A node owning `OWNED` objects on `url` sees a store recovery event (the
/// server drops every client connection: each reconnects, a new epoch); a
/// frame for one of them is held until every record was re-read. Returns
/// how long from that frame to its delivery.
fn reconfirm_after_recovery(primary: &RedisServer, url: &str) -> Duration {
    const OWNED: usize = 100_000;
    let owner = runtime(url, 7, WriteAcks::AllReplicas);
    let sender = runtime(url, 8, WriteAcks::AllReplicas);
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let owner = owner.clone();
            std::thread::spawn(move || {
                for i in (t..OWNED).step_by(THREADS) {
                    owner
                        .create(ObjectKind::Actor, &format!("owned-{i}"))
                        .expect("creates");
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().expect("ran"));
    // Checked in key order: the last key's frame is released only once
    // every record was read.
    owner
        .activate(ObjectKind::Actor, "zz-last")
        .expect("activates");
    let Ok(Sent::Submitted { outbound, .. }) =
        sender.send(ObjectKind::Actor, "zz-last", b"m", SendOptions::default())
    else {
        panic!("no route to zz-last");
    };
    primary
        .cli(&["CLIENT", "KILL", "TYPE", "normal"])
        .expect("drop every client");
    // The owner's store sees the new epoch at its watcher's next look.
    std::thread::sleep(Duration::from_millis(600));
    let started = Instant::now();
    let first = owner.on_frame(NodeRid(8), &outbound.bytes);
    assert!(matches!(first, Inbound::Held), "{first:?}");
    loop {
        if owner.next_deadline().is_some_and(|t| t <= owner.now())
            && owner
                .on_timeout(owner.now())
                .iter()
                .any(|a| matches!(a, Inbound::Deliver(_)))
        {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never confirmed"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn main() {
    let primary = RedisServer::start().expect("redis-server starts (make deps)");
    let _replica = RedisServer::start_replica_of(&primary).expect("a replica");
    let url = primary.url();
    println!(
        "zlink-core durable writes (redis-server {} with one replica, loopback)",
        primary.port()
    );
    let off = runtime(&url, 1, WriteAcks::PrimaryOnly);
    let on = runtime(&url, 2, WriteAcks::AllReplicas);
    // Alternate so both meet the same machine state.
    let (lat_off, lat_on) = (write_latencies(&off, "off"), write_latencies(&on, "on"));
    let (tput_off, tput_on) = (
        activations_per_second(&off, "off"),
        activations_per_second(&on, "on"),
    );
    println!("  authority write      p50 µs   p99 µs   activations/s ({THREADS} threads)");
    for (name, lat, tput) in [
        ("PrimaryOnly", &lat_off, tput_off),
        ("AllReplicas", &lat_on, tput_on),
    ] {
        println!(
            "  {name:<16} {:>10.0} {:>8.0}   {tput:>13.0}",
            percentile(lat, 0.5),
            percentile(lat, 0.99)
        );
    }
    for (figure, on, off, unit) in [
        (
            "authority write p50, durable (WAIT 1 replica)",
            percentile(&lat_on, 0.5),
            percentile(&lat_off, 0.5),
            "us",
        ),
        (
            "authority write p99, durable (WAIT 1 replica)",
            percentile(&lat_on, 0.99),
            percentile(&lat_off, 0.99),
            "us",
        ),
        (
            "activations/s, durable, 16 threads",
            tput_on,
            tput_off,
            "ops/s",
        ),
    ] {
        record(&Figure {
            bench: "durable",
            figure,
            value: on,
            unit,
            ratio: Some(on / off),
            vs: Some("same, PrimaryOnly"),
            target: None,
            met: None,
        });
    }
    let reconfirmed = reconfirm_after_recovery(&primary, &url);
    println!(
        "  store recovery event: 100,001 owned records re-read, held work delivered after {reconfirmed:.2?}"
    );
    record(&Figure {
        bench: "durable",
        figure: "re-confirm 100,001 owned objects after a recovery",
        value: reconfirmed.as_secs_f64() * 1e3,
        unit: "ms",
        ratio: None,
        vs: None,
        target: None,
        met: None,
    });
    let usable = usable_after_failover();
    println!("  Sentinel failover: x usable again {usable:.2?} after its primary died");
    record(&Figure {
        bench: "durable",
        figure: "Sentinel failover: usable again after",
        value: usable.as_secs_f64() * 1e3,
        unit: "ms",
        ratio: None,
        vs: None,
        target: None,
        met: None,
    });
}
