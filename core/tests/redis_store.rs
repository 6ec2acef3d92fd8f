//! The Location Store conformance suite on real Redis: one `redis-server`
//! and one 3-master Redis Cluster, started by this test binary on free
//! loopback ports (shared by its tests, each test in its own key space).

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::conformance::{Backend, StoreClock, StoreEnv};
use zlink_core::{LocationStore, RedisOptions, RedisStore, StoreTime};
use zlink_testkit::{RedisCluster, RedisServer};

/// A real server's clock cannot be set: tests wait it out.
struct WallClock;

impl StoreClock for WallClock {
    fn advance(&self, d: Duration) {
        std::thread::sleep(d);
    }

    fn exact_now(&self) -> Option<StoreTime> {
        None
    }
}

/// A key space no other test of this run uses.
fn env() -> StoreEnv {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    StoreEnv {
        clock: Arc::new(WallClock),
        ns: format!("t{}/", NEXT.fetch_add(1, Ordering::Relaxed)),
        short_lease_millis: 300,
    }
}

fn server() -> &'static RedisServer {
    static SERVER: OnceLock<RedisServer> = OnceLock::new();
    SERVER.get_or_init(|| RedisServer::start().expect("redis-server starts (run `make deps`)"))
}

fn cluster() -> &'static RedisCluster {
    static CLUSTER: OnceLock<RedisCluster> = OnceLock::new();
    CLUSTER.get_or_init(|| RedisCluster::start(3).expect("a 3-master cluster forms"))
}

fn cluster_url(cluster: &RedisCluster) -> String {
    let hosts: Vec<String> = cluster
        .urls()
        .iter()
        .map(|u| u.trim_start_matches("redis://").to_owned())
        .collect();
    format!("redis+cluster://{}", hosts.join(","))
}

fn options() -> RedisOptions {
    RedisOptions {
        prefix: "zlink-test".to_owned(),
        ..RedisOptions::default()
    }
}

fn single_redis() -> Backend {
    let store = RedisStore::open_with(&server().url(), options()).expect("connects");
    Backend {
        store: Arc::new(store),
        env: env(),
    }
}

fn redis_cluster() -> Backend {
    let store = RedisStore::open_with(&cluster_url(cluster()), options()).expect("connects");
    Backend {
        store: Arc::new(store),
        env: env(),
    }
}

mod single {
    crate::common::conformance::store_conformance_tests!(super::single_redis);
}

mod cluster {
    crate::common::conformance::store_conformance_tests!(super::redis_cluster);
}

#[test]
fn a_password_protected_server_is_reached_with_the_url_credentials() {
    let server = RedisServer::start_with_password("s3cret pass").expect("redis-server starts");
    let store =
        RedisStore::open_with(&server.url(), options()).expect("the URL's password is used");
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let key = zlink_core::KeyRef {
        kind: zlink_core::ObjectKind::Spot,
        id: "acl",
    };
    assert_eq!(
        executor.block_on(store.read(key)).expect("answers").value,
        None
    );
    let without = format!("redis://127.0.0.1:{}", server.port());
    let refused = RedisStore::open_with(&without, options()).expect_err("no password, no store");
    assert!(
        refused.to_string().to_lowercase().contains("auth"),
        "{refused}"
    );
}

#[test]
fn an_unreachable_server_or_a_bad_url_fails_open_fast_with_a_clear_error() {
    let server = RedisServer::start().expect("redis-server starts");
    let url = server.url();
    server.kill().unwrap();
    let quick = RedisOptions {
        connect_timeout: Duration::from_millis(300),
        ..options()
    };
    let started = std::time::Instant::now();
    let err = RedisStore::open_with(&url, quick.clone()).expect_err("nothing listens");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        matches!(
            err,
            zlink_core::StoreError::Unreachable(_) | zlink_core::StoreError::Timeout { .. }
        ),
        "{err}"
    );
    for bad in [
        "localhost:6379",
        "http://h:1",
        "redis+cluster://",
        "redis://h:notaport",
    ] {
        let err = RedisStore::open_with(bad, quick.clone()).expect_err("bad URL");
        assert!(
            matches!(err, zlink_core::StoreError::Config(_)),
            "{bad}: {err}"
        );
    }
    let braces = RedisOptions {
        prefix: "a{b}".to_owned(),
        ..quick
    };
    assert!(matches!(
        RedisStore::open_with(&url, braces),
        Err(zlink_core::StoreError::Config(_))
    ));
}

#[test]
fn a_tls_server_is_reached_with_a_rediss_url() {
    let server = RedisServer::start_tls().expect("redis-server starts with TLS");
    let url = server.tls_url().expect("a TLS port");
    let store = RedisStore::open_with(&url, options()).expect("connects over TLS");
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let key = zlink_core::KeyRef {
        kind: zlink_core::ObjectKind::Actor,
        id: "over-tls",
    };
    assert_eq!(
        executor
            .block_on(store.read(key))
            .expect("answers over TLS")
            .value,
        None
    );
    let plain_on_tls_port = url
        .replace("rediss://", "redis://")
        .replace("/#insecure", "");
    let quick = RedisOptions {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(500),
        ..options()
    };
    assert!(
        RedisStore::open_with(&plain_on_tls_port, quick).is_err(),
        "plain text is refused"
    );
}
