//! The results as bytes, for hosts that build their own values from them
//! (the JVM: one `byte[]` crosses JNI instead of one JNI object per field).
//! The result and decision types of [`crate::surface`] are written by its
//! generated encoder; this module holds the writer, the values each host
//! reads by hand (an operation, a notification token) and the results not
//! yet on the surface schema, each read back in the same order by the
//! host's decoder (`io.zlink.Decoder`, Node's `decode.js`).
//!
//! The encoding is plain and little-endian: `u8`; `bool` as one byte 0/1;
//! `u32`; `u64`; text and bytes as a `u32` length then the bytes (text is
//! UTF-8); an option as a presence byte then the value; a list as a `u32`
//! count then the items. A closed set hosts match on is its `u8` code
//! (`codes`); a rarer one (a refusal, an abort reason, a relay kind) its
//! name.
//! It is a private contract between this crate and the bindings built with
//! it, never stored or sent: it may change with every release.

use zlink_core::wire::{ActorRoute, Frame, NodeRef, Operation, RouteEnd, SessionRef};
use zlink_core::{
    BindingRoute, NodeIdentity, NoticeParts, NoticeToken, ObjectKey, Outbound, OwnedObject,
    ReadyRoute, RouteFence,
};

use crate::codes::FrameCommand;
use crate::decision::{Resolved, Sent, SessionSent};
use crate::stats::Counter;
use crate::surface;

/// Bytes being written.
#[derive(Debug, Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer(Vec::with_capacity(64))
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.0
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }

    /// A flag.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// A 32-bit number.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A 64-bit number.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A length or count (every one the core makes fits 32 bits: payloads
    /// are bounded by the message bound, lists by the runtime's tables).
    fn len(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.len(v.len());
        self.0.extend_from_slice(v);
        self
    }

    /// UTF-8 text.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.bytes(v.as_bytes())
    }

    /// An optional value.
    pub fn opt<T>(&mut self, v: Option<&T>, f: impl FnOnce(&mut Self, &T)) -> &mut Self {
        self.bool(v.is_some());
        if let Some(v) = v {
            f(self, v);
        }
        self
    }

    /// A list.
    pub fn list<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) -> &mut Self {
        self.len(items.len());
        for item in items {
            f(self, item);
        }
        self
    }

    /// Any value that encodes itself.
    pub fn put(&mut self, v: &impl Encode) -> &mut Self {
        v.encode(self);
        self
    }
}

/// A value with one encoding.
pub trait Encode {
    /// Writes the value's fields, in the host value's order.
    fn encode(&self, w: &mut Writer);

    /// The value alone, as bytes.
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        self.encode(&mut w);
        w.finish()
    }
}

/// The results the surface types describe (`crate::surface`) are written
/// by its generated encoder: these convert and delegate.
impl Encode for RouteFence {
    fn encode(&self, w: &mut Writer) {
        surface::RouteFence::from(self).encode(w);
    }
}

impl Encode for ReadyRoute {
    fn encode(&self, w: &mut Writer) {
        surface::ReadyRoute::from(self).encode(w);
    }
}

impl Encode for Resolved {
    fn encode(&self, w: &mut Writer) {
        surface::Resolution::from(self).encode(w);
    }
}

// A node and a frame are written as `surface::NodeRef` and
// `surface::Outbound` write them (a test checks they agree), but straight
// from the core's values: every frame the bridge hands a host goes through
// here, and converting would copy it first.
impl Encode for NodeRef {
    fn encode(&self, w: &mut Writer) {
        w.str(self.mesh.as_str())
            .u64(self.rid.get())
            .u64(self.generation.get());
    }
}

impl Encode for Outbound {
    fn encode(&self, w: &mut Writer) {
        w.put(&self.sender)
            .put(&self.to)
            .u8(code(FrameCommand::of(&self.bytes) as u32))
            .bytes(&self.bytes);
    }
}

impl Encode for Sent {
    fn encode(&self, w: &mut Writer) {
        surface::SendResult::from(self).encode(w);
    }
}

impl Encode for SessionSent {
    fn encode(&self, w: &mut Writer) {
        surface::SessionSendResult::from(self).encode(w);
    }
}

/// A closed set's code as one byte (every set has fewer than 256 values).
pub(crate) fn code(v: u32) -> u8 {
    u8::try_from(v).unwrap_or(u8::MAX)
}

impl Encode for OwnedObject {
    fn encode(&self, w: &mut Writer) {
        surface::OwnedObject::from(self).encode(w);
    }
}

impl Encode for RouteEnd {
    fn encode(&self, w: &mut Writer) {
        surface::RouteEnd::from(self).encode(w);
    }
}

impl Encode for NodeIdentity {
    /// mesh, routing ID, node generation, owner lease generation.
    fn encode(&self, w: &mut Writer) {
        w.str(self.mesh.as_str())
            .u64(self.rid.get())
            .u64(self.generation.get())
            .u64(self.lease.get());
    }
}

impl Encode for Counter {
    /// group, name, value.
    fn encode(&self, w: &mut Writer) {
        w.str(self.group).str(self.name).u64(self.value);
    }
}

impl Encode for ObjectKey {
    /// kind's code, ID.
    fn encode(&self, w: &mut Writer) {
        w.u8(code(crate::codes::ObjectKind::from(self.kind()) as u32))
            .str(self.id());
    }
}

/// A list of frames.
fn frames(w: &mut Writer, frames: &[Outbound]) {
    w.list(frames, |w, o| {
        w.put(o);
    });
}

impl Encode for Operation {
    /// operation ID, target, payload, origin, fence, hop count, object
    /// generation, optional correlation (a request's), then the operation
    /// as a frame: what the host gives back (`decode::operation`).
    fn encode(&self, w: &mut Writer) {
        w.u64(self.operation_id.get())
            .put(&self.target)
            .bytes(&self.payload)
            .put(&self.origin)
            .put(&self.fence)
            .u8(self.hop_count)
            .u64(self.object_generation.get())
            .opt(self.reply_route.as_ref(), |w, r| {
                w.u64(r.correlation.get());
            });
        let frame = match self.reply_route {
            Some(_) => Frame::Request(self.clone()),
            None => Frame::Message(self.clone()),
        };
        w.bytes(&zlink_core::wire::encode(&frame));
    }
}

impl Encode for NoticeToken {
    /// One opaque blob for the host to give back ([`crate::decode::notice_token`]): the
    /// target, origin, source fence and destination fence inside.
    fn encode(&self, w: &mut Writer) {
        let p = NoticeParts::from(self);
        let mut inner = Writer::new();
        inner
            .put(&p.target)
            .put(&p.origin)
            .put(&p.source_fence)
            .put(&p.destination_fence);
        w.bytes(&inner.finish());
    }
}

impl Encode for SessionRef {
    fn encode(&self, w: &mut Writer) {
        surface::SessionRef::from(self).encode(w);
    }
}

impl Encode for ActorRoute {
    fn encode(&self, w: &mut Writer) {
        surface::ActorRoute::from(self).encode(w);
    }
}

impl Encode for BindingRoute {
    fn encode(&self, w: &mut Writer) {
        surface::BindingRoute::from(self).encode(w);
    }
}

impl Encode for zlink_core::Registration {
    /// session, binding (as the surface's `Binding`).
    fn encode(&self, w: &mut Writer) {
        w.put(&self.session)
            .put(&surface::Binding::from(&self.binding));
    }
}

impl Encode for zlink_core::RelocationStarted {
    /// the identity (as the surface's `RelocationIdentity`), the frames.
    fn encode(&self, w: &mut Writer) {
        w.put(&surface::RelocationIdentity::from(&self.identity));
        frames(w, &self.send);
    }
}

impl Encode for zlink_core::PeerDescriptor {
    /// endpoint, routing ID, lifecycle generation, security identity.
    fn encode(&self, w: &mut Writer) {
        w.str(self.endpoint.as_str())
            .u64(self.rid.get())
            .u64(self.lifecycle_generation.get())
            .str(&self.security_identity);
    }
}

impl Encode for zlink_core::PeerReplacement {
    /// the descriptor to connect to.
    fn encode(&self, w: &mut Writer) {
        w.put(&self.descriptor);
    }
}

impl Encode for zlink_core::PeerIntent {
    /// endpoint, installed descriptor, liveness's name and observed
    /// routing ID, pending descriptor.
    fn encode(&self, w: &mut Writer) {
        let (liveness, observed) = crate::codes::Liveness::of(self.liveness);
        w.str(self.endpoint.as_str())
            .opt(self.installed.as_ref(), |w, d| {
                w.put(d);
            })
            .str(liveness.name())
            .opt(observed.as_ref(), |w, rid| {
                w.u64(*rid);
            })
            .opt(self.pending.as_ref(), |w, d| {
                w.put(d);
            });
    }
}

impl<T: Encode> Encode for [T] {
    /// A list of values.
    fn encode(&self, w: &mut Writer) {
        w.list(self, |w, v| {
            w.put(v);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::ResolutionTag;

    #[test]
    fn a_frame_is_written_as_the_surface_schema_says() {
        let node = |rid| NodeRef {
            mesh: zlink_core::MeshName::new("m").expect("valid"),
            rid: zlink_core::NodeRid(rid),
            generation: zlink_core::NodeGeneration(2),
        };
        let mut bytes = zlink_core::wire::MAGIC.to_vec();
        bytes.extend([zlink_core::wire::WIRE_VERSION, 3]);
        let out = Outbound {
            sender: node(5),
            to: node(7),
            command: "Reply",
            bytes,
        };
        assert_eq!(out.to_bytes(), surface::Outbound::from(&out).to_bytes());
    }

    #[test]
    fn numbers_are_little_endian_and_lengths_lead() {
        let mut w = Writer::new();
        w.u8(7)
            .bool(true)
            .u32(1)
            .u64(2)
            .str("ab")
            .opt(Some(&3u64), |w, v| {
                w.u64(*v);
            });
        w.list(&[1u8, 2], |w, v| {
            w.u8(*v);
        });
        let want: Vec<u8> = [
            &[7u8, 1][..],
            &1u32.to_le_bytes(),
            &2u64.to_le_bytes(),
            &2u32.to_le_bytes(),
            b"ab",
            &[1],
            &3u64.to_le_bytes(),
            &2u32.to_le_bytes(),
            &[1, 2],
        ]
        .concat();
        assert_eq!(w.finish(), want);
    }

    #[test]
    fn a_missing_resolution_is_its_tag_alone() {
        let missing = Resolved::from(zlink_core::Resolution::Missing);
        assert_eq!(missing.to_bytes(), vec![ResolutionTag::Missing as u8]);
    }
}
