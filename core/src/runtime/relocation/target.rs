//! The target's side of a relocation: the Restore registers the temporary
//! queue, the cutover (or the 1,000 ms timer) runs the owner CAS, and the
//! switch delivers in merge order; or the queue is discarded.

use super::*;

impl Runtime {
    /// Target, §2.5 step 1: registers the temporary queue before the object
    /// exists and hands the host the state to restore.
    pub(super) fn on_restore(&self, r: Restore) -> RelocationAction {
        let me = self.node_ref();
        let identity = r.identity.clone();
        let key = identity.key.clone();
        let refuse = |this: &Self, refusal: Refusal| {
            let abort = RelocationFrame::Abort {
                identity: identity.clone(),
                by: me,
                reason: AbortReason::Refused,
            };
            let mut action = this.ignored(identity.clone(), refusal);
            action.send.push(this.frame_to(r.source, abort));
            action
        };
        if r.target != me || self.owned(key.as_ref()).is_some() {
            return refuse(self, Refusal::WrongTarget);
        }
        if self.inner().handoffs.lock().was_aborted(&identity) {
            return refuse(self, Refusal::Ended);
        }
        let mut h = self.inner().handoffs.lock();
        match h.identity(&key) {
            Some(running) if running == identity => {
                drop(h);
                return self.ignored(identity, Refusal::AlreadyRestored);
            }
            Some(_) => {
                drop(h);
                return refuse(self, Refusal::AlreadyRelocating);
            }
            None => {}
        }
        let _ = h.queues.register_target(identity.clone());
        let _ = h.queues.target_restore(&identity, r.saved);
        let now = self.now();
        let times = (now, now.after(self.config_now().relocation_timeout));
        let proposal = ProposalId(self.inner().ids.next());
        let link = TargetLink::new(r.source, r.from, r.registrations, times, proposal);
        h.link_target(key, link);
        drop(h);
        self.counters().relocation.restores.incr();
        RelocationAction::event(RelocationEvent::Restore {
            identity,
            source: r.source,
            state: r.state,
        })
    }

    /// Target, §3.3 step 4: the cutover ends the relay span; the owner CAS
    /// is due at once (on the next `on_timeout`).
    pub(super) fn on_cutover(
        &self,
        identity: RelocationIdentity,
        source: NodeRef,
    ) -> RelocationAction {
        let key = identity.key.clone();
        let mut h = self.inner().handoffs.lock();
        if h.target(&key).is_none_or(|l| l.source().rid != source.rid) {
            drop(h);
            return self.ignored(identity, Refusal::NotRelocating);
        }
        match h.queues.target_cutover(&identity) {
            // The owner CAS is store I/O: it runs on the host's next
            // `on_timeout`, due now, so `on_frame` never waits on the store.
            TargetStep::CommitDue => {
                h.target_deadline(&key, self.now());
                drop(h);
                RelocationAction::event(RelocationEvent::CommitDue { identity })
            }
            TargetStep::Refused(r) => {
                drop(h);
                self.ignored(identity, r.reason)
            }
            _ => {
                drop(h);
                self.ignored(identity, Refusal::Ended)
            }
        }
    }

    /// Target, §3.3 steps 4–7: the owner CAS (a target-only store write on
    /// the source's tenure), then the merge order, the regular route, the
    /// Session bindings with command 44 commit, and the commit notice to
    /// the source. The CAS runs on the store's I/O: `None` while it is in
    /// flight (a later `on_timeout` decides it).
    pub(super) fn commit(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
    ) -> Option<RelocationAction> {
        let begun = self.inner().handoffs.lock().begin_cas(key);
        let Some((from, proposal, source)) = begun else {
            return Some(self.ignored(identity.clone(), Refusal::Ended));
        };
        let expect = WriteFence {
            object_generation: from.object_generation,
            authority_owner_generation: from.authority_owner_generation,
        };
        let io = self.inner().take_ownership(key, expect, proposal);
        let step = Step::OwnerCas { from, source };
        self.start_store_step(key, identity, step, io)
            .map(|answer| self.step_answered(answer))
    }

    /// Target: the owner CAS answered (`record`: read after a refusal).
    pub(super) fn owner_cas_answered(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        from: RouteFence,
        source: NodeRef,
        result: Result<OwnedObject, LifecycleError>,
        record: Option<RecordRead>,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        h.cas_answered(key);
        match result {
            Ok(owned) => {
                let merged = match h.queues.target_switch(identity) {
                    TargetStep::Dispatch(ops) => ops,
                    _ => Vec::new(),
                };
                let ended = h.unlink_ended(key);
                drop(h);
                let link = self.ended(ended);
                let Some(link) = link else {
                    return self.ignored(identity.clone(), Refusal::Ended);
                };
                self.committed(key, identity, link, owned.object_generation, merged)
            }
            // Unanswered, the CAS may have been applied: giving up now (and
            // confirming the source's abort) could leave the store naming
            // this node while the source runs the object again. Only a store
            // answer ends it: a success under the same proposal, or a
            // refusal. Meanwhile the source stays sealed and fences.
            Err(LifecycleError::Write(WriteError::Store(e))) => {
                tracing::warn!(object = %key, error = %e, "owner CAS not answered; retrying");
                let retry_at = self.now().after(COMMIT_RETRY);
                h.target_deadline(key, retry_at);
                drop(h);
                RelocationAction::event(RelocationEvent::CommitRetry {
                    identity: identity.clone(),
                })
            }
            Err(e) => {
                // The store refused the CAS: no attempt of it can still land
                // (one already applied would have been answered as a
                // success under its proposal), so withdrawing below cannot
                // leave two owners and must not wait for one.
                let withdrawn = h.cas_refused(key);
                drop(h);
                tracing::warn!(object = %key, error = %e, "owner CAS refused");
                if source_fenced(record, &from, source) {
                    // The source gave up and re-took its authority before it
                    // accepted a relay-ready: it runs the saved work itself.
                    let reason = withdrawn.unwrap_or(AbortReason::Timeout);
                    self.withdraw_target(key, identity, source, reason)
                } else {
                    self.abandon_target(key, identity)
                }
            }
        }
    }

    pub(super) fn committed(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        link: TargetLink,
        object_generation: crate::ids::ObjectGeneration,
        merged: Vec<Operation>,
    ) -> RelocationAction {
        self.counters().relocation.committed.incr();
        // A commit whose answer came late (a retried CAS the store had
        // already applied answers with the lease it granted then) may find
        // that lease lapsed: the object is this node's but must not run, so
        // the work waiting for it ends Unavailable as admission would end it.
        let now = self.now();
        let (merged, lapsed) = match self.owned(key.as_ref()) {
            Some(o) if now < o.admission_deadline => (merged, Vec::new()),
            _ => (Vec::new(), merged),
        };
        self.counters().follow.delivered.add(merged.len() as u64);
        self.inner().bindings.import(key, link.registrations());
        let (session, refused) = self.settle_relays(key, self.owned(key.as_ref()));
        let mut send = self.commit_session_routes(key, identity.relocation);
        send.extend(refused);
        send.extend(self.refuse_all_as(lapsed, UnavailableReason::AdmissionDeadlinePassed));
        let destination = self
            .owner_route_end(key.kind(), key.id())
            .ok()
            .flatten()
            .map(|end| end.fence);
        if let Some(destination) = destination {
            let notice = RelocationFrame::Committed {
                identity: identity.clone(),
                target: self.node_ref(),
                destination,
            };
            send.insert(0, self.frame_to(link.source(), notice));
        }
        let deliver = merged
            .into_iter()
            .map(|operation| Delivery {
                operation,
                object_generation,
            })
            .collect();
        tracing::info!(object = %key, relocation = %identity.relocation, "relocation committed here");
        RelocationAction {
            event: RelocationEvent::Committed {
                identity: identity.clone(),
                source: link.source(),
            },
            deliver,
            session,
            send,
        }
    }

    /// Target: the owner CAS was refused after relay-ready. Everything held
    /// here ends Unavailable at its sender, never run; the source is told.
    pub(super) fn abandon_target(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        let ops = match h.queues.target_abandon(identity) {
            TargetStep::Discarded(ops) => ops,
            _ => Vec::new(),
        };
        let ended = h.unlink_ended(key);
        drop(h);
        let link = self.ended(ended);
        self.counters().relocation.failed.incr();
        let mut send = self.refuse_all(ops);
        send.extend(self.settle_relays(key, None).1);
        if let Some(link) = link {
            let abort = RelocationFrame::Abort {
                identity: identity.clone(),
                by: self.node_ref(),
                reason: AbortReason::CommitFailed,
            };
            send.push(self.frame_to(link.source(), abort));
        }
        RelocationAction {
            event: RelocationEvent::Failed {
                identity: identity.clone(),
                reason: AbortReason::CommitFailed,
            },
            deliver: Vec::new(),
            session: Vec::new(),
            send,
        }
    }

    /// Work no owner will run: a refusal to each sender (Unavailable).
    pub(super) fn refuse_all(&self, ops: Vec<Operation>) -> Vec<Outbound> {
        self.refuse_all_as(ops, UnavailableReason::RelocationFailed)
    }

    /// Work no owner will run, each refused with `reason`.
    pub(super) fn refuse_all_as(
        &self,
        ops: Vec<Operation>,
        reason: UnavailableReason,
    ) -> Vec<Outbound> {
        let code = RejectionCode::Unavailable(reason);
        ops.iter()
            .filter_map(|op| match self.reject(op, code) {
                Inbound::Reject(out) => Some(out),
                _ => None,
            })
            .collect()
    }

    /// Target, before the switch: the source withdrew, the host could not
    /// restore, or the host took too long. The temporary queue is discarded
    /// (its work ends Unavailable); the source is told unless it withdrew.
    pub(super) fn discard_target(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
        tell_source: bool,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        let step = if tell_source {
            h.queues.target_fail(identity)
        } else {
            h.queues.target_withdraw(identity)
        };
        let ops = match step {
            TargetStep::Discarded(ops) => ops,
            TargetStep::Refused(r) => {
                drop(h);
                return self.ignored(identity.clone(), r.reason);
            }
            _ => Vec::new(),
        };
        let ended = h.unlink_ended(key);
        drop(h);
        let link = self.ended(ended);
        self.counters().relocation.aborted.incr();
        let mut send = self.refuse_all(ops);
        send.extend(self.settle_relays(key, None).1);
        if let (true, Some(link)) = (tell_source, link) {
            let abort = RelocationFrame::Abort {
                identity: identity.clone(),
                by: self.node_ref(),
                reason,
            };
            send.push(self.frame_to(link.source(), abort));
        }
        RelocationAction {
            event: RelocationEvent::Aborted {
                identity: identity.clone(),
                reason,
            },
            deliver: Vec::new(),
            session: Vec::new(),
            send,
        }
    }
}

/// Whether the record read after a refused owner CAS shows the source
/// holding a later tenure of the same incarnation (its abort fence).
fn source_fenced(record: Option<RecordRead>, from: &RouteFence, source: NodeRef) -> bool {
    record.and_then(Result::ok).flatten().is_some_and(|rec| {
        rec.owner.route.node == source.rid
            && rec.object_generation == from.object_generation
            && rec.authority_owner_generation > from.authority_owner_generation
    })
}
