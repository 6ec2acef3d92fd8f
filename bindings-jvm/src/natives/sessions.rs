//! Sessions (docs/runtime.md 21-26).

use super::*;

entry_points! {
    /// Opens a Session owned by this runtime.
    fn Java_io_zlink_Native_openSession(env, rt: jlong, session: jlong, generation: jlong) -> JByteArray<'local> {
        let s = pin(&RUNTIMES, rt, RUNTIME)?.open_session(session as u64, generation as u64)?;
        encoded(env, &s)
    }

    /// Binds `session` to an Actor at the route `mesh` + `route` names.
    fn Java_io_zlink_Native_bind(
        env,
        rt: jlong,
        session: jlong,
        actor: JByteArray<'local>,
        mesh: JString<'local>,
        route: JLongArray<'local>,
    ) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let mesh = text(env, &mesh)?;
        let route = actor_route(env, &mesh, &route)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.bind(session as u64, zlink_bridge::core::ObjectKind::Actor, &actor[..], route)?;
        encoded(env, &out)
    }

    /// The stored binding route of an Actor in a Session, or null.
    fn Java_io_zlink_Native_binding(env, rt: jlong, session: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let b = rt.binding(session as u64, zlink_bridge::core::ObjectKind::Actor, &actor[..])?;
        encoded_opt(env, b)
    }

    /// Relays `payload` from a Session to a bound Actor.
    fn Java_io_zlink_Native_sessionSend(
        env,
        rt: jlong,
        session: jlong,
        actor: JByteArray<'local>,
        payload: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let (actor, payload) = (bytes(env, &actor)?, bytes(env, &payload)?);
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let sent = rt.session_send(session as u64, zlink_bridge::core::ObjectKind::Actor, &actor[..], &payload)?;
        encoded(env, &sent)
    }

    /// The Session disconnected: the notifications to carry.
    fn Java_io_zlink_Native_disconnectSession(env, rt: jlong, session: jlong, physical: jboolean) -> JByteArray<'local> {
        let out = pin(&RUNTIMES, rt, RUNTIME)?.disconnect_session(session as u64, physical)?;
        encoded(env, &out[..])
    }

    /// Pushes `payload` from an Actor to a bound Session, or null.
    fn Java_io_zlink_Native_push(
        env,
        rt: jlong,
        actor: JByteArray<'local>,
        mesh: JString<'local>,
        owner_rid: jlong,
        owner_generation: jlong,
        session: jlong,
        session_generation: jlong,
        payload: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let (actor, payload) = (bytes(env, &actor)?, bytes(env, &payload)?);
        let mesh = text(env, &mesh)?;
        let session = SessionRef {
            owner: node_ref(&mesh, owner_rid, owner_generation)?,
            id: zlink_bridge::core::SessionId(session as u64),
            generation: zlink_bridge::core::SessionGeneration(session_generation as u64),
        };
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.push(zlink_bridge::core::ObjectKind::Actor, &actor[..], &session, &payload)?;
        encoded_opt(env, out)
    }

    /// The Sessions bound to an Actor here.
    fn Java_io_zlink_Native_boundSessions(env, rt: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let bound = pin(&RUNTIMES, rt, RUNTIME)?.bound_sessions(zlink_bridge::core::ObjectKind::Actor, &actor[..])?;
        encoded(env, &bound[..])
    }

    /// After a lease renewal: a refresh to every bound Session.
    fn Java_io_zlink_Native_refreshSessionRoutes(env, rt: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.refresh_session_routes(zlink_bridge::core::ObjectKind::Actor, &actor[..])?;
        encoded(env, &out[..])
    }

    /// Drops every binding of an Actor here.
    fn Java_io_zlink_Native_forgetBindings(env, rt: jlong, actor: JByteArray<'local>) -> () {
        let actor = bytes(env, &actor)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.forget_bindings(zlink_bridge::core::ObjectKind::Actor, &actor[..])?)
    }
}
