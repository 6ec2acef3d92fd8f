//! `Runtime::shutdown`: its store I/O threads go at once. Alone in its
//! binary, so no other test's runtimes change the thread count.

use std::sync::Arc;
use std::time::Duration;

use zlink_core::{
    LocationStore, MemoryStore, MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectKind,
    OwnerLeaseGeneration, Resolution, Runtime,
};

const KIND: ObjectKind = ObjectKind::Spot;

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("shutdown-mesh").expect("a valid mesh name"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(1),
    }
}

/// Threads of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with(prefix))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn shutdown_stops_the_store_threads_at_once_and_later_calls_still_answer() {
    let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::new());
    let build = |rid| {
        Runtime::builder(identity(rid))
            .store(store.clone())
            .worker_threads(3)
            .build()
            .expect("valid")
    };
    let (owner, other) = (build(1), build(2));
    owner.activate(KIND, "s").expect("activates");
    // A new thread takes its name once it runs.
    let mut before = threads_named("zlink-store");
    for _ in 0..200 {
        if before >= 6 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
        before = threads_named("zlink-store");
    }
    assert!(before >= 6, "two runtimes of three threads: {before}");
    owner.shutdown();
    owner.shutdown();
    let mut after = threads_named("zlink-store");
    for _ in 0..200 {
        if after <= before - 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
        after = threads_named("zlink-store");
    }
    assert_eq!(
        after,
        before - 3,
        "only the shut-down runtime's threads went"
    );
    // A call after shutdown (hosts refuse them first) still answers.
    assert!(matches!(
        owner.resolve(KIND, "s").expect("valid"),
        Resolution::ReadyRoute(_)
    ));
    assert!(matches!(
        other.resolve(KIND, "s").expect("valid"),
        Resolution::ReadyRoute(_)
    ));
}
