//! The operations past resolution (docs/runtime.md rows 7–13, 18–30): the
//! ones that may reach the store run on the runtime's threads and return Promises;
//! the others are synchronous. Frames and payloads are `Buffer`s; what a
//! host gives back (a delivered operation's frame, a notice token) comes
//! back as the bytes it was given.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use zlink_bridge::args::{Arg, request_options};
use zlink_bridge::core::ObjectKind;
use zlink_bridge::core::wire::{ActorRoute, NodeRef, SessionRef};
use zlink_bridge::decode;
use zlink_bridge::encode::Encode;
use zlink_bridge::surface;

use crate::{NativeRuntime, bytes, js_error};

/// Options of a send or a request; each not given keeps the core's default.
#[napi(object)]
pub struct CallOptions {
    pub instance_intent: Option<bool>,
    pub deadline_ms: Option<f64>,
    pub timeout_ms: Option<f64>,
    /// Requests: the Spot execution that starts it.
    pub origin_spot: Option<String>,
    pub origin_generation: Option<BigInt>,
}

/// A node on the wire, as JavaScript gives it.
#[napi(object)]
pub struct NodeParts {
    pub mesh: String,
    pub rid: BigInt,
    pub generation: BigInt,
}

/// An Actor route, as JavaScript gives it (a RouteEnd's fence fields fit).
#[napi(object)]
pub struct ActorRouteParts {
    pub owner: NodeParts,
    pub object_generation: BigInt,
    pub authority_owner_generation: BigInt,
    pub owner_lease_generation: BigInt,
    pub lease_remaining_ms: Option<f64>,
}

fn u64_of(v: &BigInt) -> zlink_bridge::Result<u64> {
    let (negative, value, lossless) = v.get_u64();
    if negative || !lossless {
        return Err(zlink_bridge::Error::input(
            zlink_bridge::ErrorKind::OutOfRange,
            "a generation or ID must be a bigint in 0..2^64",
        ));
    }
    Ok(value)
}

fn node_of(n: &NodeParts) -> zlink_bridge::Result<NodeRef> {
    Ok(NodeRef {
        mesh: zlink_bridge::core::MeshName::new(n.mesh.as_str())?,
        rid: zlink_bridge::core::NodeRid(u64_of(&n.rid)?),
        generation: zlink_bridge::core::NodeGeneration(u64_of(&n.generation)?),
    })
}

fn ms(v: Option<f64>) -> Option<i64> {
    v.map(|v| v as i64)
}

fn options(o: &Option<CallOptions>) -> zlink_bridge::Result<zlink_bridge::core::RequestOptions> {
    let Some(o) = o else {
        return request_options(false, None, None);
    };
    let mut options = request_options(
        o.instance_intent.unwrap_or(false),
        ms(o.deadline_ms),
        ms(o.timeout_ms),
    )?;
    if let Some(spot) = &o.origin_spot {
        let generation = o
            .origin_generation
            .as_ref()
            .map(u64_of)
            .transpose()?
            .unwrap_or(0);
        options.origin = Some(zlink_bridge::runtime::spot_execution(
            spot.as_str(),
            generation,
        )?);
    }
    Ok(options)
}

fn list<T: Encode>(items: &[T]) -> Vec<u8> {
    items.to_bytes()
}

#[napi]
impl NativeRuntime {
    // ---- 7-13: operations, frames, replies, timers -----------------------

    /// Sends a one-way message: a Promise of the send result's bytes.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn send<'env>(
        &self,
        env: &'env Env,
        kind: u32,
        id: String,
        payload: Buffer,
        options: Option<CallOptions>,
    ) -> Result<Object<'env>> {
        let (payload, opts) = (payload.to_vec(), self::options(&options));
        self.call(env, move |rt| {
            Ok(rt.send(kind, id.as_str(), &payload, opts?.send)?.to_bytes())
        })
    }

    /// Sends a request: a Promise of the send result's bytes.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn request<'env>(
        &self,
        env: &'env Env,
        kind: u32,
        id: String,
        payload: Buffer,
        options: Option<CallOptions>,
    ) -> Result<Object<'env>> {
        let (payload, opts) = (payload.to_vec(), self::options(&options));
        self.call(env, move |rt| {
            Ok(rt.request(kind, id.as_str(), &payload, opts?)?.to_bytes())
        })
    }

    /// What to do with one frame from node `from`: a Promise of the
    /// decision's bytes (the call runs on the completion pool, off the
    /// event loop).
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn on_frame<'env>(
        &self,
        env: &'env Env,
        from: BigInt,
        frame: Buffer,
    ) -> Result<Object<'env>> {
        let from = u64_of(&from).map_err(|e| js_error(env, &e))?;
        let frame = frame.to_vec();
        self.call(env, move |rt| {
            Ok(surface::Inbound::from(rt.on_frame(from, &frame)?).to_bytes())
        })
    }

    /// Answers a delivered request (its frame): `payload`, or (no payload)
    /// an error of `errorKind` ("Handler" | "Decode").
    #[napi(catch_unwind)]
    pub fn reply(
        &self,
        env: Env,
        operation: Buffer,
        payload: Option<Buffer>,
        error_kind: Option<String>,
        code: Option<u32>,
        message: Option<String>,
    ) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let rt = self.get(&env)?;
        let operation = decode::operation(&operation).map_err(fail)?;
        let out = match payload {
            Some(p) => rt.reply(Some(&operation), Some(&p), None::<(_, _, &str)>),
            None => {
                let kind = Arg::get(error_kind.as_deref().unwrap_or("")).map_err(fail)?;
                let message = message.unwrap_or_default();
                rt.reply(
                    Some(&operation),
                    None,
                    Some((kind, code.unwrap_or(0), message.as_str())),
                )
            }
        };
        Ok(bytes(&out.map_err(fail)?))
    }

    /// Reports whether a Relay's notification was sent.
    #[napi(catch_unwind)]
    pub fn notice_settled(&self, env: Env, token: Buffer, sent: bool) -> Result<()> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let token = decode::notice_token(&token).map_err(fail)?;
        self.get(&env)?
            .notice_settled(Some(&token), sent)
            .map_err(fail)
    }

    /// Cancels a pending request: its Completed decision's bytes, or null.
    #[napi(catch_unwind)]
    pub fn cancel(&self, env: Env, correlation: BigInt) -> Result<Option<Buffer>> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let correlation = u64_of(&correlation).map_err(fail)?;
        Ok(self
            .get(&env)?
            .cancel(correlation)
            .map_err(fail)?
            .map(|d| bytes(&surface::Inbound::from(d))))
    }

    /// Ends every pending request with Shutdown: the decisions' bytes.
    #[napi(catch_unwind)]
    pub fn shutdown_requests(&self, env: Env) -> Result<Buffer> {
        let done = self
            .get(&env)?
            .shutdown_requests()
            .map_err(|e| js_error(&env, &e))?;
        Ok(list(&surface::decisions(done)).into())
    }

    /// Every metric family, read now: their bytes.
    #[napi(catch_unwind)]
    pub fn metrics(&self, env: Env) -> Result<Buffer> {
        let all = self.get(&env)?.metrics().map_err(|e| js_error(&env, &e))?;
        Ok(list(&all).into())
    }

    /// Every metric in the Prometheus text exposition format.
    #[napi(catch_unwind)]
    pub fn metrics_text(&self, env: Env) -> Result<String> {
        self.get(&env)?
            .metrics_text()
            .map_err(|e| js_error(&env, &e))
    }

    /// Requests waiting for their result.
    #[napi(catch_unwind)]
    pub fn pending_requests(&self, env: Env) -> Result<u32> {
        let n = self
            .get(&env)?
            .pending_requests()
            .map_err(|e| js_error(&env, &e))?;
        Ok(n as u32)
    }

    /// The runtime clock now (ns).
    #[napi(catch_unwind)]
    pub fn now(&self, env: Env) -> Result<BigInt> {
        Ok(BigInt::from(
            self.get(&env)?.now().map_err(|e| js_error(&env, &e))?,
        ))
    }

    /// The earliest deadline (ns), or null.
    #[napi(catch_unwind)]
    pub fn next_deadline(&self, env: Env) -> Result<Option<BigInt>> {
        let next = self
            .get(&env)?
            .next_deadline()
            .map_err(|e| js_error(&env, &e))?;
        Ok(next.map(BigInt::from))
    }

    /// Runs the deadlines due at `now` (ns; the clock's now if not given):
    /// a Promise of the decisions' bytes (a relocation's store write runs on
    /// the store's I/O and its outcome comes on a later call).
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn on_timeout<'env>(&self, env: &'env Env, now: Option<BigInt>) -> Result<Object<'env>> {
        let now = now
            .as_ref()
            .map(u64_of)
            .transpose()
            .map_err(|e| js_error(env, &e))?;
        self.call(env, move |rt| {
            Ok(list(&surface::decisions(rt.on_timeout(now)?)))
        })
    }

    // ---- 17-20: ownership and relocation --------------------------------

    /// What this node owns for the ID: the owned object's bytes, or null.
    #[napi(catch_unwind)]
    pub fn owned(&self, env: Env, kind: u32, id: String) -> Result<Option<Buffer>> {
        let o = self
            .get(&env)?
            .owned(kind, id.as_str())
            .map_err(|e| js_error(&env, &e))?;
        Ok(o.map(|o| bytes(&o)))
    }

    /// This node's tenure of an object it owns: its bytes, or null.
    #[napi(catch_unwind)]
    pub fn owner_route_end(&self, env: Env, kind: u32, id: String) -> Result<Option<Buffer>> {
        let e = self
            .get(&env)?
            .owner_route_end(kind, id.as_str())
            .map_err(|e| js_error(&env, &e))?;
        Ok(e.map(|e| bytes(&e)))
    }

    /// Source: starts moving an object to runtime `targetRid` of this mesh,
    /// with the operations saved (their frames) and the state.
    #[napi(catch_unwind)]
    #[allow(clippy::too_many_arguments)]
    pub fn begin_relocation(
        &self,
        env: Env,
        kind: u32,
        id: String,
        target_rid: BigInt,
        target_generation: BigInt,
        saved: Vec<Buffer>,
        state: Buffer,
    ) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let (rid, generation) = (
            u64_of(&target_rid).map_err(fail)?,
            u64_of(&target_generation).map_err(fail)?,
        );
        let count = saved.len();
        let ops = || saved.iter().map(|f| decode::operation(f)).collect();
        let started = self.get(&env)?.begin_relocation(
            kind,
            id.as_str(),
            rid,
            generation,
            count,
            ops,
            &state,
        );
        Ok(bytes(&started.map_err(fail)?))
    }

    /// Target: the object was rebuilt; relay-ready's frames.
    #[napi(catch_unwind)]
    pub fn relocation_restored(&self, env: Env, kind: u32, id: String) -> Result<Buffer> {
        let send = self
            .get(&env)?
            .relocation_restored(kind, id.as_str())
            .map_err(|e| js_error(&env, &e))?;
        Ok(list(&send).into())
    }

    /// Abandons a relocation before relay-ready: its decision's bytes.
    #[napi(catch_unwind)]
    pub fn abort_relocation(&self, env: Env, kind: u32, id: String) -> Result<Buffer> {
        let d = self
            .get(&env)?
            .abort_relocation(kind, id.as_str())
            .map_err(|e| js_error(&env, &e))?;
        Ok(bytes(&surface::Inbound::from(d)))
    }

    // ---- 21-26: sessions --------------------------------------------------

    /// Opens a Session owned by this runtime.
    #[napi(catch_unwind)]
    pub fn open_session(&self, env: Env, session: BigInt, generation: BigInt) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let (s, g) = (
            u64_of(&session).map_err(fail)?,
            u64_of(&generation).map_err(fail)?,
        );
        Ok(bytes(&self.get(&env)?.open_session(s, g).map_err(fail)?))
    }

    /// Binds a Session to an Actor at `route`: the frame to carry.
    #[napi(catch_unwind)]
    pub fn bind(
        &self,
        env: Env,
        session: BigInt,
        actor: String,
        route: ActorRouteParts,
    ) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let route = (|| {
            Ok::<_, zlink_bridge::Error>(ActorRoute {
                owner: node_of(&route.owner)?,
                object_generation: zlink_bridge::core::ObjectGeneration(u64_of(
                    &route.object_generation,
                )?),
                authority_owner_generation: zlink_bridge::core::AuthorityOwnerGeneration(u64_of(
                    &route.authority_owner_generation,
                )?),
                owner_lease_generation: zlink_bridge::core::OwnerLeaseGeneration(u64_of(
                    &route.owner_lease_generation,
                )?),
                lease_remaining_ms: route.lease_remaining_ms.unwrap_or(0.0) as u64,
            })
        })()
        .map_err(fail)?;
        let session = u64_of(&session).map_err(fail)?;
        let out = self
            .get(&env)?
            .bind(session, ObjectKind::Actor, actor.as_str(), route)
            .map_err(fail)?;
        Ok(bytes(&out))
    }

    /// The stored binding route of an Actor in a Session: bytes or null.
    #[napi(catch_unwind)]
    pub fn binding(&self, env: Env, session: BigInt, actor: String) -> Result<Option<Buffer>> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let session = u64_of(&session).map_err(fail)?;
        let b = self
            .get(&env)?
            .binding(session, ObjectKind::Actor, actor.as_str())
            .map_err(fail)?;
        Ok(b.map(|b| bytes(&b)))
    }

    /// Relays a payload from a Session to a bound Actor.
    #[napi(catch_unwind)]
    pub fn session_send(
        &self,
        env: Env,
        session: BigInt,
        actor: String,
        payload: Buffer,
    ) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let session = u64_of(&session).map_err(fail)?;
        let sent =
            self.get(&env)?
                .session_send(session, ObjectKind::Actor, actor.as_str(), &payload);
        Ok(bytes(&sent.map_err(fail)?))
    }

    /// The Session disconnected: the notifications to carry.
    #[napi(catch_unwind)]
    pub fn disconnect_session(&self, env: Env, session: BigInt, physical: bool) -> Result<Buffer> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let session = u64_of(&session).map_err(fail)?;
        Ok(list(
            &self
                .get(&env)?
                .disconnect_session(session, physical)
                .map_err(fail)?,
        )
        .into())
    }

    /// Pushes a payload from an Actor to a bound Session: the frame or null.
    #[napi(catch_unwind)]
    pub fn push(
        &self,
        env: Env,
        actor: String,
        owner: NodeParts,
        session: BigInt,
        session_generation: BigInt,
        payload: Buffer,
    ) -> Result<Option<Buffer>> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let session = SessionRef {
            owner: node_of(&owner).map_err(fail)?,
            id: zlink_bridge::core::SessionId(u64_of(&session).map_err(fail)?),
            generation: zlink_bridge::core::SessionGeneration(
                u64_of(&session_generation).map_err(fail)?,
            ),
        };
        let out = self
            .get(&env)?
            .push(ObjectKind::Actor, actor.as_str(), &session, &payload)
            .map_err(fail)?;
        Ok(out.map(|o| bytes(&o)))
    }

    /// The Sessions bound to an Actor here.
    #[napi(catch_unwind)]
    pub fn bound_sessions(&self, env: Env, actor: String) -> Result<Buffer> {
        let bound = self
            .get(&env)?
            .bound_sessions(ObjectKind::Actor, actor.as_str());
        Ok(list(&bound.map_err(|e| js_error(&env, &e))?).into())
    }

    /// After a lease renewal: a refresh to every bound Session.
    #[napi(catch_unwind)]
    pub fn refresh_session_routes(&self, env: Env, actor: String) -> Result<Buffer> {
        let out = self
            .get(&env)?
            .refresh_session_routes(ObjectKind::Actor, actor.as_str());
        Ok(list(&out.map_err(|e| js_error(&env, &e))?).into())
    }

    /// Drops every binding of an Actor here.
    #[napi(catch_unwind)]
    pub fn forget_bindings(&self, env: Env, actor: String) -> Result<()> {
        let rt = self.get(&env)?;
        rt.forget_bindings(ObjectKind::Actor, actor.as_str())
            .map_err(|e| js_error(&env, &e))
    }

    // ---- 27-30: manual object peers ----------------------------------------

    /// Publishes this node's object-peer descriptor (writes the store).
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn publish_descriptor<'env>(
        &self,
        env: &'env Env,
        endpoint: String,
        identity: String,
    ) -> Result<Object<'env>> {
        self.call(env, move |rt| {
            Ok(rt.publish_descriptor(&endpoint, &identity)?.to_bytes())
        })
    }

    /// Registers a manually configured endpoint.
    #[napi(catch_unwind)]
    pub fn add_manual_peer(&self, env: Env, endpoint: String) -> Result<()> {
        self.get(&env)?
            .add_manual_peer(&endpoint)
            .map_err(|e| js_error(&env, &e))
    }

    /// Looks up every manual endpoint's descriptor: the replacements' bytes.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn connect_manual_peers<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.call(env, move |rt| Ok(list(&rt.connect_manual_peers()?)))
    }

    /// Registers `endpoint` if needed and looks it up: a replacement (a
    /// one-element list) or an empty list.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn ensure_manual_peer<'env>(
        &self,
        env: &'env Env,
        endpoint: String,
    ) -> Result<Object<'env>> {
        self.call(env, move |rt| {
            Ok(list(
                &rt.ensure_manual_peer(&endpoint)?
                    .into_iter()
                    .collect::<Vec<_>>(),
            ))
        })
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    #[napi(catch_unwind)]
    pub fn peer_opened(&self, env: Env, endpoint: String, rid: BigInt) -> Result<()> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let rid = u64_of(&rid).map_err(fail)?;
        self.get(&env)?.peer_opened(&endpoint, rid).map_err(fail)
    }

    /// The transport closed `endpoint`: a waiting replacement's bytes, or null.
    #[napi(catch_unwind)]
    pub fn peer_closed(&self, env: Env, endpoint: String) -> Result<Option<Buffer>> {
        let r = self
            .get(&env)?
            .peer_closed(&endpoint)
            .map_err(|e| js_error(&env, &e))?;
        Ok(r.map(|r| bytes(&r)))
    }

    /// The intent of `endpoint`: its bytes, or null.
    #[napi(catch_unwind)]
    pub fn peer_intent(&self, env: Env, endpoint: String) -> Result<Option<Buffer>> {
        let i = self
            .get(&env)?
            .peer_intent(&endpoint)
            .map_err(|e| js_error(&env, &e))?;
        Ok(i.map(|i| bytes(&i)))
    }

    /// Where to reach node `rid`, or null.
    #[napi(catch_unwind)]
    pub fn peer_endpoint(&self, env: Env, rid: BigInt) -> Result<Option<String>> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let rid = u64_of(&rid).map_err(fail)?;
        self.get(&env)?.peer_endpoint(rid).map_err(fail)
    }

    // ---- 31: invalidation events -------------------------------------------

    /// The lifecycle `lease` of node `node` ended: cached routes dropped.
    #[napi(catch_unwind)]
    pub fn on_owner_lease_invalidated(&self, env: Env, node: BigInt, lease: BigInt) -> Result<u32> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let (node, lease) = (u64_of(&node).map_err(fail)?, u64_of(&lease).map_err(fail)?);
        Ok(self
            .get(&env)?
            .on_owner_lease_invalidated(node, lease)
            .map_err(fail)? as u32)
    }

    /// A store recovery event: the cache is cleared.
    #[napi(catch_unwind)]
    pub fn on_store_recovery(&self, env: Env) -> Result<u32> {
        Ok(self
            .get(&env)?
            .on_store_recovery()
            .map_err(|e| js_error(&env, &e))? as u32)
    }

    /// `onFrame` behind a manual peer connection's admission fence.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn on_peer_frame<'env>(
        &self,
        env: &'env Env,
        endpoint: String,
        frame: Buffer,
    ) -> Result<Object<'env>> {
        let frame = frame.to_vec();
        self.call(env, move |rt| {
            Ok(surface::Inbound::from(rt.on_peer_frame(&endpoint, &frame)?).to_bytes())
        })
    }
}
