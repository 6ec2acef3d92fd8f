//! What hosts give back, read again: the operation a host holds as the
//! frame its `Operation` value carries, and the notification token it holds
//! as the blob [`crate::encode`] wrote. Anything not made by this library
//! is `NotADelivery` (an operation) or `NotANoticeToken` (a token).

use zlink_core::wire::{Frame, NodeRef, Operation};
use zlink_core::{NoticeParts, NoticeToken, ObjectKey, RouteFence};

use crate::error::{Error, ErrorKind, Result};

/// The operation a host gives back as the frame its `Operation` value
/// carries (a Message or a Request frame). Decoded within the hard maxima,
/// not a runtime's limits: it was made by one, whatever its config.
pub fn operation(frame: &[u8]) -> Result<Operation> {
    let limits = zlink_core::wire::DecodeLimits {
        max_object_id_bytes: zlink_core::MAX_OBJECT_ID_BYTES,
        max_payload_bytes: zlink_core::MAX_MESSAGE_BYTES,
        max_state_bytes: 0,
    };
    match zlink_core::wire::decode(frame, &limits) {
        Ok(Frame::Message(op) | Frame::Request(op)) => Ok(op),
        _ => Err(not_given("operation")),
    }
}

/// The notification token a host gives back as the blob it was given.
pub fn notice_token(blob: &[u8]) -> Result<NoticeToken> {
    let mut r = Reader(blob);
    let parts = (|| {
        let target = r.key()?;
        let origin = r.node()?;
        let source_fence = r.fence()?;
        let destination_fence = r.fence()?;
        r.0.is_empty().then_some(NoticeParts {
            target,
            origin,
            source_fence,
            destination_fence,
        })
    })();
    parts.map(NoticeToken::from).ok_or_else(|| {
        Error::input(
            ErrorKind::NotANoticeToken,
            "the notice token was not made by this library",
        )
    })
}

fn not_given(what: &str) -> Error {
    Error::input(
        ErrorKind::NotADelivery,
        format!("the {what} was not made by this library"),
    )
}

/// Reads back what [`crate::encode::Writer`] wrote.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        std::str::from_utf8(self.take(usize::try_from(n).ok()?)?).ok()
    }

    fn key(&mut self) -> Option<ObjectKey> {
        let kind = crate::codes::ObjectKind::from_code(self.u8()?.into())?;
        ObjectKey::new(kind.into(), self.str()?).ok()
    }

    fn node(&mut self) -> Option<NodeRef> {
        Some(NodeRef {
            mesh: zlink_core::MeshName::new(self.str()?).ok()?,
            rid: zlink_core::NodeRid(self.u64()?),
            generation: zlink_core::NodeGeneration(self.u64()?),
        })
    }

    fn fence(&mut self) -> Option<RouteFence> {
        Some(RouteFence {
            object_generation: zlink_core::ObjectGeneration(self.u64()?),
            authority_owner_generation: zlink_core::AuthorityOwnerGeneration(self.u64()?),
            owner_lease_generation: zlink_core::OwnerLeaseGeneration(self.u64()?),
            node_generation: zlink_core::NodeGeneration(self.u64()?),
            store_version: zlink_core::StoreVersion(self.u64()?),
        })
    }
}
