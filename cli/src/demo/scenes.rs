//! The demo's scenes, a. to i., in the order `SCENES` runs them (f., the
//! performance cliff, lives in `cliff`; g., request/reply through a
//! relocation, in `requests`; h., the relocation handoff under load, in
//! `handoff`; i., a session bound to three actors, one relocating
//! mid-stream, in `session`). Each narrates what it does and
//! checks every outcome it narrates.

use zlink_core::{
    Admission, DirectSend, InboundDirect, InvalidationReason, KeyRef, ObjectKind, Rejection,
    Resolution, SendOptions, UnavailableReason,
};

use super::cluster::{Cluster, expect_route};
use super::{DemoResult, Narrator, Unexpected};

pub(super) const PLAYER: &str = "player-1";
const ROOM: &str = "room-7";
const GHOST: &str = "ghost-404";
const LOBBY: &str = "lobby-3";
const ARENA: &str = "arena-9";
const GUILD: &str = "guild-2";

pub(super) type Scene = fn(&Cluster, &Narrator) -> DemoResult;

pub(super) const SCENES: [(&str, Scene); 9] = [
    ("activate", activate),
    ("cold_then_warm", cold_then_warm),
    ("relocation", relocation),
    ("missing", missing),
    ("unavailable", unavailable),
    ("cliff", super::cliff::scene),
    ("request_reply", super::requests::scene),
    ("handoff", super::handoff::scene),
    ("session", super::session::scene),
];

/// a. node-a activates objects: create, then publish Ready.
fn activate(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("a. node-a activates objects");
    for (kind, id) in [(ObjectKind::Actor, PLAYER), (ObjectKind::Spot, ROOM)] {
        let owned = cl.a.rt.activate(kind, id)?;
        n.say(format_args!(
            "node-a activates {kind} {id}: {} (object gen {}, store version {})",
            owned.state.as_str(),
            owned.object_generation,
            owned.store_version,
        ));
    }
    ensure!(cl.a.rt.owned_count() == 2, "node-a should own 2 objects");
    Ok(())
}

/// b. node-c resolves twice: the first read goes to the store, the second is
/// answered by the positive route cache without touching it.
fn cold_then_warm(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("b. node-c resolves cold, then warm");
    let objects = [(ObjectKind::Actor, PLAYER), (ObjectKind::Spot, ROOM)];
    let before = cl.c.rt.stats();
    for (kind, id) in objects {
        let r = cl.c.rt.resolve(kind, id)?;
        n.say(format_args!("cold: {kind} {id} -> {}", cl.describe(&r)));
        expect_route(r, &cl.a, "cold resolve")?;
    }
    let cold = cl.c.rt.stats();
    n.say(format_args!(
        "store reads {} -> {}",
        before.store_reads, cold.store_reads
    ));
    ensure!(
        cold.store_reads == before.store_reads + 2,
        "two cold resolves should read the store twice, got {} reads",
        cold.store_reads - before.store_reads
    );
    for (kind, id) in objects {
        let r = cl.c.rt.resolve(kind, id)?;
        n.say(format_args!("warm: {kind} {id} -> {}", cl.describe(&r)));
        expect_route(r, &cl.a, "warm resolve")?;
    }
    let warm = cl.c.rt.stats();
    n.say(format_args!(
        "store reads still {}, cache hits {} -> {}",
        warm.store_reads, cold.cache_hits, warm.cache_hits
    ));
    ensure!(
        warm.store_reads == cold.store_reads,
        "warm resolves should not read the store"
    );
    ensure!(
        warm.cache_hits == cold.cache_hits + 2,
        "warm resolves should be two cache hits"
    );
    Ok(())
}

/// c. A relocation meets a stale cached route: the old owner rejects it, the
/// sender drops the entry and ends that operation; the next call re-resolves.
fn relocation(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("c. relocation: node-a -> node-b, node-c still caches node-a");
    let key = KeyRef {
        kind: ObjectKind::Actor,
        id: PLAYER,
    };
    let from =
        cl.a.rt
            .owned(key)
            .ok_or_else(|| Unexpected(format!("node-a should own {PLAYER}")))?
            .write_fence();
    let moved = super::moves::relocate(&cl.a.rt, &cl.b.rt, key.kind, PLAYER)?;
    n.say(format_args!(
        "node-a begins relocating actor {PLAYER} to node-b: sealed, Restore, relay-ready, cutover in {} frames; node-b's owner CAS: owner gen {} -> {}",
        moved.frames, from.authority_owner_generation, moved.owned.authority_owner_generation
    ));
    ensure!(
        moved.owned.authority_owner_generation == from.authority_owner_generation.next(),
        "a relocation commit should bump the owner generation by one"
    );
    ensure!(
        cl.a.rt.owned(key).is_none(),
        "node-a should have let {PLAYER} go at relay-ready"
    );
    n.say("node-a no longer owns it (its Message Follow route carries what still arrives)");

    let reads = cl.c.rt.stats().store_reads;
    let old = expect_route(
        cl.c.rt.resolve(key.kind, PLAYER)?,
        &cl.a,
        "node-c's cached route",
    )?;
    ensure!(
        cl.c.rt.stats().store_reads == reads,
        "the stale route should come from node-c's cache"
    );
    n.say("node-c's cache still says node-a; it sends there");
    let sent = InboundDirect {
        target: key,
        to_node: old.route.node,
        fence: old.fence,
    };
    let rejection = match cl.by_rid(old.route.node)?.rt.admit(&sent) {
        Admission::Reject(r @ Rejection::StaleRoute { reason, .. }) => {
            n.say(format_args!("node-a rejects: StaleRoute({reason:?})"));
            r
        }
        other => {
            return Err(Unexpected(format!("node-a should reject as stale, got {other:?}")).into());
        }
    };

    let stale_before =
        cl.c.rt
            .stats()
            .invalidations_for(InvalidationReason::StaleRoute);
    let ended = cl.c.rt.on_rejection(key, &rejection);
    n.say(format_args!(
        "node-c: operation ends Unavailable({}), not resubmitted; cache entry dropped",
        ended.as_str()
    ));
    ensure!(
        ended == UnavailableReason::StaleRoute,
        "a stale-route rejection should end the operation Unavailable(StaleRoute)"
    );
    ensure!(
        cl.c.rt.lookup_cached(key.kind, PLAYER)?.is_none(),
        "the rejected entry should be gone from node-c's cache"
    );
    ensure!(
        cl.c.rt
            .stats()
            .invalidations_for(InvalidationReason::StaleRoute)
            == stale_before + 1,
        "the drop should count as one stale_route invalidation"
    );

    let fresh = cl.c.rt.resolve(key.kind, PLAYER)?;
    n.say(format_args!("next call: {}", cl.describe(&fresh)));
    let new = expect_route(fresh, &cl.b, "re-resolve after relocation")?;
    let sent = InboundDirect {
        target: key,
        to_node: new.route.node,
        fence: new.fence,
    };
    match cl.by_rid(new.route.node)?.rt.admit(&sent) {
        Admission::Accept { object_generation } => {
            n.say(format_args!(
                "node-b accepts (object gen {object_generation})"
            ));
            ensure!(
                object_generation == old.fence.object_generation,
                "a relocation keeps the incarnation"
            );
        }
        other => {
            return Err(Unexpected(format!("node-b should accept, got {other:?}")).into());
        }
    }
    Ok(())
}

/// d. No authority record: Missing is not cached, a plain direct call ends
/// NotFound, and only a Spot call with instance intent asks for creation.
fn missing(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("d. Missing");
    let c = &cl.c.rt;
    let r = c.resolve(ObjectKind::Actor, GHOST)?;
    n.say(format_args!(
        "node-c resolves actor {GHOST} -> {}",
        cl.describe(&r)
    ));
    ensure!(r == Resolution::Missing, "{GHOST} was never created");
    ensure!(
        c.lookup_cached(ObjectKind::Actor, GHOST)?.is_none(),
        "Missing must not be cached"
    );

    let send = c.send_direct(ObjectKind::Actor, GHOST, SendOptions::default())?;
    n.say(format_args!("send_direct actor {GHOST} -> {send:?}"));
    ensure!(
        send == DirectSend::NotFound,
        "a direct call without instance intent should not create"
    );

    let intent = SendOptions {
        instance_intent: true,
        ..SendOptions::default()
    };
    let send = c.send_direct(ObjectKind::Spot, LOBBY, intent)?;
    n.say(format_args!(
        "send_direct spot {LOBBY} with instance intent -> {send:?}"
    ));
    ensure!(
        send == DirectSend::ColdActivation,
        "instance intent on a Missing Spot should ask for cold activation"
    );
    // The demo plays the creation coordinator: activate, then call again.
    c.activate(ObjectKind::Spot, LOBBY)?;
    match c.send_direct(ObjectKind::Spot, LOBBY, intent)? {
        DirectSend::Submit(route) if route.route.node == cl.c.rt.identity().rid => {
            n.say("node-c cold-activates it; calling again -> Submit to node-c");
        }
        other => {
            return Err(Unexpected(format!(
                "after cold activation the call should submit to node-c, got {other:?}"
            ))
            .into());
        }
    }
    Ok(())
}

/// Resolves `id` on node-c and checks it is `Unavailable(want)`.
fn expect_unavailable(
    cl: &Cluster,
    n: &Narrator,
    kind: ObjectKind,
    id: &str,
    want: UnavailableReason,
) -> DemoResult {
    let r = cl.c.rt.resolve(kind, id)?;
    n.say(format_args!(
        "node-c resolves {kind} {id} -> {}",
        cl.describe(&r)
    ));
    ensure!(
        r == Resolution::Unavailable(want),
        "{kind} {id} should be Unavailable({})",
        want.as_str()
    );
    Ok(())
}

/// e. Authority exists but cannot be used: Creating, Releasing, and an
/// expired owner lease. None of these is cached, so the next call re-checks.
fn unavailable(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("e. Unavailable");
    cl.b.rt.create(ObjectKind::Spot, ARENA)?;
    n.say(format_args!("node-b creates spot {ARENA}, not yet Ready"));
    expect_unavailable(cl, n, ObjectKind::Spot, ARENA, UnavailableReason::Creating)?;
    let send =
        cl.c.rt
            .send_direct(ObjectKind::Spot, ARENA, SendOptions::default())?;
    ensure!(
        send == DirectSend::Unavailable(UnavailableReason::Creating),
        "a direct call to a Creating object should end Unavailable(Creating), got {send:?}"
    );
    cl.b.rt.publish_ready(ObjectKind::Spot, ARENA)?;
    let r = cl.c.rt.resolve(ObjectKind::Spot, ARENA)?;
    n.say(format_args!(
        "node-b publishes Ready; node-c -> {}",
        cl.describe(&r)
    ));
    expect_route(r, &cl.b, "resolve after publish")?;

    cl.a.rt.activate(ObjectKind::Actor, GUILD)?;
    cl.a.rt.begin_release(ObjectKind::Actor, GUILD)?;
    n.say(format_args!(
        "node-a activates actor {GUILD} and begins its release"
    ));
    expect_unavailable(
        cl,
        n,
        ObjectKind::Actor,
        GUILD,
        UnavailableReason::Releasing,
    )?;
    cl.a.rt.complete_release(ObjectKind::Actor, GUILD)?;
    let r = cl.c.rt.resolve(ObjectKind::Actor, GUILD)?;
    n.say(format_args!(
        "release completes; node-c -> {}",
        cl.describe(&r)
    ));
    ensure!(
        r == Resolution::Missing,
        "Missing only once release has completed"
    );

    // Leases last 30 s on the embedded store (1.5 s on Redis). node-b renews
    // player-1 at two thirds of a lease (t=20 s), node-a never renews room-7,
    // so a little past one lease (t=31 s) only room-7's lease is over. On
    // Redis the margin lets the server's clock surely pass room-7's expiry.
    cl.time.advance(cl.lease * 2 / 3);
    cl.b.rt.renew_lease(ObjectKind::Actor, PLAYER)?;
    n.say(format_args!(
        "{}: node-b renews its lease on actor {PLAYER}",
        cl.time.stamp()
    ));
    cl.time.advance(cl.lease * 11 / 30 + cl.time.margin());
    n.say(format_args!(
        "{}: node-a never renewed spot {ROOM}",
        cl.time.stamp()
    ));
    expect_unavailable(
        cl,
        n,
        ObjectKind::Spot,
        ROOM,
        UnavailableReason::LeaseExpired,
    )?;
    let r = cl.c.rt.resolve(ObjectKind::Actor, PLAYER)?;
    n.say(format_args!(
        "node-c resolves actor {PLAYER} -> {}",
        cl.describe(&r)
    ));
    expect_route(r, &cl.b, "resolve of a renewed lease")?;
    Ok(())
}
