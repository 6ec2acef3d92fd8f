//! The Location Store conformance suite on real Redis: one `redis-server`
//! and one 3-master Redis Cluster, started by this test binary on free
//! loopback ports (shared by its tests, each test in its own key space).

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::conformance::{Backend, StoreClock, StoreEnv};
use zlink_core::{LocationStore, StoreTime};
use zlink_redis::{RedisOptions, RedisStore};
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

/// A host's runtime, shared by the tests that connect a store on it.
fn host() -> &'static tokio::runtime::Runtime {
    static HOST: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    HOST.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a host runtime")
    })
}

/// A store connected on the host's runtime (`RedisStore::connect`): its
/// connection and watcher run there, and the suite's calls are awaited
/// there too (they run inline, in the caller's task), but for those of
/// threads a test starts itself (sent there from their own executors).
fn on_a_host_runtime(url: &str) -> Backend {
    let host = host();
    common::conformance::run_on(host.handle().clone());
    let store = host
        .block_on(RedisStore::connect(url, options()))
        .expect("connects");
    assert_eq!(
        store.executor().map(|h| h.id()),
        Some(host.handle().id()),
        "the store runs on the host's runtime"
    );
    Backend {
        store: Arc::new(store),
        env: env(),
    }
}

mod single {
    crate::common::conformance::store_conformance_tests!(super::single_redis);
}

fn single_redis_on_a_host_runtime() -> Backend {
    on_a_host_runtime(&server().url())
}

fn redis_cluster_on_a_host_runtime() -> Backend {
    on_a_host_runtime(&cluster_url(cluster()))
}

mod single_on_a_host_runtime {
    crate::common::conformance::store_conformance_tests!(super::single_redis_on_a_host_runtime);
}

mod cluster_on_a_host_runtime {
    crate::common::conformance::store_conformance_tests!(super::redis_cluster_on_a_host_runtime);
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
        ..quick.clone()
    };
    assert!(matches!(
        RedisStore::open_with(&url, braces),
        Err(zlink_core::StoreError::Config(_))
    ));
    // A zero epoch check period is refused, not a panicking watcher.
    let spinning = RedisOptions {
        epoch_check_interval: std::time::Duration::ZERO,
        ..quick
    };
    assert!(matches!(
        RedisStore::open_with(&url, spinning),
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
    let on_this_thread = store.read_blocking(key, Duration::from_secs(2));
    assert_eq!(
        on_this_thread
            .expect("a single server reads on the caller's thread")
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

/// Set in the child process of the test below: the verified URL to reach.
const VERIFIED_URL_ENV: &str = "ZLINK_TEST_TLS_VERIFIED_URL";

/// `rediss://` without `#insecure` verifies the server's certificate against
/// the system trust store (rustls with rustls-native-certs, which honours
/// `SSL_CERT_FILE` as OpenSSL did): the testkit's CA is in no store, so the
/// connection is refused; a child process that trusts the CA through
/// `SSL_CERT_FILE` connects and answers. (The child runs in its own process
/// because the environment cannot be changed safely under running tests.)
#[test]
fn a_tls_certificate_is_verified_against_the_trust_store() {
    let server = RedisServer::start_tls().expect("redis-server starts with TLS");
    let url = server.tls_verified_url().expect("a TLS port");
    let quick = RedisOptions {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(500),
        ..options()
    };
    let refused = RedisStore::open_with(&url, quick).expect_err("an unknown CA is refused");
    assert!(
        refused.to_string().contains("certificate"),
        "the error names the certificate: {refused}"
    );

    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args(["--exact", "tls_child_connects_when_its_ca_is_trusted"])
        .args(["--ignored", "--nocapture", "--test-threads", "1"])
        .env(VERIFIED_URL_ENV, &url)
        .env("SSL_CERT_FILE", server.tls_ca_file().expect("a CA file"))
        .env_remove("SSL_CERT_DIR")
        .output()
        .expect("the child test runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.contains("1 passed"),
        "child: {said}"
    );
}

/// The child of the test above; without its environment it has nothing to do.
#[test]
#[ignore = "run by a_tls_certificate_is_verified_against_the_trust_store in a child process"]
fn tls_child_connects_when_its_ca_is_trusted() {
    let url = std::env::var(VERIFIED_URL_ENV).expect("run by the parent test");
    let store = RedisStore::open_with(&url, options()).expect("a trusted CA verifies");
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let key = zlink_core::KeyRef {
        kind: zlink_core::ObjectKind::Actor,
        id: "verified-tls",
    };
    let read = executor
        .block_on(store.read(key))
        .expect("answers over TLS");
    assert_eq!(read.value, None);
}

#[test]
fn a_zero_timeout_is_refused_with_a_clear_error() {
    let url = server().url();
    for options in [
        RedisOptions {
            connect_timeout: Duration::ZERO,
            ..options()
        },
        RedisOptions {
            response_timeout: Duration::ZERO,
            ..options()
        },
    ] {
        let err = RedisStore::open_with(&url, options).expect_err("refused");
        assert!(
            matches!(&err, zlink_core::StoreError::Config(why) if why.contains("more than 0")),
            "{err}"
        );
    }
}

#[test]
fn connect_awaited_outside_a_tokio_runtime_fails_with_a_clear_error() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    let url = server().url();
    let connect = std::pin::pin!(RedisStore::connect(&url, options()));
    let Poll::Ready(Err(e)) = connect.poll(&mut Context::from_waker(Waker::noop())) else {
        panic!("an answer at once")
    };
    assert!(
        e.to_string().contains("must be awaited on a tokio runtime"),
        "{e}"
    );
}
