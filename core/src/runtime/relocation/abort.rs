//! How a source gives a move up before relay-ready without ever leaving two
//! owners: it tells the target (Abort) and unseals once the target confirms
//! it discarded; a target that does not answer in `relocation_timeout` is
//! fenced off in the store (the source re-takes its own authority, so the
//! target's owner CAS can no longer succeed) before the source unseals. A
//! target that already committed answers with its commit instead, and the
//! source hands the object off as after a relay-ready.

use super::*;

/// Why the source may unseal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unseal {
    /// The target discarded (it confirmed, or it gave up itself).
    Confirmed,
    /// The store was fenced: this node holds a new tenure of the object.
    Fenced,
}

impl Runtime {
    /// Source, sealed: gives the move up. The target is told; the seal
    /// stays until it confirms (or the store is fenced on the next
    /// deadline).
    pub(super) fn start_abort(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
    ) -> RelocationAction {
        let deadline = self.now().after(self.config_now().relocation_timeout);
        let mut h = self.inner().handoffs.lock();
        h.source_aborting(key, reason, deadline);
        let target = h.source(key).map(|l| l.target());
        drop(h);
        let mut action = RelocationAction::event(RelocationEvent::Aborting {
            identity: identity.clone(),
            reason,
        });
        if let Some(target) = target {
            let abort = RelocationFrame::Abort {
                identity: identity.clone(),
                by: self.node_ref(),
                reason,
            };
            action.send.push(self.frame_to(target, abort));
        }
        tracing::info!(object = %key, relocation = %identity.relocation, ?reason, "relocation given up; waiting for the target to confirm");
        action
    }

    /// Source, aborting, and the target did not answer: re-takes its own
    /// authority by a store compare-and-set (its owner generation moves
    /// on), so the target's CAS on the old tenure can no longer succeed,
    /// then unseals. If the CAS finds the target already committed, the
    /// move goes on as after a relay-ready. The fence runs on the store's
    /// I/O: `None` while it is in flight (a later `on_timeout` decides it).
    pub(super) fn fence_abort(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
    ) -> Option<RelocationAction> {
        let link = match self.inner().handoffs.lock().start_fence(key, identity) {
            FenceStart::Started(link) => Some(link),
            // One fence at a time: its answer decides.
            FenceStart::InFlight => return None,
            FenceStart::NoLink => None,
        };
        let (Some(owned), Some(link)) = (self.owned(key.as_ref()), link) else {
            self.fence_answered(key);
            return Some(self.ignored(identity.clone(), Refusal::Ended));
        };
        let io = self
            .inner()
            .take_ownership(key, owned.write_fence(), link.proposal());
        let step = Step::AbortFence { reason, link };
        self.start_store_step(key, identity, step, io)
            .map(|answer| self.step_answered(answer))
    }

    /// Source: the abort fence answered (`record`: read after a refusal).
    pub(super) fn abort_fence_answered(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
        link: &SourceLink,
        result: Result<OwnedObject, LifecycleError>,
        record: Option<RecordRead>,
    ) -> RelocationAction {
        self.fence_answered(key);
        match result {
            Ok(_) => self.unseal(key, identity, reason, Unseal::Fenced),
            Err(LifecycleError::Write(WriteError::Store(e))) => {
                tracing::warn!(object = %key, error = %e, "abort fence not answered; retrying");
                self.retry_fence(key, identity)
            }
            Err(_) => self.commit_found_by_fence(key, identity, link, record),
        }
    }

    /// The fence is no longer in flight.
    fn fence_answered(&self, key: &ObjectKey) {
        self.inner().handoffs.lock().end_fence(key);
    }

    /// The fence (or the read after its refusal) could not be answered:
    /// the seal stays, and it is tried again.
    fn retry_fence(&self, key: &ObjectKey, identity: &RelocationIdentity) -> RelocationAction {
        self.inner()
            .handoffs
            .lock()
            .source_deadline(key, self.now().after(COMMIT_RETRY));
        RelocationAction::event(RelocationEvent::CommitRetry {
            identity: identity.clone(),
        })
    }

    /// The abort's fence was refused: another tenure holds the object. If it
    /// is the target's, the target committed: hand off. Otherwise the
    /// object is gone from both (its side ends).
    fn commit_found_by_fence(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        link: &SourceLink,
        read: Option<RecordRead>,
    ) -> RelocationAction {
        let record = match read {
            Some(Ok(record)) => record,
            Some(Err(e)) => {
                // Unknown: keep the seal and ask again.
                tracing::warn!(object = %key, error = %e, "abort fence: store read failed; retrying");
                return self.retry_fence(key, identity);
            }
            None => return self.retry_fence(key, identity),
        };
        if let Some(rec) = &record {
            // A store answer with a higher version drops an older cached
            // route (§2.2): this node's own route to the object among them.
            self.inner()
                .resolver
                .confirmed_version(key.as_ref(), rec.store_version);
        }
        match record {
            Some(rec)
                if rec.owner.route.node == link.target().rid
                    && rec.object_generation == identity.object_generation =>
            {
                let destination = RouteFence {
                    object_generation: rec.object_generation,
                    authority_owner_generation: rec.authority_owner_generation,
                    owner_lease_generation: rec.owner.lease.generation,
                    node_generation: rec.owner.node_generation,
                    store_version: rec.store_version,
                };
                self.on_committed(identity.clone(), link.target(), destination)
            }
            _ => self.fail_sealed_source(key, identity, AbortReason::CommitFailed, false),
        }
    }

    /// Source, sealed, and the object turned out to be held by neither side
    /// (another node took it, or the target's CAS was refused): nothing of
    /// it runs here. The held work ends Unavailable at its senders, and the
    /// saved work too unless the target already refused it.
    pub(super) fn fail_sealed_source(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
        target_refused_saved: bool,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        let saved = h.queues.source(key).map_or(0, |s| s.saved_work().len());
        let work = match h.queues.source_fail(identity) {
            SourceStep::Restore(work) => work,
            SourceStep::Refused(r) => {
                drop(h);
                return self.ignored(identity.clone(), r.reason);
            }
            _ => Vec::new(),
        };
        let ended = h.unlink_ended(key);
        drop(h);
        self.ended(ended);
        self.ownership().remove(key.as_ref());
        self.inner().bindings.forget(key);
        let skip = if target_refused_saved { saved } else { 0 };
        let mut send = self.refuse_all(work.into_iter().skip(skip).collect());
        send.extend(self.settle_relays(key, None).1);
        self.counters().relocation.failed.incr();
        tracing::warn!(object = %key, relocation = %identity.relocation, ?reason, "relocation failed while sealed: the object runs on neither side");
        RelocationAction {
            event: RelocationEvent::Failed {
                identity: identity.clone(),
                reason,
            },
            deliver: Vec::new(),
            session: Vec::new(),
            send,
        }
    }

    /// Target: the source gave the move up. Whatever phase before the
    /// switch, the temporary queue is discarded (the source never accepted
    /// a relay-ready, so nothing of a relay span is lost) and the source is
    /// told it may unseal; a late Restore of it is refused from now on.
    pub(super) fn withdraw_target(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        source: NodeRef,
        reason: AbortReason,
    ) -> RelocationAction {
        {
            // An owner CAS may be in the store already: withdrawing now
            // could leave two owners. The store decides; the source hears
            // the commit, or this confirmation after a refusal.
            let pending = self
                .inner()
                .handoffs
                .lock()
                .withdraw_during_cas(key, reason);
            if pending {
                return self.ignored(identity.clone(), Refusal::AfterRelayReady);
            }
        }
        let mut action = self.discard_target(key, identity, reason, false);
        self.inner()
            .handoffs
            .lock()
            .remember_aborted(identity.clone());
        let confirm = RelocationFrame::Abort {
            identity: identity.clone(),
            by: self.node_ref(),
            reason,
        };
        action.send.push(self.frame_to(source, confirm));
        action
    }

    /// An Abort for a relocation not registered here: if this node holds
    /// the object's later tenure, the move committed here (tell the source
    /// again); otherwise confirm, and refuse a late Restore of it.
    pub(super) fn answer_unknown_abort(
        &self,
        identity: RelocationIdentity,
        by: NodeRef,
        reason: AbortReason,
    ) -> RelocationAction {
        let me = self.node_ref();
        let committed_here = self
            .owned(identity.key.as_ref())
            .filter(|o| o.object_generation == identity.object_generation)
            .and_then(|_| {
                self.owner_route_end(identity.key.kind(), identity.key.id())
                    .ok()
                    .flatten()
            });
        let answer = match committed_here {
            Some(end) => RelocationFrame::Committed {
                identity: identity.clone(),
                target: me,
                destination: end.fence,
            },
            None => {
                self.inner()
                    .handoffs
                    .lock()
                    .remember_aborted(identity.clone());
                RelocationFrame::Abort {
                    identity: identity.clone(),
                    by: me,
                    reason,
                }
            }
        };
        let mut action = self.ignored(identity, Refusal::NotRelocating);
        action.send.push(self.frame_to(by, answer));
        action
    }
    /// Source, before relay-ready: the move is abandoned and the target
    /// can no longer commit it (it confirmed, or the store was fenced). The
    /// seal is released without reading the store: the saved work then the
    /// held work are delivered here in order, and command 44 releases the
    /// Sessions' seals (abort; or commit of this node's fenced tenure).
    pub(super) fn unseal(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
        how: Unseal,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        let work = match h.queues.source_fail(identity) {
            SourceStep::Restore(work) => work,
            SourceStep::Refused(r) => {
                drop(h);
                return self.ignored(identity.clone(), r.reason);
            }
            _ => Vec::new(),
        };
        let ended = h.unlink_ended(key);
        drop(h);
        self.ended(ended);
        self.counters().relocation.aborted.incr();
        // Not while a store recovery event left the record unconfirmed.
        let owned = self.admitting(key.as_ref());
        let object_generation = owned.map_or(identity.object_generation, |o| o.object_generation);
        // The object runs here again only within its owner lease: a seal
        // that outlived the lease's admission deadline must not run the work
        // it held (another owner may hold the object by now). That work ends
        // Unavailable at its senders instead, as admission would have ended
        // it had it arrived unsealed.
        let now = self.now();
        let (work, lapsed) = match owned {
            Some(o) if now < o.admission_deadline => (work, Vec::new()),
            _ => (Vec::new(), work),
        };
        self.counters().follow.delivered.add(work.len() as u64);
        let deliver = work
            .into_iter()
            .map(|operation| Delivery {
                operation,
                object_generation,
            })
            .collect();
        let (session, refused) = self.settle_relays(key, owned);
        let mut send = match how {
            Unseal::Confirmed => self.abort_session_routes(key, identity.relocation),
            Unseal::Fenced => self.commit_session_routes(key, identity.relocation),
        };
        send.extend(refused);
        send.extend(self.refuse_all_as(lapsed, UnavailableReason::AdmissionDeadlinePassed));
        tracing::info!(object = %key, relocation = %identity.relocation, ?reason, "relocation abandoned before relay-ready: unsealed");
        RelocationAction {
            event: RelocationEvent::Aborted {
                identity: identity.clone(),
                reason,
            },
            deliver,
            session,
            send,
        }
    }
}
