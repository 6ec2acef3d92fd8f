//! The direct send decision (§2.2 "Receiver of the result", §2.4): what a
//! Spot/Actor direct call does with each resolver tag.

use std::time::Duration;

use crate::clock::Clock;
use crate::error::InputError;
use crate::ids::{KeyRef, ObjectKind};
use crate::reason::UnavailableReason;
use crate::resolve::{Caller, Resolution, Resolver};
use crate::retry::backoff;
use crate::route::ReadyRoute;
use crate::store::StoreError;

/// Options of one direct call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendOptions {
    /// Instance intent: a Spot call that may cold-activate a Missing
    /// Instance Spot (§2.4). Not allowed on Actor calls.
    pub instance_intent: bool,
    /// How long the call may spend retrying the store (measured on the
    /// runtime's clock; attempts are also capped by `store_attempts`).
    pub deadline: Duration,
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            instance_intent: false,
            deadline: Duration::from_secs(5),
        }
    }
}

/// What to do with a direct call. Every tag goes to exactly one receiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectSend {
    /// Submit the message on this route, carrying its fence.
    Submit(ReadyRoute),
    /// Missing Spot with instance intent: hand to the creation coordinator
    /// for cold activation, then call again.
    ColdActivation,
    /// Missing without instance intent: the object does not exist and is
    /// not created by this call. Terminal.
    NotFound,
    /// Authority exists but cannot be used: the operation's terminal result.
    Unavailable(UnavailableReason),
    /// The store could not be read within the deadline and attempt budget.
    StoreFailure(StoreError),
}

/// Checks a direct call's options against its kind.
pub(crate) fn check_send(kind: ObjectKind, options: SendOptions) -> Result<(), InputError> {
    if options.instance_intent && kind == ObjectKind::Actor {
        return Err(InputError::InstanceIntentOnActor);
    }
    if options.deadline.is_zero() {
        return Err(InputError::ZeroDeadline);
    }
    Ok(())
}

/// Decides a direct call to `key`: each resolver tag to its one receiver,
/// a store failure retried (at most `attempts` reads) within the deadline
/// on `clock`.
pub(crate) async fn send_direct(
    resolver: &Resolver,
    clock: &dyn Clock,
    attempts: u32,
    key: KeyRef<'_>,
    options: SendOptions,
) -> DirectSend {
    let deadline = clock.now().after(options.deadline);
    let mut attempt = 1;
    loop {
        let resolution = match resolver.lookup_cached(key) {
            Some(route) => Resolution::ReadyRoute(route),
            None => resolver.resolve_from_store(key, Caller::Task).await,
        };
        match resolution {
            Resolution::ReadyRoute(route) => return DirectSend::Submit(route),
            Resolution::Missing if options.instance_intent => {
                return DirectSend::ColdActivation;
            }
            Resolution::Missing => return DirectSend::NotFound,
            Resolution::Unavailable(reason) => return DirectSend::Unavailable(reason),
            Resolution::StoreFailure(e) => {
                let now = clock.now();
                if attempt >= attempts || now >= deadline {
                    return DirectSend::StoreFailure(e);
                }
                tokio::time::sleep(backoff(attempt).min(deadline.since(now))).await;
                attempt += 1;
            }
        }
    }
}
