//! Moving objects on the mesh: the relocation protocol driven the way a
//! host drives it (begin on the source, restore on the target when asked,
//! carry every frame), plus the faults a test injects around a move: a
//! parked Restore, a failing or silent restore, a dead node, a corrupting
//! link, an authority taken behind the runtimes' backs.

use super::*;

/// What the mesh's hosts do when a Restore hands them an object's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoreMode {
    /// Restore it and answer relay-ready at once (the default).
    Ready,
    /// Fail the restore: the target aborts the relocation.
    Fail,
    /// Do nothing (a host that hangs or died before relay-ready).
    Ignore,
}

/// Waits for an embedded-store answer (it never waits on I/O).
pub(super) fn store_answer<F: std::future::Future>(fut: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime starts")
        .block_on(fut)
}

/// A bound Actor's Restore, held by its host until every bound Session
/// answered the seal (command 43).
pub(super) struct AwaitingSeals {
    relocation: crate::ids::RelocationId,
    seals: usize,
    restore: Envelope,
}

impl Mesh {
    /// Starts moving `id` the way a host drives it (§3.3 step 1): when the
    /// object has bound Sessions, the Restore leaves only once each of them
    /// answered its seal (43), so every relay a Session sent before its
    /// seal is at the source first; if the move ends before that, the
    /// Restore is dropped. Without bound Sessions it is
    /// [`begin_move`](Self::begin_move).
    pub fn move_as_host(
        &mut self,
        kind: ObjectKind,
        id: &str,
        from: u64,
        to: u64,
    ) -> Result<RelocationIdentity, RelocationError> {
        let target = self.node(to).node_ref();
        let started = self
            .node(from)
            .begin_relocation(kind, id, target, Capture::default())?;
        let mut frames = started.send.into_iter();
        let restore = frames.next();
        let seals: Vec<Outbound> = frames.collect();
        match restore {
            Some(restore) if !seals.is_empty() => self.awaiting_seals.push(AwaitingSeals {
                relocation: started.identity.relocation,
                seals: seals.len(),
                restore: Envelope {
                    from: NodeRid(from),
                    to: restore.to.rid,
                    carried: Carried::Relocation,
                    bytes: restore.bytes,
                },
            }),
            Some(restore) => self.post(NodeRid(from), restore, Carried::Relocation),
            None => {}
        }
        for seal in seals {
            self.post(NodeRid(from), seal, Carried::Session);
        }
        Ok(started.identity)
    }

    /// A Session answered a seal: the last answer lets the Restore go.
    pub(super) fn seal_answered(&mut self, relocation: crate::ids::RelocationId) {
        let Some(i) = self
            .awaiting_seals
            .iter()
            .position(|a| a.relocation == relocation)
        else {
            return;
        };
        self.awaiting_seals[i].seals -= 1;
        if self.awaiting_seals[i].seals == 0 {
            let waiting = self.awaiting_seals.remove(i);
            self.network.push_back(waiting.restore);
        }
    }

    /// Moves `id` from node `from` to node `to` with the relocation
    /// protocol (§3.3) and runs the network until it is quiet: seal, Restore,
    /// relay-ready, relay span, cutover, owner CAS, commit notice.
    pub fn relocate(
        &mut self,
        kind: ObjectKind,
        id: &str,
        from: u64,
        to: u64,
    ) -> Result<RelocationIdentity, RelocationError> {
        let identity = self.begin_move(kind, id, from, to)?;
        self.run();
        Ok(identity)
    }

    /// Starts moving `id` from `from` to `to` (an empty capture): its frames
    /// go on the network, nothing is carried yet.
    pub fn begin_move(
        &mut self,
        kind: ObjectKind,
        id: &str,
        from: u64,
        to: u64,
    ) -> Result<RelocationIdentity, RelocationError> {
        self.begin_move_with(kind, id, from, to, Capture::default())
    }

    /// [`begin_move`](Self::begin_move) with what the host captured.
    pub fn begin_move_with(
        &mut self,
        kind: ObjectKind,
        id: &str,
        from: u64,
        to: u64,
        capture: Capture,
    ) -> Result<RelocationIdentity, RelocationError> {
        let target = self.node(to).node_ref();
        let started = self
            .node(from)
            .begin_relocation(kind, id, target, capture)?;
        for frame in started.send {
            let carried = Carried::of(&frame.bytes);
            self.post(NodeRid(from), frame, carried);
        }
        Ok(started.identity)
    }

    /// The source's host abandons the move of `id` (before relay-ready).
    pub fn abort_move(
        &mut self,
        kind: ObjectKind,
        id: &str,
        at: u64,
    ) -> Result<(), RelocationError> {
        let action = self.node(at).abort_relocation(kind, id)?;
        self.act(
            NodeRid(at),
            Inbound::Relocation(action),
            Carried::Relocation,
        );
        Ok(())
    }

    /// What the mesh's hosts do with a Restore from now on.
    pub fn restore_mode(&mut self, mode: RestoreMode) {
        self.restore = mode;
    }

    pub(super) fn relocation(&mut self, at: NodeRid, action: RelocationAction) {
        for d in action.deliver {
            self.deliver(at, d);
        }
        for d in action.session {
            self.act(at, Inbound::SessionDeliver(d), Carried::Session);
        }
        for frame in action.send {
            let carried = Carried::of(&frame.bytes);
            self.post(at, frame, carried);
        }
        if let RelocationEvent::Restore { identity, .. } = &action.event {
            let key = identity.key.clone();
            match self.restore {
                RestoreMode::Ready => {
                    if let Ok(frames) = self
                        .node(at.get())
                        .relocation_restored(key.kind(), key.id())
                    {
                        frames
                            .into_iter()
                            .for_each(|f| self.post(at, f, Carried::Relocation));
                    }
                }
                RestoreMode::Fail => {
                    if let Ok(abort) = self.node(at.get()).abort_relocation(key.kind(), key.id()) {
                        self.relocation(at, abort);
                    }
                }
                RestoreMode::Ignore => {}
            }
        }
        if let RelocationEvent::Aborting { identity, .. }
        | RelocationEvent::Aborted { identity, .. }
        | RelocationEvent::Failed { identity, .. } = &action.event
        {
            // The move ended before its seals were answered: no Restore.
            self.awaiting_seals
                .retain(|a| a.relocation != identity.relocation);
        }
        self.ledger.relocation_events.push((at, action.event));
    }

    /// Relocation step 1 on the source for a bound Actor: seals it and
    /// sends command 42 to every bound Session; the Restore for `to` is
    /// parked until [`commit_bound`](Self::commit_bound).
    pub fn seal_bound(
        &mut self,
        actor: &str,
        from: u64,
        to: u64,
    ) -> Result<RelocationIdentity, RelocationError> {
        let target = self.node(to).node_ref();
        let started = self.node(from).begin_relocation(
            ObjectKind::Actor,
            actor,
            target,
            Capture::default(),
        )?;
        let mut frames = started.send.into_iter();
        if let Some(restore) = frames.next() {
            self.parked.push(Envelope {
                from: NodeRid(from),
                to: restore.to.rid,
                carried: Carried::Relocation,
                bytes: restore.bytes,
            });
        }
        for seal in frames {
            self.post(NodeRid(from), seal, Carried::Session);
        }
        Ok(started.identity)
    }

    /// The rest of §3.3 once sealed: the parked Restore goes out and the
    /// network runs (relay-ready, cutover, owner CAS, command 44 commit).
    pub fn commit_bound(&mut self) {
        let parked = std::mem::take(&mut self.parked);
        self.network.extend(parked);
        self.run();
    }

    /// Explicit failure before relay-ready on the source: the parked
    /// Restore is dropped, command 44 abort goes to every bound Session.
    pub fn abort_bound(&mut self, actor: &str, from: u64) -> Result<(), RelocationError> {
        self.parked.clear();
        self.abort_move(ObjectKind::Actor, actor, from)
    }

    /// Node `rid`'s process dies: from now on nothing reaches it, its
    /// timers never fire and it sends nothing.
    pub fn kill(&mut self, rid: u64) {
        self.dead.push(NodeRid(rid));
        self.ledger.process_died(NodeRid(rid));
    }

    /// Takes the next frame in flight off the network without carrying it
    /// (a test feeds it to a node itself).
    pub fn take_next(&mut self) -> Option<Envelope> {
        self.network.pop_front()
    }

    /// Changes every held-back frame's bytes (a corrupting link).
    pub fn corrupt_delayed(&mut self, mut f: impl FnMut(&mut Vec<u8>)) {
        self.delayed.iter_mut().for_each(|e| f(&mut e.bytes));
    }

    /// The authority record of `id` in the shared store.
    pub fn store_record(&self, kind: ObjectKind, id: &str) -> Option<AuthorityRecord> {
        let read = self.store.read(KeyRef { kind, id });
        store_answer(read).ok().and_then(|o| o.value)
    }

    /// Moves `id`'s authority to node `to` directly in the store, behind
    /// every runtime's back (another owner taking over): a compare-and-set on
    /// `record`. Panics if the store refuses.
    pub fn force_transfer(&self, kind: ObjectKind, id: &str, record: AuthorityRecord, to: u64) {
        let me = self.identities[(to - 1) as usize];
        let claim = OwnerClaim {
            mesh: me.mesh,
            node: me.rid,
            node_generation: me.generation,
            lease_generation: me.lease,
            lease_millis: 30_000,
        };
        let fence = WriteFence {
            object_generation: record.object_generation,
            authority_owner_generation: record.authority_owner_generation,
        };
        let write =
            self.store
                .transfer_owner(KeyRef { kind, id }, fence, claim, ProposalId(u64::MAX));
        store_answer(write).expect("the store takes the transfer");
    }
}
