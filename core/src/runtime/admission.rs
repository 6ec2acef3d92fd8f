//! Target-side admission and the sender's side of a refusal, composed from
//! the admission rules (`crate::admission`) and the route cache.

use crate::admission::{Admission, InboundDirect, Rejection, admit};
use crate::ids::KeyRef;
use crate::reason::UnavailableReason;
use crate::stats::InvalidationReason;

use super::Runtime;

impl Runtime {
    /// Admits or rejects an inbound direct message (§2.1 step 5, §2.6).
    /// Reads local state only.
    pub fn admit(&self, msg: &InboundDirect<'_>) -> Admission {
        admit(
            self.identity(),
            self.owned(msg.target),
            msg,
            self.clock().now(),
        )
    }

    /// The sender's side of a rejection: a stale route is dropped from the
    /// cache only if the entry still holds the rejected fence; either way the
    /// operation ends `Unavailable` and is not resubmitted (§2.6).
    pub fn on_rejection(&self, target: KeyRef<'_>, rejection: &Rejection) -> UnavailableReason {
        match rejection {
            Rejection::StaleRoute { fence, .. } => {
                self.invalidate_fenced(target, fence, InvalidationReason::StaleRoute);
                UnavailableReason::StaleRoute
            }
            Rejection::Unavailable { reason, .. } => *reason,
        }
    }
}
