//! Both queues of a relocation run end to end over an ordered connection,
//! with arrivals interleaved at random: nothing lost, nothing duplicated,
//! every sender's order kept.

use super::*;

/// A small deterministic RNG (splitmix64), so every interleaving replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What travels on the ordered source → target relocation connection.
// An operation given back is moved once, by value: boxing it would cost an
// allocation per operation to save stack bytes.
#[allow(clippy::large_enum_variant)]
enum Wire {
    Restore(Vec<Operation>),
    Relay(Operation),
    Cutover,
}

/// What travels back, target → source, in order.
enum Reply {
    RelayReady,
    Committed,
}

/// Two nodes, one Actor moving from `src` to `dst`, driven by `rng`.
struct Sim {
    rng: Rng,
    clock: ManualClock,
    id: RelocationIdentity,
    src: RelocationQueues,
    dst: RelocationQueues,
    conn: VecDeque<Wire>,
    replies: VecDeque<Reply>,
    next_id: u64,
    /// Every operation created, by id, as created.
    created: HashMap<u64, Operation>,
    /// Same-incarnation operations that reached the source, in order
    /// (the captured work first).
    source_order: Vec<u64>,
    source_exec: Vec<Operation>,
    target_exec: Vec<Operation>,
    /// Ended without running (refused or discarded), by id.
    ended: Vec<u64>,
    source_owner: bool,
    target_owner: bool,
    target_registered: bool,
    failed: bool,
    /// Some runs delay the replies past the commit timer, so the target
    /// switches while the source still holds.
    slow_replies: bool,
}

impl Sim {
    fn new(seed: u64) -> Self {
        let mut sim = Sim {
            rng: Rng(seed),
            clock: ManualClock::new(),
            id: identity(actor()),
            src: RelocationQueues::new(),
            dst: RelocationQueues::new(),
            conn: VecDeque::new(),
            replies: VecDeque::new(),
            next_id: 1,
            created: HashMap::new(),
            source_order: Vec::new(),
            source_exec: Vec::new(),
            target_exec: Vec::new(),
            ended: Vec::new(),
            source_owner: false,
            target_owner: false,
            target_registered: false,
            failed: false,
            slow_replies: false,
        };
        sim.slow_replies = sim.rng.below(3) == 0;
        let captured: Vec<Operation> = (0..sim.rng.below(5)).map(|_| sim.create(GEN)).collect();
        sim.source_order.extend(ids(&captured));
        assert_eq!(
            sim.src.seal_source(sim.id.clone(), captured.clone()),
            SourceStep::Sealed
        );
        sim.conn.push_back(Wire::Restore(captured));
        sim
    }

    fn create(&mut self, generation: ObjectGeneration) -> Operation {
        let o = op_for(&actor(), self.next_id, generation);
        self.next_id += 1;
        self.created.insert(o.operation_id.get(), o.clone());
        o
    }

    fn arrive_at_source(&mut self) {
        let generation = if self.rng.below(10) == 0 {
            ObjectGeneration(2)
        } else {
            GEN
        };
        let o = self.create(generation);
        let n = o.operation_id.get();
        match self.src.source_arrival(o) {
            SourceStep::Held => self.source_order.push(n),
            SourceStep::Relay(ops) => {
                self.source_order.extend(ids(&ops));
                self.conn.extend(ops.into_iter().map(Wire::Relay));
            }
            SourceStep::Refused(r) => {
                assert_eq!(r.reason, Refusal::WrongIncarnation);
                self.ended.extend(ids(&r.returned));
            }
            SourceStep::NotRelocating(o) => {
                if o.object_generation == GEN {
                    self.source_order.push(n);
                }
                if self.source_owner {
                    self.source_exec.push(o);
                } else {
                    // Finished: the previous route's Message Follow relay.
                    self.conn.push_back(Wire::Relay(o));
                }
            }
            other => panic!("arrival at source: {other:?}"),
        }
    }

    fn arrive_at_target(&mut self, o: Operation) {
        match self.dst.target_arrival(o) {
            TargetStep::Queued => {}
            TargetStep::Refused(r) => {
                assert_eq!(r.reason, Refusal::WrongIncarnation);
                self.ended.extend(ids(&r.returned));
            }
            TargetStep::NotRelocating(o) => {
                if self.target_owner {
                    self.target_exec.push(o);
                } else {
                    // Not the owner and no temporary queue: Unavailable.
                    self.ended.push(o.operation_id.get());
                }
            }
            other => panic!("arrival at target: {other:?}"),
        }
    }

    fn deliver_to_target(&mut self) {
        let Some(wire) = self.conn.pop_front() else {
            return;
        };
        match wire {
            Wire::Restore(saved) => {
                assert_eq!(
                    self.dst.register_target(self.id.clone()),
                    TargetStep::Registered
                );
                self.target_registered = true;
                assert_eq!(
                    self.dst.target_restore(&self.id, saved),
                    TargetStep::Restored
                );
            }
            Wire::Relay(o) => self.arrive_at_target(o),
            Wire::Cutover => match self.dst.target_cutover(&self.id) {
                TargetStep::CommitDue => {}
                TargetStep::Refused(r) => assert_eq!(r.reason, Refusal::NotRelocating),
                other => panic!("cutover: {other:?}"),
            },
        }
    }

    fn target_ready(&mut self) {
        let restored = self
            .dst
            .target(&self.id.key)
            .is_some_and(|t| t.phase() == TargetPhase::Restored);
        if restored {
            assert_eq!(
                self.dst.target_relay_ready(&self.id, self.clock.now()),
                TargetStep::RelayReady
            );
            self.replies.push_back(Reply::RelayReady);
        }
    }

    fn deliver_to_source(&mut self) {
        match self.replies.pop_front() {
            Some(Reply::RelayReady) => {
                let ops = relayed(self.src.source_relay_ready(&self.id));
                self.conn.extend(ops.into_iter().map(Wire::Relay));
            }
            Some(Reply::Committed) => {
                assert_eq!(self.src.source_finish(&self.id), SourceStep::Finished);
            }
            None => {}
        }
    }

    fn cutover(&mut self) {
        let relaying = self
            .src
            .source(&self.id.key)
            .is_some_and(|s| s.phase() == SourcePhase::Relaying);
        if relaying {
            assert_eq!(self.src.source_cutover(&self.id), SourceStep::Cutover);
            self.conn.push_back(Wire::Cutover);
        }
    }

    fn commit_if_due(&mut self) {
        if self.dst.target_commits_due(self.clock.now()) == vec![self.id.clone()] {
            // The owner CAS succeeds here, then the switch.
            self.target_owner = true;
            let merged = dispatched(self.dst.target_switch(&self.id));
            assert!(self.target_exec.is_empty(), "nothing ran before the switch");
            self.target_exec.extend(merged);
            self.replies.push_back(Reply::Committed);
        }
    }

    /// The coordinator fails the target first and restores the source only
    /// once the target discarded its queue (see `RelocationSource::fail`).
    fn try_fail(&mut self) {
        if !self.target_registered || self.failed {
            return;
        }
        match self.dst.target_fail(&self.id) {
            TargetStep::Discarded(ops) => {
                self.ended.extend(ids(&ops));
                match self.src.source_fail(&self.id) {
                    SourceStep::Restore(work) => self.source_exec.extend(work),
                    other => panic!("source fail: {other:?}"),
                }
                self.source_owner = true;
                self.failed = true;
            }
            TargetStep::Refused(r) => assert!(matches!(
                r.reason,
                Refusal::AfterRelayReady | Refusal::NotRelocating
            )),
            other => panic!("target fail: {other:?}"),
        }
    }

    fn step(&mut self) {
        match self.rng.below(100) {
            0..=29 => self.arrive_at_source(),
            30..=34 if self.target_registered => {
                let o = self.create(GEN);
                self.arrive_at_target(o);
            }
            35..=59 => self.deliver_to_target(),
            60..=69 => self.target_ready(),
            70..=79 if !self.slow_replies || self.rng.below(8) == 0 => self.deliver_to_source(),
            80..=84 => self.cutover(),
            85..=92 => self
                .clock
                .advance(Duration::from_millis(self.rng.below(400))),
            93..=97 => self.commit_if_due(),
            99 => self.try_fail(),
            _ => {}
        }
    }

    /// Drives the run to its end whatever state the random steps left.
    fn settle(&mut self) {
        for _ in 0..8 {
            while !self.conn.is_empty() {
                self.deliver_to_target();
            }
            self.target_ready();
            while !self.replies.is_empty() {
                self.deliver_to_source();
            }
            self.cutover();
            self.clock.advance(COMMIT_AFTER_RELAY_READY);
            self.commit_if_due();
        }
        assert!(self.conn.is_empty() && self.replies.is_empty());
        assert!(
            self.src.is_empty() && self.dst.is_empty(),
            "every entry ended"
        );
    }

    fn check(&self, seed: u64) {
        // Nothing lost, nothing run twice: each created operation ended in
        // exactly one place.
        let mut seen: HashMap<u64, usize> = HashMap::new();
        let ran = self.source_exec.iter().chain(&self.target_exec);
        for n in ids(&ran.cloned().collect::<Vec<_>>())
            .into_iter()
            .chain(self.ended.iter().copied())
        {
            *seen.entry(n).or_default() += 1;
        }
        for n in self.created.keys() {
            assert_eq!(seen.get(n), Some(&1), "seed {seed}: operation {n}");
        }
        assert_eq!(seen.len(), self.created.len(), "seed {seed}: unknown ids");
        // Identity, payload and reply route unchanged wherever it ran.
        for o in self.source_exec.iter().chain(&self.target_exec) {
            assert_eq!(&self.created[&o.operation_id.get()], o, "seed {seed}");
        }
        // Everything that reached the source runs, in the order it reached
        // it, on exactly one side: at home after a failure, else the target.
        let home = if self.failed {
            &self.source_exec
        } else {
            &self.target_exec
        };
        let order: Vec<u64> = ids(home)
            .into_iter()
            .filter(|n| self.source_order.contains(n))
            .collect();
        assert_eq!(order, self.source_order, "seed {seed}: source order");
        if self.failed {
            assert!(self.target_exec.is_empty(), "seed {seed}: target ran work");
        }
    }
}

#[test]
fn a_full_run_loses_and_duplicates_nothing_over_many_interleavings() {
    let mut failures = 0;
    for seed in 0..500 {
        let mut sim = Sim::new(seed);
        for _ in 0..120 {
            sim.step();
        }
        sim.settle();
        sim.check(seed);
        failures += usize::from(sim.failed);
    }
    // Both endings are exercised.
    assert!(failures > 0 && failures < 500, "failures: {failures}");
}
