//! Manual object peers (docs/runtime.md 27-30).

use super::*;

entry_points! {
    /// Publishes this node's object-peer descriptor (writes the store).
    fn Java_io_zlink_Native_publishDescriptor(env, rt: jlong, endpoint: JString<'local>, identity: JString<'local>) -> JByteArray<'local> {
        let (endpoint, identity) = (text(env, &endpoint)?, text(env, &identity)?);
        let d = pin(&RUNTIMES, rt, RUNTIME)?.publish_descriptor(&endpoint, &identity)?;
        encoded(env, &d)
    }

    /// `publishDescriptor` on a runtime thread: completes `future` with the
    /// descriptor's bytes. Both fields are checked here first, by the
    /// core's own rules (`Endpoint::new`, `PeerDescriptor::new`, in
    /// `publish_descriptor`'s order): bad input throws from this call.
    fn Java_io_zlink_Native_publishDescriptorAsync(
        env,
        rt: jlong,
        endpoint: JString<'local>,
        identity: JString<'local>,
        future: JFuture<'local>,
    ) -> () {
        let (endpoint, identity) = (text(env, &endpoint)?, text(env, &identity)?);
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        let me = runtime.identity()?;
        PeerDescriptor::new(endpoint_of(&endpoint)?, me.rid, me.generation, &identity)
            .map_err(Error::from)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&rt.publish_descriptor(&endpoint, &identity)?))
        })
    }

    /// Registers a manually configured endpoint.
    fn Java_io_zlink_Native_addManualPeer(env, rt: jlong, endpoint: JString<'local>) -> () {
        let endpoint = text(env, &endpoint)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.add_manual_peer(&endpoint)?)
    }

    /// Looks up every manual endpoint's descriptor: the replacements.
    fn Java_io_zlink_Native_connectManualPeers(env, rt: jlong) -> JByteArray<'local> {
        let now = pin(&RUNTIMES, rt, RUNTIME)?.connect_manual_peers()?;
        encoded(env, &now[..])
    }

    /// Registers `endpoint` if needed and looks it up: a replacement or null.
    fn Java_io_zlink_Native_ensureManualPeer(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let r = pin(&RUNTIMES, rt, RUNTIME)?.ensure_manual_peer(&endpoint)?;
        encoded_opt(env, r)
    }

    /// `ensureManualPeer` on a runtime thread: completes `future` with the
    /// replacement's bytes or null. The endpoint is checked here first, by
    /// the core's rule (`Endpoint::new`): bad input throws from this call.
    fn Java_io_zlink_Native_ensureManualPeerAsync(env, rt: jlong, endpoint: JString<'local>, future: JFuture<'local>) -> () {
        let endpoint = text(env, &endpoint)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        endpoint_of(&endpoint)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(rt.ensure_manual_peer(&endpoint)?.map(|r| r.to_bytes()))
        })
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    fn Java_io_zlink_Native_peerOpened(env, rt: jlong, endpoint: JString<'local>, rid: jlong) -> () {
        let endpoint = text(env, &endpoint)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.peer_opened(&endpoint, rid as u64)?)
    }

    /// The transport closed `endpoint`: a waiting replacement, or null.
    fn Java_io_zlink_Native_peerClosed(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let r = pin(&RUNTIMES, rt, RUNTIME)?.peer_closed(&endpoint)?;
        encoded_opt(env, r)
    }

    /// The intent of `endpoint`, or null.
    fn Java_io_zlink_Native_peerIntent(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let i = pin(&RUNTIMES, rt, RUNTIME)?.peer_intent(&endpoint)?;
        encoded_opt(env, i)
    }

    /// Where to reach node `rid`, or null.
    fn Java_io_zlink_Native_peerEndpoint(env, rt: jlong, rid: jlong) -> JString<'local> {
        let e = pin(&RUNTIMES, rt, RUNTIME)?.peer_endpoint(rid as u64)?;
        string_or_null(env, e)
    }

    /// `onFrame` behind a manual peer connection's admission fence.
    fn Java_io_zlink_Native_onPeerFrame(env, rt: jlong, endpoint: JString<'local>, frame: JByteArray<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let frame = bytes(env, &frame)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.on_peer_frame(&endpoint, &frame)?;
        encoded(env, &surface::Inbound::from(d))
    }

    /// `onPeerFrame` on a runtime thread, checked here as `onFrameAsync` is.
    fn Java_io_zlink_Native_onPeerFrameAsync(env, rt: jlong, endpoint: JString<'local>, frame: JByteArray<'local>, future: JFuture<'local>) -> () {
        let endpoint = text(env, &endpoint)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        check_frame(frame.len(env)?)?;
        let frame = bytes(env, &frame)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&surface::Inbound::from(rt.on_peer_frame(&endpoint, &frame)?)))
        })
    }

    /// Live handles of every type (the leak check of the tests).
    fn Java_io_zlink_Native_liveHandles(_env) -> jlong {
        Ok((RUNTIMES.live() + STORES.live() + CLOCKS.live()) as jlong)
    }
}
