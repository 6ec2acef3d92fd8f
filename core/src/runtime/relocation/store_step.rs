//! A relocation's store steps, the target's owner CAS (§3.3 step 4) and the
//! source's abort fence, as I/O the runtime starts and whose answers come
//! back as inputs: no handler waits on the store, so a host that calls
//! `on_timeout` on its event loop (Node, asyncio) is never blocked by it.
//!
//! A step is polled once where it starts: a store that answers at once (the
//! embedded one) is decided in that same call, as a host would see it
//! anyway. A step that waits on I/O (Redis) goes on on the store's I/O, and
//! the next `on_timeout` takes its answer: `next_deadline` says "now" once
//! one has answered and asks every 10 ms while one is in flight (as
//! re-confirmation does: the host learns of it without a callback).

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::*;
use crate::authority::AuthorityRecord;
use crate::clock::MonoTime;
use crate::ids::KeyRef;
use crate::store::StoreError;

use super::super::Inner;

/// While a step is in flight, how often the host is asked to look for its
/// answer.
const POLL: Duration = Duration::from_millis(10);

/// Which step, with what its continuation needs.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Target: the owner CAS on the source's tenure `from`.
    OwnerCas { from: RouteFence, source: NodeRef },
    /// Source: the abort fence of a move given up for `reason`.
    AbortFence {
        reason: AbortReason,
        link: SourceLink,
    },
}

/// A step's answer, taken by `on_timeout` (or at once, if the store
/// answered when the step started).
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(super) key: ObjectKey,
    pub(super) identity: RelocationIdentity,
    pub(super) step: Step,
    /// The write's outcome.
    pub(super) written: Result<OwnedObject, LifecycleError>,
    /// After the store refused the write: the record, read to learn who
    /// holds the object now.
    pub(super) record: Option<RecordRead>,
}

/// The steps of one node in flight on the store's I/O, and their answers
/// not yet taken.
#[derive(Debug, Default)]
pub(crate) struct StoreSteps {
    in_flight: AtomicUsize,
    /// How many answers wait in `answers` (read without the lock).
    ready: AtomicUsize,
    answers: Mutex<Vec<Answer>>,
}

impl StoreSteps {
    /// When the host must call `on_timeout` for a step's answer.
    pub(crate) fn deadline(&self, now: MonoTime) -> Option<MonoTime> {
        if self.ready.load(Ordering::Acquire) > 0 {
            Some(now)
        } else if self.in_flight.load(Ordering::Acquire) > 0 {
            Some(now.after(POLL))
        } else {
            None
        }
    }

    /// Whether a step still waits on the store.
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Answer>> {
        // A poisoned lock only means a push panicked; the list is whole.
        self.answers.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn answered(&self, answer: Answer) {
        let mut answers = self.lock();
        answers.push(answer);
        self.ready.fetch_add(1, Ordering::AcqRel);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// The answers that came, in the order they came.
    fn take(&self) -> Vec<Answer> {
        if self.ready.load(Ordering::Acquire) == 0 {
            return Vec::new();
        }
        let mut answers = self.lock();
        self.ready.store(0, Ordering::Release);
        std::mem::take(&mut *answers)
    }
}

/// Hands a step's answer over when dropped, however its task ends: with the
/// step's outcome once its I/O is done, or "store unreachable" if the task
/// is dropped unfinished (its runtime shut down), so the step is retried,
/// never left in flight for ever.
struct Answering {
    inner: Arc<Inner>,
    unanswered: Option<Answer>,
}

impl Answering {
    /// The step's own outcome replaces the "unreachable" one.
    fn answer(mut self, written: Result<OwnedObject, LifecycleError>, record: Option<RecordRead>) {
        if let Some(answer) = self.unanswered.as_mut() {
            answer.written = written;
            answer.record = record;
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        if let Some(answer) = self.unanswered.take() {
            self.inner.store_steps.answered(answer);
        }
    }
}

impl Runtime {
    /// Starts the store step `io` (the write, then the read after a
    /// refusal) for `key`. Its answer now if the store gave it at once,
    /// else `None`: a later `on_timeout` takes it.
    pub(super) fn start_store_step<F>(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        step: Step,
        io: F,
    ) -> Option<Answer>
    where
        F: Future<Output = (Result<OwnedObject, LifecycleError>, Option<RecordRead>)>
            + Send
            + 'static,
    {
        let answer = |(written, record)| Answer {
            key: key.clone(),
            identity: identity.clone(),
            step,
            written,
            record,
        };
        let inner = self.inner().clone();
        let Some(handle) = inner.store.executor().or_else(|| self.tokio()) else {
            // Shut down: a runtime of the call's own finishes it.
            return Some(answer(self.block_on(io)));
        };
        let mut io = Box::pin(io);
        let first = {
            // The store's calls use the async runtime's timers and I/O.
            let _context = handle.enter();
            io.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        };
        let unreachable = LifecycleError::Write(WriteError::Store(StoreError::Unreachable(
            "the store's I/O ended".into(),
        )));
        match first {
            Poll::Ready(outcome) => Some(answer(outcome)),
            Poll::Pending => {
                let guard = Answering {
                    inner: inner.clone(),
                    unanswered: Some(answer((Err(unreachable), None))),
                };
                inner.store_steps.in_flight.fetch_add(1, Ordering::AcqRel);
                handle.spawn(async move {
                    let (written, record) = io.await;
                    guard.answer(written, record);
                });
                None
            }
        }
    }

    /// The answers of the steps that went on on the store's I/O, each
    /// decided as it would have been when it started.
    pub(super) fn store_steps_answered(&self, out: &mut Vec<Inbound>) {
        for answer in self.inner().store_steps.take() {
            out.push(Inbound::Relocation(self.step_answered(answer)));
        }
    }

    /// Decides a step from its answer. An answer for a relocation that is
    /// no longer the object's current one on its side changes nothing.
    pub(super) fn step_answered(&self, answer: Answer) -> RelocationAction {
        let Answer {
            key,
            identity,
            step,
            written,
            record,
        } = answer;
        let current = {
            let h = self.inner().handoffs.lock();
            match &step {
                Step::OwnerCas { .. } => {
                    h.target(&key).is_some() && h.identity(&key).as_ref() == Some(&identity)
                }
                Step::AbortFence { .. } => {
                    h.source(&key).is_some_and(|l| *l.identity() == identity)
                }
            }
        };
        if !current {
            tracing::debug!(object = %key, relocation = %identity.relocation, "a store step answered for a relocation that ended");
            return self.ignored(identity, Refusal::Ended);
        }
        match step {
            Step::OwnerCas { from, source } => {
                self.owner_cas_answered(&key, &identity, from, source, written, record)
            }
            Step::AbortFence { reason, link } => {
                self.abort_fence_answered(&key, &identity, reason, &link, written, record)
            }
        }
    }

    /// Waits until no store step or re-confirmation reads or writes the
    /// store (the mesh harness, which must stay deterministic).
    pub(crate) fn store_io_settled(&self) {
        while self.inner().store_steps.in_flight() || self.inner().reconfirm.in_flight() {
            std::thread::yield_now();
        }
    }
}

/// The record read after a refused write.
pub(crate) type RecordRead = Result<Option<AuthorityRecord>, StoreError>;

impl Inner {
    /// Reads `key`'s record after a refused write (its epoch observed, as
    /// every store answer's is).
    async fn read_after_refusal(&self, key: KeyRef<'_>) -> RecordRead {
        let r = &self.resolver;
        let result = r.timed(self.store.read(key)).await;
        let _ = r.observe(result.as_ref().map(|o| o.epoch));
        result.map(|observed| observed.value)
    }

    /// The store step of a take-ownership write (the owner CAS, the abort
    /// fence) on `fence` under `proposal`, and the read of the record after
    /// a refusal.
    pub(super) fn take_ownership(
        self: &Arc<Self>,
        key: &ObjectKey,
        fence: WriteFence,
        proposal: ProposalId,
    ) -> impl Future<Output = (Result<OwnedObject, LifecycleError>, Option<RecordRead>)> + Send + 'static
    {
        let (inner, key) = (self.clone(), key.clone());
        async move {
            let written = inner
                .write_as(key.as_ref(), Write::TakeOwnership(fence), proposal)
                .await;
            let record = if refused(&written) {
                Some(inner.read_after_refusal(key.as_ref()).await)
            } else {
                None
            };
            (written, record)
        }
    }
}

/// Whether a write's failure is the store's refusal (not a store that
/// could not answer): then the record is read to learn who holds it.
fn refused(written: &Result<OwnedObject, LifecycleError>) -> bool {
    matches!(written, Err(e) if !matches!(e, LifecycleError::Write(WriteError::Store(_))))
}
