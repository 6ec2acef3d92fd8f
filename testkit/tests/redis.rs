//! The kit against real `redis-server` processes: start, faults, cluster,
//! cleanup. Every server here is started by the test that uses it.

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use zlink_testkit::{RedisCluster, RedisServer};

#[test]
fn started_server_answers_ping_on_its_own_loopback_port() {
    let redis = RedisServer::start().unwrap();
    assert_eq!(redis.cli(&["ping"]).unwrap().trim(), "PONG");
    redis.ping(Duration::from_secs(1)).unwrap();
    assert_ne!(redis.port(), 6379, "never the packaged default port");
    assert_eq!(redis.url(), format!("redis://127.0.0.1:{}", redis.port()));
    assert!(redis.is_running());
    assert!(redis.pid().is_some());
    // Persistence is off: a restart or a new server always starts empty.
    let config = redis.cli(&["config", "get", "save"]).unwrap();
    assert_eq!(config.lines().collect::<Vec<_>>(), ["save", ""]);
}

#[test]
fn two_servers_get_different_ports_and_dirs() {
    let a = RedisServer::start().unwrap();
    let b = RedisServer::start().unwrap();
    assert_ne!(a.port(), b.port());
    assert_ne!(a.dir(), b.dir());
    a.cli(&["set", "k", "a"]).unwrap();
    assert_eq!(b.cli(&["get", "k"]).unwrap().trim(), "");
}

#[test]
fn password_server_puts_the_password_in_url_and_cli() {
    let redis = RedisServer::start_with_password("s3cret pw").unwrap();
    assert_eq!(
        redis.url(),
        format!("redis://:s3cret%20pw@127.0.0.1:{}", redis.port())
    );
    assert_eq!(redis.cli(&["ping"]).unwrap().trim(), "PONG");
    redis.ping(Duration::from_secs(1)).unwrap();
    let config = redis.cli(&["config", "get", "requirepass"]).unwrap();
    assert!(config.contains("s3cret pw"), "{config}");
}

#[test]
fn paused_server_answers_nothing_until_resumed() {
    let redis = RedisServer::start().unwrap();
    redis.pause().unwrap();
    assert!(redis.is_running(), "a paused server is still alive");

    let asked = Instant::now();
    let err = redis.ping(Duration::from_millis(300)).unwrap_err();
    let waited = asked.elapsed();
    assert_eq!(err.kind(), ErrorKind::TimedOut, "{err}");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");

    redis.resume().unwrap();
    redis.ping(Duration::from_secs(1)).unwrap();
    assert_eq!(redis.cli(&["ping"]).unwrap().trim(), "PONG");
}

#[test]
fn killed_server_stops_and_restarts_on_the_same_port() {
    let redis = RedisServer::start().unwrap();
    let (port, first_pid) = (redis.port(), redis.pid());
    redis.cli(&["set", "k", "v"]).unwrap();

    redis.kill().unwrap();
    assert!(!redis.is_running());
    assert_eq!(redis.pid(), None);
    assert!(redis.ping(Duration::from_millis(300)).is_err());
    assert!(redis.pause().is_err(), "nothing to pause");
    redis.kill().unwrap(); // idempotent

    redis.restart().unwrap();
    assert!(redis.is_running());
    assert_eq!(redis.port(), port);
    assert_ne!(redis.pid(), first_pid);
    assert_eq!(redis.cli(&["ping"]).unwrap().trim(), "PONG");
    assert_eq!(redis.cli(&["get", "k"]).unwrap().trim(), "", "data is gone");
}

#[test]
fn paused_server_can_be_killed_and_restarted() {
    let redis = RedisServer::start().unwrap();
    redis.pause().unwrap();
    redis.kill().unwrap();
    assert!(!redis.is_running());
    redis.restart().unwrap();
    redis.ping(Duration::from_secs(1)).unwrap();
}

#[test]
fn drop_stops_the_server_and_removes_its_dir() {
    let redis = RedisServer::start().unwrap();
    let dir = redis.dir().to_path_buf();
    let port = redis.port();
    assert!(dir.join("redis.log").is_file());
    redis.pause().unwrap(); // a frozen server must still go away
    drop(redis);
    assert!(!dir.exists(), "{} still exists", dir.display());
    let refused = std::net::TcpStream::connect(("127.0.0.1", port));
    assert!(refused.is_err(), "something still listens on {port}");
}

#[test]
fn cluster_of_three_masters_forms_with_state_ok() {
    let cluster = RedisCluster::start(3).unwrap();
    let urls = cluster.urls();
    assert_eq!(urls.len(), 3);
    for (i, node) in cluster.nodes().iter().enumerate() {
        assert_eq!(urls[i], format!("redis://127.0.0.1:{}", node.port()));
        let info = node.cli(&["cluster", "info"]).unwrap();
        assert!(info.contains("cluster_state:ok"), "{info}");
        assert!(info.contains("cluster_slots_assigned:16384"), "{info}");
    }
    let nodes = cluster.node(0).cli(&["cluster", "nodes"]).unwrap();
    let masters = nodes.lines().filter(|l| l.contains("master")).count();
    assert_eq!(masters, 3, "{nodes}");
    // `-c` makes redis-cli follow MOVED redirects, so any node takes any key.
    for key in ["a", "b", "c", "d"] {
        assert_eq!(
            cluster
                .node(0)
                .cli(&["-c", "set", key, "1"])
                .unwrap()
                .trim(),
            "OK"
        );
        assert_eq!(
            cluster.node(2).cli(&["-c", "get", key]).unwrap().trim(),
            "1"
        );
    }
}

#[test]
fn killed_cluster_node_restarts_with_its_identity_and_slots() {
    let cluster = RedisCluster::start(3).unwrap();
    let node = cluster.node(1);
    let id = node.cli(&["cluster", "myid"]).unwrap();

    node.kill().unwrap();
    node.restart().unwrap();
    assert_eq!(
        node.cli(&["cluster", "myid"]).unwrap(),
        id,
        "nodes.conf kept"
    );
    cluster.wait_until_ok().unwrap();
}

#[test]
fn cluster_needs_three_masters() {
    let err = RedisCluster::start(2).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}
