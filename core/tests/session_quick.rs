//! A first end-to-end check of session binding on the mesh.
use zlink_core::mesh::Mesh;
use zlink_core::*;

#[test]
fn bind_relay_and_relocate_a_bound_actor() {
    let mut m = Mesh::new(4, RoutingConfig::default()).unwrap();
    m.activate(2, ObjectKind::Actor, "a1").unwrap();
    m.activate(2, ObjectKind::Actor, "a2").unwrap();
    m.open_session(1, 7);
    let r1 = m.actor_ref(2, "a1").unwrap();
    let r2 = m.actor_ref(2, "a2").unwrap();
    m.bind(1, 7, &r1).unwrap();
    m.bind(1, 7, &r2).unwrap();
    m.run();
    assert!(m.node(1).binding(SessionId(7), &r1.actor).is_some());
    for i in 0..3 {
        m.session_send(1, 7, &r1.actor, format!("m{i}").as_bytes())
            .unwrap();
    }
    m.run();
    m.relocate_bound("a1", 2, 3, 99).unwrap();
    for i in 3..6 {
        m.session_send(1, 7, &r1.actor, format!("m{i}").as_bytes())
            .unwrap();
        m.session_send(1, 7, &r2.actor, b"other").unwrap();
    }
    m.run();
    let seqs: Vec<u64> = m
        .ledger
        .session_delivered
        .iter()
        .filter(|d| d.1 == "a1")
        .map(|d| d.2)
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(seqs.len(), 6);
    let route = m.node(1).binding(SessionId(7), &r1.actor).unwrap();
    assert_eq!(route.route.owner.rid, NodeRid(3));
    let other = m.node(1).binding(SessionId(7), &r2.actor).unwrap();
    assert_eq!(other.route.owner.rid, NodeRid(2));
    eprintln!("{:?}", m.ledger.session_events);
}

#[test]
fn a_disconnect_during_a_seal_is_held_and_delivered_with_the_held_messages() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(2, ObjectKind::Actor, "a1").unwrap();
    m.activate(2, ObjectKind::Actor, "a2").unwrap();
    m.open_session(1, 7);
    let (r1, r2) = (m.actor_ref(2, "a1").unwrap(), m.actor_ref(2, "a2").unwrap());
    m.bind(1, 7, &r1).unwrap();
    m.bind(1, 7, &r2).unwrap();
    m.run();
    m.seal_bound("a1", 2, 5).unwrap();
    m.run();
    assert!(matches!(
        m.session_send(1, 7, &r1.actor, b"held").unwrap(),
        SessionSend::Held { .. }
    ));
    m.disconnect(1, 7, true).unwrap();
    assert!(matches!(
        m.session_send(1, 7, &r2.actor, b"late"),
        Err(SessionError::Closing(_))
    ));
    m.commit_bound("a1", 2, 3, 5).unwrap();
    m.run();
    let to_a1: Vec<_> = m
        .ledger
        .session_delivered
        .iter()
        .filter(|d| d.1 == "a1")
        .collect();
    assert_eq!(
        to_a1.len(),
        2,
        "the held message, then the disconnect: {to_a1:?}"
    );
    assert!(to_a1.iter().all(|d| d.3 == NodeRid(3)));
    assert!(
        m.node(3).bound_sessions(&r1.actor).is_empty(),
        "the disconnect ended the binding"
    );
    assert!(
        m.node(1).binding(SessionId(7), &r1.actor).is_none(),
        "the session is gone"
    );
}
