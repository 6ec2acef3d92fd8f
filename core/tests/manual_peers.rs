//! Spec §2.3 through the Runtime: manual object peers, descriptors from the
//! Location Store, replacement only after close, and the admission fence.

mod cluster;

use std::sync::Arc;

use zlink_core::*;

const ENDPOINT: &str = "10.0.0.2:7400";

/// Node `rid` at lifecycle `generation` on `store`.
fn node(store: &Arc<MemoryStore>, rid: u64, generation: u64) -> Runtime {
    let mut identity = cluster::identity(rid);
    identity.generation = NodeGeneration(generation);
    Runtime::builder(identity)
        .store(store.clone())
        .build()
        .expect("valid runtime")
}

/// A direct message from `from` to `to`'s object, as `from` encodes it.
fn message_from(from: &Runtime, to: &Runtime) -> Vec<u8> {
    to.activate(ObjectKind::Actor, "a").ok();
    match from
        .send(ObjectKind::Actor, "a", b"x", SendOptions::default())
        .expect("valid input")
    {
        Sent::Submitted { outbound, .. } => outbound.bytes,
        other => panic!("expected a frame, got {other:?}"),
    }
}

#[test]
fn at_start_a_manual_endpoint_without_a_descriptor_is_only_an_intent() {
    let store = Arc::new(MemoryStore::new());
    let a = node(&store, 1, 1);
    a.add_manual_peer(ENDPOINT).unwrap();
    assert_eq!(
        a.connect_manual_peers().unwrap(),
        Vec::new(),
        "no descriptor yet"
    );
    let intent = a.peer_intent(ENDPOINT).unwrap();
    assert_eq!(
        (intent.installed, intent.liveness),
        (None, Liveness::Connecting)
    );
    assert_eq!(a.peer_endpoint(NodeRid(2)), None);
}

#[test]
fn when_a_descriptor_appears_the_replacement_carries_all_four_values() {
    let store = Arc::new(MemoryStore::new());
    let (a, b) = (node(&store, 1, 1), node(&store, 2, 1));
    a.add_manual_peer(ENDPOINT).unwrap();
    assert!(a.connect_manual_peers().unwrap().is_empty());
    let published = b.publish_descriptor(ENDPOINT, "node-2.mesh").unwrap();
    let replacements = a.connect_manual_peers().unwrap();
    assert_eq!(replacements.len(), 1);
    let d = &replacements[0].descriptor;
    assert_eq!(d, &published);
    assert_eq!(
        (
            d.endpoint.as_str(),
            d.rid,
            d.lifecycle_generation,
            d.security_identity.as_str()
        ),
        (ENDPOINT, NodeRid(2), NodeGeneration(1), "node-2.mesh")
    );
    assert!(
        a.connect_manual_peers().unwrap().is_empty(),
        "installed once"
    );
    a.peer_opened(ENDPOINT, NodeRid(2)).unwrap();
    assert_eq!(a.peer_endpoint(NodeRid(2)).unwrap().as_str(), ENDPOINT);
    assert!(matches!(
        a.on_peer_frame(ENDPOINT, &message_from(&b, &a)),
        Inbound::Deliver(_)
    ));
}

#[test]
fn a_replacement_is_held_until_the_previous_intent_is_reported_closed() {
    let store = Arc::new(MemoryStore::new());
    let (a, b1) = (node(&store, 1, 1), node(&store, 2, 1));
    a.add_manual_peer(ENDPOINT).unwrap();
    b1.publish_descriptor(ENDPOINT, "node-2.mesh").unwrap();
    a.connect_manual_peers().unwrap();
    a.peer_opened(ENDPOINT, NodeRid(2)).unwrap();
    // Node 2 restarts: a new lifecycle generation publishes its descriptor.
    let b2 = node(&store, 2, 2);
    b2.publish_descriptor(ENDPOINT, "node-2.mesh").unwrap();
    assert!(
        a.ensure_manual_peer(ENDPOINT).unwrap().is_none(),
        "held: the old intent is still open"
    );
    assert_eq!(
        a.peer_intent(ENDPOINT)
            .unwrap()
            .pending
            .unwrap()
            .lifecycle_generation,
        NodeGeneration(2)
    );
    let replacement = a
        .peer_closed(ENDPOINT)
        .unwrap()
        .expect("installed once closed");
    assert_eq!(
        replacement.descriptor.lifecycle_generation,
        NodeGeneration(2)
    );
    assert_eq!(
        a.peer_intent(ENDPOINT).unwrap().liveness,
        Liveness::Connecting
    );
}

#[test]
fn after_a_node_restart_the_old_generations_frames_are_refused() {
    let store = Arc::new(MemoryStore::new());
    let (a, b1) = (node(&store, 1, 1), node(&store, 2, 1));
    a.add_manual_peer(ENDPOINT).unwrap();
    b1.publish_descriptor(ENDPOINT, "node-2.mesh").unwrap();
    a.connect_manual_peers().unwrap();
    a.peer_opened(ENDPOINT, NodeRid(2)).unwrap();
    let old_frame = message_from(&b1, &a);
    let b2 = node(&store, 2, 2);
    b2.publish_descriptor(ENDPOINT, "node-2.mesh").unwrap();
    a.connect_manual_peers().unwrap();
    a.peer_closed(ENDPOINT).unwrap();
    assert_eq!(
        a.on_peer_frame(ENDPOINT, &old_frame),
        Inbound::PeerRefused,
        "not open yet"
    );
    a.peer_opened(ENDPOINT, NodeRid(2)).unwrap();
    assert_eq!(
        a.on_peer_frame(ENDPOINT, &old_frame),
        Inbound::PeerRefused,
        "the old lifecycle"
    );
    assert!(matches!(
        a.on_peer_frame(ENDPOINT, &message_from(&b2, &a)),
        Inbound::Deliver(_)
    ));
    assert!(matches!(
        b1.publish_descriptor(ENDPOINT, "node-2.mesh"),
        Err(LifecycleError::Write(store::WriteError::Rejected(
            store::WriteRejection::StaleDescriptor { .. }
        )))
    ));
}

#[test]
fn a_forged_descriptor_less_peer_is_never_used_for_routing() {
    let store = Arc::new(MemoryStore::new());
    let (a, forger) = (node(&store, 1, 1), node(&store, 9, 1));
    a.add_manual_peer("10.6.6.6:7400").unwrap();
    // The transport connected and the handshake claims RID 9, but no
    // descriptor backs the endpoint.
    a.peer_opened("10.6.6.6:7400", NodeRid(9)).unwrap();
    assert_eq!(
        a.peer_endpoint(NodeRid(9)),
        None,
        "never placement evidence"
    );
    assert_eq!(
        a.on_peer_frame("10.6.6.6:7400", &message_from(&forger, &a)),
        Inbound::PeerRefused
    );
    assert_eq!(
        a.on_peer_frame("10.9.9.9:1", b"anything"),
        Inbound::PeerRefused,
        "unknown endpoint"
    );
}

#[test]
fn bad_peer_input_is_a_typed_error() {
    let store = Arc::new(MemoryStore::new());
    let a = node(&store, 1, 1);
    assert!(matches!(
        a.add_manual_peer(""),
        Err(InputError::BadPeerField { .. })
    ));
    assert!(a.publish_descriptor(ENDPOINT, "").is_err());
    assert!(
        a.peer_opened(&"x".repeat(MAX_PEER_FIELD_BYTES + 1), NodeRid(1))
            .is_err()
    );
}
