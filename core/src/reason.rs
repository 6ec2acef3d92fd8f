//! Why an operation could not be routed or admitted: the reasons every
//! layer speaks (the wire carries them, the resolver and admission decide
//! them, hosts match on them).

/// Why a route was judged stale by its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StaleReason {
    /// This node does not own the logical ID (or the object is not Ready).
    NotOwner,
    /// The message was routed to another node or node lifecycle.
    NodeMismatch,
    /// Same incarnation, but another authority owner generation.
    OwnerGenerationMismatch,
    /// Same incarnation, but another owner lease.
    LeaseMismatch,
}

/// Why an object whose authority exists cannot take messages now. The
/// operation ends `Unavailable` (terminal completion mapper, §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnavailableReason {
    /// The object is still being created.
    Creating,
    /// The object is being released.
    Releasing,
    /// The owner lease has expired on the store's clock.
    LeaseExpired,
    /// The owner lease was invalidated (the owner process lifecycle ended).
    OwnerNotLive,
    /// The owner rejected the route as stale; the operation is not resubmitted.
    StaleRoute,
    /// The owner's local admission deadline has passed.
    AdmissionDeadlinePassed,
    /// A Message Follow chain reached `max_follow_hops` (or looped).
    FollowHopLimit,
    /// The object's relocation failed while the operation was held for it
    /// (the owner CAS was refused, or the move was abandoned): no owner
    /// ran it, and it is not resubmitted.
    RelocationFailed,
}

impl UnavailableReason {
    /// The PascalCase name used in logs, JSON and host bindings.
    pub fn as_str(self) -> &'static str {
        match self {
            UnavailableReason::Creating => "Creating",
            UnavailableReason::Releasing => "Releasing",
            UnavailableReason::LeaseExpired => "LeaseExpired",
            UnavailableReason::OwnerNotLive => "OwnerNotLive",
            UnavailableReason::StaleRoute => "StaleRoute",
            UnavailableReason::AdmissionDeadlinePassed => "AdmissionDeadlinePassed",
            UnavailableReason::FollowHopLimit => "FollowHopLimit",
            UnavailableReason::RelocationFailed => "RelocationFailed",
        }
    }
}
