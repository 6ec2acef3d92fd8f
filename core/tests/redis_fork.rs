//! A child made by `fork` inherits its parent's thread-local read
//! connection (the forking thread's): it must not read on that socket, whose
//! replies would then reach either process. Nor may the parent's other
//! threads' seats (`thread_connections`) count against it: those threads do
//! not exist there to give them back. A process of its own (one test),
//! since a child of a threaded process must not run long.

// fork, alarm, waitpid and _exit are libc calls.
#![allow(unsafe_code)]

use std::sync::Arc;
use std::time::Duration;

use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore};
use zlink_testkit::RedisServer;

const ACTOR: ObjectKind = ObjectKind::Actor;
const ROUNDS: usize = 300;

/// `ROUNDS` blocking resolves of `id`, each read from the store (the cache
/// is off); true when every one answered `expected` ("ready" or "missing").
fn reads_right(rt: &Runtime, id: &str, expected: &str) -> bool {
    (0..ROUNDS).all(|_| {
        let r = rt.resolve(ACTOR, id).expect("valid id");
        match expected {
            "ready" => matches!(r, Resolution::ReadyRoute(_)),
            _ => r == Resolution::Missing,
        }
    })
}

#[test]
fn a_forked_child_reads_on_a_connection_of_its_own() {
    let server = RedisServer::start().expect("redis-server starts");
    let store: Arc<dyn LocationStore> =
        Arc::new(RedisStore::open(&server.url()).expect("connects"));
    // A second store whose one seat another thread of the parent holds.
    let one_seat = RedisOptions {
        thread_connections: 1,
        ..RedisOptions::default()
    };
    let seated: Arc<dyn LocationStore> =
        Arc::new(RedisStore::open_with(&server.url(), one_seat).expect("connects"));
    let build_on = |store: &Arc<dyn LocationStore>, rid| {
        Runtime::builder(NodeIdentity {
            mesh: MeshName::new("fork-mesh").expect("valid"),
            rid: NodeRid(rid),
            generation: NodeGeneration(1),
            lease: OwnerLeaseGeneration(rid),
        })
        .config(RoutingConfig {
            route_cache_max_age: Duration::ZERO,
            ..RoutingConfig::default()
        })
        .store(store.clone())
        .build()
        .expect("valid runtime")
    };
    let (owner, sender) = (build_on(&store, 1), build_on(&store, 2));
    owner.activate(ACTOR, "here").unwrap();
    // This thread's read connection exists before the fork.
    assert!(reads_right(&sender, "here", "ready"));
    let seated_sender = Arc::new(build_on(&seated, 3));
    let (took, taken) = std::sync::mpsc::channel();
    let (end, ended) = std::sync::mpsc::channel::<()>();
    let other = {
        let sender = seated_sender.clone();
        std::thread::spawn(move || {
            took.send(reads_right(&sender, "here", "ready"))
                .expect("the test waits");
            let _ = ended.recv();
        })
    };
    assert!(
        taken.recv().expect("the other thread read"),
        "on its own connection"
    );

    // SAFETY: fork(2); the child only reads through the runtime (on this
    // thread: its blocking reads need no other thread) and leaves with
    // _exit, and an alarm ends it if it hangs.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        // SAFETY: plain calls on the child's own process.
        unsafe {
            libc::alarm(20);
            // The seated store: its one seat is the parent's other thread's,
            // which does not exist here (the shared connection's I/O thread
            // neither: without a seat, this read would never end).
            let ok = reads_right(&sender, "elsewhere", "missing")
                && reads_right(&seated_sender, "elsewhere", "missing");
            libc::_exit(if ok { 0 } else { 1 });
        }
    }
    let parent_ok = reads_right(&sender, "here", "ready");
    let mut status = 0;
    // SAFETY: waits for the child just made.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    drop(end);
    other.join().expect("the other thread ends");
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child read its own answers (status {status})"
    );
    assert!(parent_ok, "the parent read its own answers");
}
