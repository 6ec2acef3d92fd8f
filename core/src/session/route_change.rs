//! The Session owner's side of an Actor relocation (§3.3): command 42
//! seals one binding and holds its messages; command 44 commits the new
//! route or aborts to the old one and releases what was held, in order; a
//! command 44 refresh follows a lease renewal of the same tenure.

use std::collections::HashMap;
use std::time::Duration;

use crate::clock::MonoTime;
use crate::ids::{NodeRid, ObjectGeneration, ObjectKey, RelocationId, SessionId};
use crate::wire::{ActorRoute, Binding, NodeRef, RouteChange, SessionFrame, SessionRef};

use super::owner::{SessionOwner, relay_frame};
use super::table::{Seal, SessionState, SessionTimer};
use super::{BindingRoute, Ctx, SessionEvent, SessionStep, out};

impl SessionOwner {
    /// Command 42: hold this Actor's messages and answer with command 43.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_seal(
        &self,
        ctx: &Ctx<'_>,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: ObjectGeneration,
        relocation: RelocationId,
        source: NodeRef,
    ) -> SessionStep {
        let now = ctx.now;
        let sealed = {
            let mut sessions = self.lock();
            let bound = bound_matching(
                &mut sessions.map,
                &session,
                &actor,
                binding,
                object_generation,
            )
            // Only the owner the stored route names seals it.
            .filter(|b| b.route.owner == source);
            match bound {
                Some(bound) if bound.seal.is_none() => {
                    bound.seal = Some(Seal {
                        relocation,
                        since: now,
                        held: Vec::new(),
                    });
                    let deadline = now.after(ctx.config.session_relocation_seal_timeout);
                    sessions.schedule(deadline, SessionTimer::Seal(session.id));
                    true
                }
                Some(bound) => bound
                    .seal
                    .as_ref()
                    .is_some_and(|s| s.relocation == relocation),
                None => false,
            }
        };
        let reply = SessionFrame::Sealed {
            session,
            actor,
            relocation,
            sealed,
        };
        SessionStep::Send(vec![out(ctx.me, source, reply)])
    }

    /// Command 44 (one-way): on commit switch the route atomically and send
    /// the held messages to the target; on abort send them to the source.
    /// Validated against Session, binding, Actor generation and relocation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_route_change(
        &self,
        ctx: &Ctx<'_>,
        from: NodeRid,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: ObjectGeneration,
        relocation: RelocationId,
        change: RouteChange,
    ) -> SessionStep {
        let mut sessions = self.lock();
        let Some(bound) = bound_matching(
            &mut sessions.map,
            &session,
            &actor,
            binding,
            object_generation,
        ) else {
            return SessionStep::Event(SessionEvent::Ignored(
                "command 44 for another session, binding or incarnation",
            ));
        };
        // A commit comes from the target it names; a refresh or an abort
        // from the owner the stored route names.
        let sender = match change {
            RouteChange::Commit(route) => route.owner.rid,
            RouteChange::Refresh(_) | RouteChange::Abort => bound.route.owner.rid,
        };
        if sender != from {
            drop(sessions);
            return SessionStep::Foreign(Some(sender));
        }
        if let RouteChange::Refresh(route) = change {
            let lease = ctx.config.owner_lease_duration;
            return refresh(bound, route, ctx.now, lease);
        }
        if bound
            .seal
            .as_ref()
            .is_none_or(|s| s.relocation != relocation)
        {
            return SessionStep::Event(SessionEvent::Ignored("command 44 for another relocation"));
        }
        if let RouteChange::Commit(route) = change
            && route.object_generation != object_generation
        {
            return SessionStep::Event(SessionEvent::Ignored(
                "command 44 commits another incarnation",
            ));
        }
        let seal = bound.seal.take().expect("checked above");
        if let RouteChange::Commit(route) = change {
            bound.route = route;
            // Counted from the seal, installed before the target committed:
            // a delayed 44 cannot stretch the route past the target's lease.
            // (and at most one owner lease, whatever the frame claims).
            let lease = Duration::from_millis(route.lease_remaining_ms)
                .min(ctx.config.owner_lease_duration);
            bound.admission_deadline = seal.since.after(lease);
        }
        let frames = seal
            .held
            .into_iter()
            .map(|h| {
                out(
                    ctx.me,
                    bound.route.owner,
                    relay_frame(
                        session,
                        bound,
                        h.operation_id,
                        h.sequence,
                        h.kind,
                        h.payload,
                    ),
                )
            })
            .collect();
        // A disconnected Session goes once its last seal is released.
        let closed = sessions
            .map
            .get(&session.id)
            .is_some_and(|s| s.closing.is_some() && !s.sealed());
        if closed {
            sessions.map.remove(&session.id);
        }
        SessionStep::Send(frames)
    }
}

/// A lease renewal on the same owner tenure: the route's deadline follows
/// the renewed lease (only ever forward, and by at most one owner lease
/// from now, whatever the frame claims); any other route is ignored.
fn refresh(
    bound: &mut BindingRoute,
    route: ActorRoute,
    now: MonoTime,
    lease: Duration,
) -> SessionStep {
    let same_tenure = route.owner == bound.route.owner
        && route.object_generation == bound.route.object_generation
        && route.authority_owner_generation == bound.route.authority_owner_generation
        && route.owner_lease_generation == bound.route.owner_lease_generation;
    if !same_tenure {
        return SessionStep::Event(SessionEvent::Ignored(
            "lease refresh for another owner tenure",
        ));
    }
    let renewed = now.after(Duration::from_millis(route.lease_remaining_ms).min(lease));
    bound.admission_deadline = bound.admission_deadline.max(renewed);
    SessionStep::Send(Vec::new())
}

/// The binding of `actor` in `session`, if it is the one named.
fn bound_matching<'a>(
    sessions: &'a mut HashMap<SessionId, SessionState>,
    session: &SessionRef,
    actor: &ObjectKey,
    binding: Binding,
    object_generation: ObjectGeneration,
) -> Option<&'a mut BindingRoute> {
    sessions
        .get_mut(&session.id)
        .filter(|s| s.session == *session)?
        .bindings
        .get_mut(actor)
        .filter(|b| b.binding == binding && b.route.object_generation == object_generation)
}
