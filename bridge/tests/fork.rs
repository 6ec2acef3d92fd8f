//! The fork rule (a process of its own: the fork generation is global).

use std::sync::Arc;

use zlink_bridge::lifecycle::{ForkBound, after_fork_in_child};
use zlink_bridge::{ErrorKind, Options, Runtime, setup};

#[test]
fn a_value_made_before_a_fork_is_refused_and_forgotten() {
    let before = ForkBound::new(Arc::new(5));
    let shared = before.get().expect("same process").clone();
    let identity = setup::identity("m", 1, 1, 1).expect("identity");
    let rt = Runtime::new(identity, Options::default()).expect("runtime");
    assert!(rt.now().is_ok());
    after_fork_in_child();
    assert_eq!(before.get().map_err(|e| e.kind), Err(ErrorKind::Forked));
    let e = rt.now().expect_err("forked");
    assert_eq!(
        (e.kind, e.family.name()),
        (ErrorKind::Forked, "ForkedRuntimeError")
    );
    drop(before);
    // Forgotten, not dropped: the count still holds its reference.
    assert_eq!(Arc::strong_count(&shared), 2);
    rt.close();
    assert_eq!(*ForkBound::new(6).get().expect("made after"), 6);
}
