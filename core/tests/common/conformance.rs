//! The Location Store contract as backend-independent rules.
//!
//! Every rule is a function of `(&dyn LocationStore, &StoreEnv)`, so each
//! backend runs the same suite. A backend's test file includes this module
//! (`mod common;`), writes a function returning a fresh [`Backend`], and
//! expands [`store_conformance_tests!`] with it: every rule becomes its own
//! `#[test]`.
//!
//! Rules never assume the store's clock can be set: they move it with
//! [`StoreClock::advance`] (a manual clock jumps, a real server's clock is
//! waited out) and compare exact times only when [`StoreClock::exact_now`]
//! knows them. Every ID a rule writes starts with [`StoreEnv::ns`], so runs
//! against a shared server do not collide.

use std::fmt::Debug;
use std::future::Future;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use zlink_core::store::{Observed, WriteError, WriteFuture, WriteRejection};
use zlink_core::{
    AuthorityOwnerGeneration, AuthorityRecord, AuthorityState, Clock, KeyRef, LocationStore,
    ManualClock, MeshName, NodeGeneration, NodeRid, ObjectGeneration, ObjectKind, OwnerClaim,
    OwnerLeaseGeneration, ProposalId, StoreTime, StoreVersion, WriteFence,
};

/// A proposal no other write of this process uses.
pub(crate) fn next_proposal() -> ProposalId {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    ProposalId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// Lease length of rules that never wait a lease out.
pub(crate) const LONG_LEASE_MILLIS: u64 = 60_000;

/// Contenders in each concurrency rule.
const CONTENDERS: u64 = 8;

/// Rounds of each concurrency rule (more rounds, more interleavings seen).
const ROUNDS: u64 = 4;

/// Control over the store's clock, as far as a test can have it.
pub(crate) trait StoreClock: Send + Sync {
    /// Moves the store's clock forward by at least `d`.
    fn advance(&self, d: Duration);

    /// The store's time now, when the test can know it exactly.
    fn exact_now(&self) -> Option<StoreTime>;
}

impl StoreClock for ManualClock {
    fn advance(&self, d: Duration) {
        ManualClock::advance(self, d);
    }

    fn exact_now(&self) -> Option<StoreTime> {
        Some(StoreTime(self.now().as_millis()))
    }
}

/// What the rules need besides the store itself.
pub(crate) struct StoreEnv {
    /// Moves (or waits out) the store's clock.
    pub(crate) clock: Arc<dyn StoreClock>,
    /// Prefix of every ID the rules write.
    pub(crate) ns: String,
    /// Lease length of rules that wait a lease out: keep it short when
    /// [`StoreClock::advance`] sleeps.
    pub(crate) short_lease_millis: u64,
}

impl StoreEnv {
    fn id(&self, name: &str) -> String {
        format!("{}{name}", self.ns)
    }
}

/// A fresh backend for one rule.
pub(crate) struct Backend {
    /// The store under test.
    pub(crate) store: Arc<dyn LocationStore>,
    /// Its clock control and naming.
    pub(crate) env: StoreEnv,
}

thread_local! {
    /// The runtime this test thread's calls run on, when a backend asks
    /// for one (a store that lives on it: its calls then run inline).
    static EXECUTOR: std::cell::RefCell<Option<tokio::runtime::Handle>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes this thread's [`block_on`] run on `runtime` from now on.
#[allow(dead_code)] // Only the Redis suite has a store on a host's runtime.
pub(crate) fn run_on(runtime: tokio::runtime::Handle) {
    EXECUTOR.with(|e| *e.borrow_mut() = Some(runtime));
}

/// Runs `fut` to completion on a small current-thread runtime, or on the
/// runtime [`run_on`] named.
pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
    if let Some(runtime) = EXECUTOR.with(|e| e.borrow().clone()) {
        return runtime.block_on(fut);
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime starts")
        .block_on(fut)
}

/// Expands to one `#[test]` per rule, each on a fresh backend from
/// `$backend: fn() -> Backend`.
macro_rules! store_conformance_tests {
    ($backend:path) => {
        $crate::common::conformance::store_conformance_tests!(@async $backend;
            create_starts_creating_with_a_new_generation,
            create_on_an_existing_record_is_already_exists,
            a_create_by_the_creating_records_own_claim_adopts_it,
            publish_ready_compares_fence_and_state,
            every_successful_write_bumps_store_version,
            transfer_owner_bumps_owner_generation_by_one,
            transfer_with_a_stale_fence_changes_nothing,
            renew_lease_extends_expiry_on_the_store_clock,
            renew_lease_by_another_lease_generation_is_refused,
            renew_lease_after_expiry_is_refused,
            begin_release_moves_to_releasing,
            complete_release_removes_only_a_releasing_record,
            recreate_after_release_gets_a_higher_generation,
            reads_report_store_time_and_epoch,
            writes_to_absent_records_are_not_found,
            keys_are_opaque_and_kinds_are_distinct,
            a_write_retried_with_its_proposal_is_recognised_not_repeated,
            peer_descriptors_are_published_and_read_back,
            an_older_lifecycle_never_overwrites_a_newer_descriptor,
        );
        $crate::common::conformance::store_conformance_tests!(@sync $backend;
            concurrent_create_has_exactly_one_winner,
            concurrent_publish_has_exactly_one_winner,
            concurrent_transfer_has_exactly_one_winner,
        );
    };
    (@async $backend:path; $($rule:ident),* $(,)?) => {$(
        #[test]
        fn $rule() {
            let backend = $backend();
            $crate::common::conformance::block_on(
                $crate::common::conformance::$rule(&*backend.store, &backend.env),
            );
        }
    )*};
    (@sync $backend:path; $($rule:ident),* $(,)?) => {$(
        #[test]
        fn $rule() {
            let backend = $backend();
            $crate::common::conformance::$rule(&*backend.store, &backend.env);
        }
    )*};
}
pub(crate) use store_conformance_tests;

// ---------------------------------------------------------------- helpers

fn spot(id: &str) -> KeyRef<'_> {
    KeyRef {
        kind: ObjectKind::Spot,
        id,
    }
}

/// Node `node`'s claim under lease generation `lease`.
fn claim(node: u64, lease: u64, lease_millis: u64) -> OwnerClaim {
    OwnerClaim {
        mesh: MeshName::new("conformance").expect("a valid mesh name"),
        node: NodeRid(node),
        node_generation: NodeGeneration(node + 1000),
        lease_generation: OwnerLeaseGeneration(lease),
        lease_millis,
    }
}

fn long_claim(node: u64) -> OwnerClaim {
    claim(node, node, LONG_LEASE_MILLIS)
}

async fn read(store: &dyn LocationStore, key: KeyRef<'_>) -> Observed<Option<AuthorityRecord>> {
    store.read(key).await.expect("the store answers a read")
}

async fn record(store: &dyn LocationStore, key: KeyRef<'_>) -> AuthorityRecord {
    read(store, key)
        .await
        .value
        .unwrap_or_else(|| panic!("a record exists for {key:?}"))
}

/// The rejection `result` must be.
fn rejection<T: Debug>(result: Result<T, WriteError>, what: &str) -> WriteRejection {
    match result {
        Err(WriteError::Rejected(r)) => r,
        other => panic!("{what}: expected a refused write, got {other:?}"),
    }
}

fn ok<T: Debug>(result: Result<Observed<T>, WriteError>, what: &str) -> Observed<T> {
    match result {
        Ok(o) => o,
        Err(e) => panic!("{what}: expected success, got {e:?}"),
    }
}

/// Create then publish: a `Ready` record owned by `claim`.
async fn ready(
    store: &dyn LocationStore,
    key: KeyRef<'_>,
    claim: OwnerClaim,
) -> Observed<AuthorityRecord> {
    let created = ok(store.create(key, claim, next_proposal()).await, "create");
    ok(
        store
            .publish_ready(key, created.value.write_fence(), next_proposal())
            .await,
        "publish_ready",
    )
}

/// `claim` granted on the store's clock at the time the write answered.
fn assert_granted(observed: &Observed<AuthorityRecord>, claim: &OwnerClaim, what: &str) {
    assert_eq!(
        observed.value.owner,
        claim.granted_at(observed.store_time),
        "{what}: the owner is the claim, its lease ending lease_millis after the store's now"
    );
}

fn stale(fence: WriteFence) -> [WriteFence; 2] {
    [
        WriteFence {
            object_generation: fence.object_generation.next(),
            ..fence
        },
        WriteFence {
            authority_owner_generation: fence.authority_owner_generation.next(),
            ..fence
        },
    ]
}

/// Runs `attempt(i)` for `i in 0..CONTENDERS` at once, each on its own
/// thread and current-thread runtime, released together by a barrier.
fn race<'a, T: Send + 'a>(
    attempt: impl Fn(u64) -> WriteFuture<'a, T> + Sync,
) -> Vec<Result<T, WriteError>> {
    let barrier = Barrier::new(CONTENDERS as usize);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..CONTENDERS)
            .map(|i| {
                let (barrier, attempt) = (&barrier, &attempt);
                s.spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_time()
                        .build()
                        .expect("a current-thread runtime starts");
                    barrier.wait();
                    rt.block_on(attempt(i))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a contender thread does not panic"))
            .collect()
    })
}

/// The one success among `results`, and the refusals of the others.
fn one_winner<T: Debug>(results: Vec<Result<T, WriteError>>) -> (usize, T, Vec<WriteRejection>) {
    let mut winner = None;
    let mut losers = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Ok(v) => {
                assert!(
                    winner.is_none(),
                    "two contenders won the same compare-and-set: {winner:?} and {v:?}"
                );
                winner = Some((i, v));
            }
            Err(e) => losers.push(rejection::<()>(Err(e), "a losing contender")),
        }
    }
    let (i, v) = winner.expect("one contender wins");
    (i, v, losers)
}

// ------------------------------------------------------------------ rules

/// `create` on an absent ID: `Creating`, an object generation (never one
/// handed out before: its value is the store's, e.g. a store-wide counter),
/// owner generation 1, a store version, the claim as owner on the store's
/// clock.
pub(crate) async fn create_starts_creating_with_a_new_generation(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("create");
    let key = spot(&id);
    let c = long_claim(1);
    let now = env.clock.exact_now();
    let created = ok(store.create(key, c, next_proposal()).await, "create");
    let r = created.value;
    assert_eq!(r.state, AuthorityState::Creating);
    assert!(r.object_generation > ObjectGeneration::default(), "{r:?}");
    assert_eq!(r.authority_owner_generation, AuthorityOwnerGeneration(1));
    assert!(r.store_version > StoreVersion::default(), "{r:?}");
    assert_granted(&created, &c, "create");
    if let Some(now) = now {
        assert_eq!(
            created.store_time, now,
            "a write answers with the store's now"
        );
    }
    let read = read(store, key).await;
    assert_eq!(read.value, Some(r), "a read returns what create wrote");
    assert_eq!(read.epoch, created.epoch);
}

/// `create` while a record exists — in any state, release not complete — is
/// refused with the existing state and fence, and writes nothing.
pub(crate) async fn create_on_an_existing_record_is_already_exists(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("exists");
    let key = spot(&id);
    let mut current = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "create",
    )
    .value;
    let refuse = async |current: AuthorityRecord| {
        let refused = rejection(
            store.create(key, long_claim(2), next_proposal()).await,
            "second create",
        );
        assert_eq!(
            refused,
            WriteRejection::AlreadyExists {
                state: current.state,
                current: current.write_fence(),
            }
        );
        assert_eq!(
            record(store, key).await,
            current,
            "a refused create writes nothing"
        );
    };
    refuse(current).await;
    current = ok(
        store
            .publish_ready(key, current.write_fence(), next_proposal())
            .await,
        "publish",
    )
    .value;
    refuse(current).await;
    current = ok(
        store
            .begin_release(key, current.write_fence(), next_proposal())
            .await,
        "begin_release",
    )
    .value;
    refuse(current).await;
}

/// A create whose answer was lost (a timeout, or replicas that did not
/// acknowledge it) left a `Creating` record of its claimant: that claimant's
/// next create, under a new proposal, adopts it (same incarnation, a new
/// version) instead of leaving the ID refused for ever. Once Ready, or for
/// another claim (another node, or a restarted one), it is refused.
pub(crate) async fn a_create_by_the_creating_records_own_claim_adopts_it(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("adopt");
    let key = spot(&id);
    let first = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "create",
    )
    .value;
    let again = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "the same claim's create",
    )
    .value;
    assert_eq!(again.object_generation, first.object_generation);
    assert_eq!(again.owner.route, first.owner.route);
    assert!(again.store_version > first.store_version, "{again:?}");
    let restarted = OwnerClaim {
        node_generation: NodeGeneration(first.owner.node_generation.get() + 1),
        ..long_claim(1)
    };
    assert!(matches!(
        rejection(
            store.create(key, restarted, next_proposal()).await,
            "restarted node"
        ),
        WriteRejection::AlreadyExists { .. }
    ));
    let ready = ok(
        store
            .publish_ready(key, again.write_fence(), next_proposal())
            .await,
        "publish",
    )
    .value;
    assert_eq!(
        rejection(
            store.create(key, long_claim(1), next_proposal()).await,
            "on Ready"
        ),
        WriteRejection::AlreadyExists {
            state: AuthorityState::Ready,
            current: ready.write_fence(),
        }
    );
}

/// `publish_ready` is a compare-and-set: a fence naming another incarnation
/// or owner generation is `StaleGeneration`, a record not `Creating` is
/// `WrongState`; only the matching write moves it to `Ready`.
pub(crate) async fn publish_ready_compares_fence_and_state(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("publish");
    let key = spot(&id);
    let created = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "create",
    )
    .value;
    let fence = created.write_fence();
    for bad in stale(fence) {
        assert_eq!(
            rejection(
                store.publish_ready(key, bad, next_proposal()).await,
                "stale publish"
            ),
            WriteRejection::StaleGeneration {
                expected: bad,
                current: fence,
            }
        );
        assert_eq!(
            record(store, key).await,
            created,
            "a refused write changes nothing"
        );
    }

    let published = ok(
        store.publish_ready(key, fence, next_proposal()).await,
        "publish",
    )
    .value;
    assert_eq!(published.state, AuthorityState::Ready);
    assert_eq!(
        published.write_fence(),
        fence,
        "publishing changes no generation"
    );
    assert_eq!(
        published.owner, created.owner,
        "publishing keeps owner and lease"
    );
    assert!(published.store_version > created.store_version);
    assert_eq!(record(store, key).await, published);

    assert_eq!(
        rejection(
            store.publish_ready(key, fence, next_proposal()).await,
            "second publish"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Ready
        }
    );
    assert_eq!(record(store, key).await, published);

    let releasing = ok(
        store.begin_release(key, fence, next_proposal()).await,
        "begin_release",
    )
    .value;
    assert_eq!(
        rejection(
            store.publish_ready(key, fence, next_proposal()).await,
            "publish while releasing"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Releasing
        }
    );
    assert_eq!(record(store, key).await, releasing);
}

/// Every successful write bumps the per-object store version strictly, a
/// refused one leaves it, and a release does not reset it.
pub(crate) async fn every_successful_write_bumps_store_version(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("versions");
    let key = spot(&id);
    let mut last = StoreVersion::default();
    let mut step = async |what: &str, r: Result<Observed<AuthorityRecord>, WriteError>| {
        let r = ok(r, what).value;
        assert!(
            r.store_version > last,
            "{what}: version {:?} not above {last:?}",
            r.store_version
        );
        assert_eq!(record(store, key).await, r, "{what}: a read sees the write");
        last = r.store_version;
        r
    };
    let a = long_claim(1);
    let b = long_claim(2);
    let r = step("create", store.create(key, a, next_proposal()).await).await;
    let r = step(
        "publish",
        store
            .publish_ready(key, r.write_fence(), next_proposal())
            .await,
    )
    .await;
    let r = step(
        "renew",
        store
            .renew_lease(
                key,
                r.write_fence(),
                a.lease_generation,
                LONG_LEASE_MILLIS,
                next_proposal(),
            )
            .await,
    )
    .await;
    rejection(
        store
            .publish_ready(key, r.write_fence(), next_proposal())
            .await,
        "refused publish",
    );
    assert_eq!(
        record(store, key).await.store_version,
        r.store_version,
        "a refused write keeps the version"
    );
    let r = step(
        "transfer",
        store
            .transfer_owner(key, r.write_fence(), b, next_proposal())
            .await,
    )
    .await;
    let r = step(
        "renew by the new owner",
        store
            .renew_lease(
                key,
                r.write_fence(),
                b.lease_generation,
                LONG_LEASE_MILLIS,
                next_proposal(),
            )
            .await,
    )
    .await;
    let r = step(
        "begin_release",
        store
            .begin_release(key, r.write_fence(), next_proposal())
            .await,
    )
    .await;
    ok(
        store
            .complete_release(key, r.write_fence(), next_proposal())
            .await,
        "complete_release",
    );
    let max = last;
    let recreated = ok(store.create(key, a, next_proposal()).await, "re-create").value;
    assert!(
        recreated.store_version > max,
        "re-created at version {:?}, not above {max:?}",
        recreated.store_version
    );
}

/// A relocation commit moves a `Ready` record to the claim and raises its
/// owner generation by exactly one, even back to an earlier owner.
pub(crate) async fn transfer_owner_bumps_owner_generation_by_one(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("transfer");
    let key = spot(&id);
    let mut current = ready(store, key, long_claim(1)).await.value;
    for (step, node) in [2, 3, 1].into_iter().enumerate() {
        let c = long_claim(node);
        let moved = ok(
            store
                .transfer_owner(key, current.write_fence(), c, next_proposal())
                .await,
            "transfer",
        );
        let r = moved.value;
        assert_eq!(
            r.authority_owner_generation,
            current.authority_owner_generation.next(),
            "transfer {step}: owner generation up by exactly one"
        );
        assert_eq!(r.object_generation, current.object_generation);
        assert_eq!(r.state, AuthorityState::Ready);
        assert_ne!(r.owner.route, current.owner.route, "the owner changed");
        assert_granted(&moved, &c, "transfer");
        assert!(r.store_version > current.store_version);
        assert_eq!(record(store, key).await, r);
        current = r;
    }
    assert_eq!(
        current.authority_owner_generation,
        AuthorityOwnerGeneration(4)
    );
}

/// A transfer naming authority that is no longer current — an older owner
/// generation, another incarnation, a record not `Ready` — is refused and
/// changes nothing.
pub(crate) async fn transfer_with_a_stale_fence_changes_nothing(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("stale-transfer");
    let key = spot(&id);
    let first = ready(store, key, long_claim(1)).await.value;
    let second = ok(
        store
            .transfer_owner(key, first.write_fence(), long_claim(2), next_proposal())
            .await,
        "transfer",
    )
    .value;
    let old = first.write_fence();
    let other_incarnation = WriteFence {
        object_generation: second.object_generation.next(),
        ..second.write_fence()
    };
    for bad in [old, other_incarnation] {
        assert_eq!(
            rejection(
                store
                    .transfer_owner(key, bad, long_claim(3), next_proposal())
                    .await,
                "stale transfer"
            ),
            WriteRejection::StaleGeneration {
                expected: bad,
                current: second.write_fence(),
            }
        );
        assert_eq!(
            record(store, key).await,
            second,
            "a refused transfer changes nothing"
        );
    }

    let creating_id = env.id("stale-transfer-creating");
    let creating_key = spot(&creating_id);
    let creating = ok(
        store
            .create(creating_key, long_claim(1), next_proposal())
            .await,
        "create",
    )
    .value;
    assert_eq!(
        rejection(
            store
                .transfer_owner(
                    creating_key,
                    creating.write_fence(),
                    long_claim(2),
                    next_proposal()
                )
                .await,
            "transfer while creating"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Creating
        }
    );
    assert_eq!(record(store, creating_key).await, creating);

    let releasing = ok(
        store
            .begin_release(key, second.write_fence(), next_proposal())
            .await,
        "begin_release",
    )
    .value;
    assert_eq!(
        rejection(
            store
                .transfer_owner(key, releasing.write_fence(), long_claim(3), next_proposal())
                .await,
            "transfer while releasing"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Releasing
        }
    );
    assert_eq!(record(store, key).await, releasing);
}

/// Renewal sets the lease end to the store's now plus `lease_millis`,
/// keeping owner, lease generation and incarnation.
pub(crate) async fn renew_lease_extends_expiry_on_the_store_clock(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("renew");
    let key = spot(&id);
    let c = long_claim(1);
    let published = ready(store, key, c).await;
    let before = published.value;
    env.clock.advance(Duration::from_millis(5_000));
    let now = env.clock.exact_now();
    let lease_millis = LONG_LEASE_MILLIS + 1_234;
    let renewed = ok(
        store
            .renew_lease(
                key,
                before.write_fence(),
                c.lease_generation,
                lease_millis,
                next_proposal(),
            )
            .await,
        "renew",
    );
    let r = renewed.value;
    assert!(
        renewed.store_time.0 >= published.store_time.0 + 5_000,
        "the store clock moved: {:?} then {:?}",
        published.store_time,
        renewed.store_time
    );
    if let Some(now) = now {
        assert_eq!(renewed.store_time, now);
    }
    assert_eq!(
        r.owner.lease.expires_at,
        StoreTime(renewed.store_time.0 + lease_millis),
        "the lease ends lease_millis after the store's now"
    );
    assert!(r.owner.lease.expires_at > before.owner.lease.expires_at);
    assert_eq!(r.owner.lease.generation, c.lease_generation);
    assert_eq!(r.owner.route, before.owner.route);
    assert_eq!(r.owner.node_generation, before.owner.node_generation);
    assert_eq!(r.write_fence(), before.write_fence());
    assert_eq!(r.state, AuthorityState::Ready);
    assert!(r.store_version > before.store_version);
    assert_eq!(record(store, key).await, r);
}

/// Only the lease generation holding the lease may renew it.
pub(crate) async fn renew_lease_by_another_lease_generation_is_refused(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("renew-holder");
    let key = spot(&id);
    let a = claim(1, 5, LONG_LEASE_MILLIS);
    let first = ready(store, key, a).await.value;
    let other = OwnerLeaseGeneration(6);
    assert_eq!(
        rejection(
            store
                .renew_lease(
                    key,
                    first.write_fence(),
                    other,
                    LONG_LEASE_MILLIS,
                    next_proposal()
                )
                .await,
            "renew by a later lease generation"
        ),
        WriteRejection::NotLeaseHolder {
            holder: a.lease_generation,
            claimed: other,
        }
    );
    assert_eq!(
        record(store, key).await,
        first,
        "a refused renewal changes nothing"
    );

    // After a relocation the old owner's lease generation no longer holds it,
    // even when it names the current fence.
    let b = claim(2, 9, LONG_LEASE_MILLIS);
    let moved = ok(
        store
            .transfer_owner(key, first.write_fence(), b, next_proposal())
            .await,
        "transfer",
    )
    .value;
    assert_eq!(
        rejection(
            store
                .renew_lease(
                    key,
                    moved.write_fence(),
                    a.lease_generation,
                    LONG_LEASE_MILLIS,
                    next_proposal()
                )
                .await,
            "renew by the previous owner's lease"
        ),
        WriteRejection::NotLeaseHolder {
            holder: b.lease_generation,
            claimed: a.lease_generation,
        }
    );
    assert_eq!(
        rejection(
            store
                .renew_lease(
                    key,
                    first.write_fence(),
                    a.lease_generation,
                    LONG_LEASE_MILLIS,
                    next_proposal()
                )
                .await,
            "renew naming the old owner generation"
        ),
        WriteRejection::StaleGeneration {
            expected: first.write_fence(),
            current: moved.write_fence(),
        }
    );
    assert_eq!(record(store, key).await, moved);
    ok(
        store
            .renew_lease(
                key,
                moved.write_fence(),
                b.lease_generation,
                LONG_LEASE_MILLIS,
                next_proposal(),
            )
            .await,
        "renew by the holder",
    );
}

/// A lease that has ended on the store's clock cannot be renewed: the owner
/// lost it. Its end instant already counts as ended.
pub(crate) async fn renew_lease_after_expiry_is_refused(store: &dyn LocationStore, env: &StoreEnv) {
    let id = env.id("renew-expired");
    let key = spot(&id);
    let short = env.short_lease_millis;
    let c = claim(1, 1, short);
    let mut current = ready(store, key, c).await.value;
    if env.clock.exact_now().is_some() {
        // One millisecond before the end the lease still holds.
        env.clock.advance(Duration::from_millis(short - 1));
        current = ok(
            store
                .renew_lease(
                    key,
                    current.write_fence(),
                    c.lease_generation,
                    short,
                    next_proposal(),
                )
                .await,
            "renew just before the lease ends",
        )
        .value;
    }
    env.clock.advance(Duration::from_millis(short));
    assert_eq!(
        rejection(
            store
                .renew_lease(
                    key,
                    current.write_fence(),
                    c.lease_generation,
                    short,
                    next_proposal()
                )
                .await,
            "renew after the lease ended"
        ),
        WriteRejection::LeaseExpired
    );
    assert_eq!(
        record(store, key).await,
        current,
        "a refused renewal changes nothing"
    );
}

/// `begin_release` moves a `Creating` or `Ready` record to `Releasing`,
/// fenced like every write; the record stays until release completes.
pub(crate) async fn begin_release_moves_to_releasing(store: &dyn LocationStore, env: &StoreEnv) {
    let id = env.id("release");
    let key = spot(&id);
    let published = ready(store, key, long_claim(1)).await.value;
    for bad in stale(published.write_fence()) {
        assert_eq!(
            rejection(
                store.begin_release(key, bad, next_proposal()).await,
                "stale begin_release"
            ),
            WriteRejection::StaleGeneration {
                expected: bad,
                current: published.write_fence(),
            }
        );
    }
    assert_eq!(record(store, key).await, published);
    let releasing = ok(
        store
            .begin_release(key, published.write_fence(), next_proposal())
            .await,
        "begin_release",
    )
    .value;
    assert_eq!(releasing.state, AuthorityState::Releasing);
    assert_eq!(releasing.write_fence(), published.write_fence());
    assert_eq!(releasing.owner, published.owner);
    assert!(releasing.store_version > published.store_version);
    assert_eq!(record(store, key).await, releasing);
    assert_eq!(
        rejection(
            store
                .begin_release(key, releasing.write_fence(), next_proposal())
                .await,
            "second begin_release"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Releasing
        }
    );
    assert_eq!(record(store, key).await, releasing);

    let creating_id = env.id("release-creating");
    let creating_key = spot(&creating_id);
    let creating = ok(
        store
            .create(creating_key, long_claim(1), next_proposal())
            .await,
        "create",
    )
    .value;
    let released = ok(
        store
            .begin_release(creating_key, creating.write_fence(), next_proposal())
            .await,
        "begin_release while creating",
    )
    .value;
    assert_eq!(released.state, AuthorityState::Releasing);
}

/// `complete_release` removes the record — only from `Releasing`, only with
/// the current fence — and from then on a read finds nothing.
pub(crate) async fn complete_release_removes_only_a_releasing_record(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("complete");
    let key = spot(&id);
    let created = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "create",
    )
    .value;
    assert_eq!(
        rejection(
            store
                .complete_release(key, created.write_fence(), next_proposal())
                .await,
            "complete while creating"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Creating
        }
    );
    assert_eq!(record(store, key).await, created);
    let published = ok(
        store
            .publish_ready(key, created.write_fence(), next_proposal())
            .await,
        "publish",
    )
    .value;
    assert_eq!(
        rejection(
            store
                .complete_release(key, published.write_fence(), next_proposal())
                .await,
            "complete while ready"
        ),
        WriteRejection::WrongState {
            state: AuthorityState::Ready
        }
    );
    assert_eq!(record(store, key).await, published);

    let releasing = ok(
        store
            .begin_release(key, published.write_fence(), next_proposal())
            .await,
        "begin_release",
    )
    .value;
    let fence = releasing.write_fence();
    for bad in stale(fence) {
        assert_eq!(
            rejection(
                store.complete_release(key, bad, next_proposal()).await,
                "stale complete"
            ),
            WriteRejection::StaleGeneration {
                expected: bad,
                current: fence,
            }
        );
        assert_eq!(record(store, key).await, releasing);
    }
    let done = ok(
        store.complete_release(key, fence, next_proposal()).await,
        "complete_release",
    );
    let after = read(store, key).await;
    assert_eq!(after.value, None, "a completed release leaves no record");
    assert!(after.store_time >= done.store_time);

    let c = long_claim(1);
    assert_eq!(
        rejection(
            store.complete_release(key, fence, next_proposal()).await,
            "complete again"
        ),
        WriteRejection::NotFound
    );
    assert_eq!(
        rejection(
            store.begin_release(key, fence, next_proposal()).await,
            "begin after release"
        ),
        WriteRejection::NotFound
    );
    assert_eq!(
        rejection(
            store.publish_ready(key, fence, next_proposal()).await,
            "publish after release"
        ),
        WriteRejection::NotFound
    );
    assert_eq!(
        rejection(
            store.transfer_owner(key, fence, c, next_proposal()).await,
            "transfer after release"
        ),
        WriteRejection::NotFound
    );
    assert_eq!(
        rejection(
            store
                .renew_lease(
                    key,
                    fence,
                    c.lease_generation,
                    LONG_LEASE_MILLIS,
                    next_proposal()
                )
                .await,
            "renew after release"
        ),
        WriteRejection::NotFound
    );
    assert_eq!(read(store, key).await.value, None);
}

/// A new incarnation after a completed release gets a higher object
/// generation and a store version above every earlier one; the old
/// incarnation's fence no longer writes.
pub(crate) async fn recreate_after_release_gets_a_higher_generation(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("recreate");
    let key = spot(&id);
    let mut max = StoreVersion::default();
    let mut old: Option<WriteFence> = None;
    for generation in 1..=3 {
        let created = ok(
            store
                .create(key, long_claim(generation), next_proposal())
                .await,
            "create",
        );
        let r = created.value;
        let before = old.map_or(ObjectGeneration::default(), |o| o.object_generation);
        assert!(
            r.object_generation > before,
            "incarnation {generation}: {:?} not above {before:?}",
            r.object_generation
        );
        assert_eq!(r.authority_owner_generation, AuthorityOwnerGeneration(1));
        assert_eq!(r.state, AuthorityState::Creating);
        assert_granted(&created, &long_claim(generation), "re-create");
        assert!(
            r.store_version > max,
            "incarnation {generation} at version {:?}, not above {max:?}",
            r.store_version
        );
        if let Some(old) = old {
            assert_eq!(
                rejection(
                    store.publish_ready(key, old, next_proposal()).await,
                    "publish by the old incarnation"
                ),
                WriteRejection::StaleGeneration {
                    expected: old,
                    current: r.write_fence(),
                }
            );
        }
        let mut versions = vec![r.store_version];
        let p = ok(
            store
                .publish_ready(key, r.write_fence(), next_proposal())
                .await,
            "publish",
        )
        .value;
        versions.push(p.store_version);
        let t = ok(
            store
                .transfer_owner(
                    key,
                    p.write_fence(),
                    long_claim(10 + generation),
                    next_proposal(),
                )
                .await,
            "transfer",
        )
        .value;
        versions.push(t.store_version);
        let b = ok(
            store
                .begin_release(key, t.write_fence(), next_proposal())
                .await,
            "begin",
        )
        .value;
        versions.push(b.store_version);
        ok(
            store
                .complete_release(key, b.write_fence(), next_proposal())
                .await,
            "complete",
        );
        max = versions.into_iter().max().expect("versions were recorded");
        old = Some(b.write_fence());
    }
}

/// Every answer carries the store's own time and epoch; a read of an absent
/// ID too.
pub(crate) async fn reads_report_store_time_and_epoch(store: &dyn LocationStore, env: &StoreEnv) {
    let id = env.id("time");
    let key = spot(&id);
    let now = env.clock.exact_now();
    let first = read(store, key).await;
    assert_eq!(first.value, None);
    if let Some(now) = now {
        assert_eq!(first.store_time, now, "a read answers with the store's now");
    }
    env.clock.advance(Duration::from_millis(1_500));
    let now = env.clock.exact_now();
    let second = read(store, key).await;
    assert!(
        second.store_time.0 >= first.store_time.0 + 1_500,
        "the store clock moved: {:?} then {:?}",
        first.store_time,
        second.store_time
    );
    if let Some(now) = now {
        assert_eq!(second.store_time, now);
    }
    let created = ok(
        store.create(key, long_claim(1), next_proposal()).await,
        "create",
    );
    assert!(created.store_time >= second.store_time);
    let third = read(store, key).await;
    assert!(third.store_time >= created.store_time);
    assert_eq!(third.value, Some(created.value));
    assert_eq!(first.epoch, second.epoch, "no restart, one epoch");
    assert_eq!(second.epoch, created.epoch);
    assert_eq!(created.epoch, third.epoch);
}

/// Every write but `create` on an ID without a record is `NotFound`, and
/// writes nothing: a later create is still the first incarnation.
pub(crate) async fn writes_to_absent_records_are_not_found(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("absent");
    let key = spot(&id);
    let fence = WriteFence {
        object_generation: ObjectGeneration(1),
        authority_owner_generation: AuthorityOwnerGeneration(1),
    };
    let c = long_claim(1);
    let refusals = [
        (
            "publish_ready",
            store
                .publish_ready(key, fence, next_proposal())
                .await
                .map(drop),
        ),
        (
            "transfer_owner",
            store
                .transfer_owner(key, fence, c, next_proposal())
                .await
                .map(drop),
        ),
        (
            "renew_lease",
            store
                .renew_lease(
                    key,
                    fence,
                    c.lease_generation,
                    LONG_LEASE_MILLIS,
                    next_proposal(),
                )
                .await
                .map(drop),
        ),
        (
            "begin_release",
            store
                .begin_release(key, fence, next_proposal())
                .await
                .map(drop),
        ),
        (
            "complete_release",
            store
                .complete_release(key, fence, next_proposal())
                .await
                .map(drop),
        ),
    ];
    for (what, result) in refusals {
        assert_eq!(rejection(result, what), WriteRejection::NotFound, "{what}");
    }
    assert_eq!(read(store, key).await.value, None);
    let created = ok(store.create(key, c, next_proposal()).await, "create").value;
    assert_eq!(created.state, AuthorityState::Creating);
    assert_eq!(
        created.authority_owner_generation,
        AuthorityOwnerGeneration(1)
    );
}

/// IDs are opaque bytes: separators, braces, case, spaces and non-ASCII are
/// all distinct IDs, and a Spot and an Actor with the same ID are distinct
/// objects.
pub(crate) async fn keys_are_opaque_and_kinds_are_distinct(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let long = "x".repeat(1024);
    let names: [&str; 10] = [
        "room", "Room", "room:1", "room:1:", "room/1", "{room}", "room 1", "방-ê", "*", &long,
    ];
    let ids: Vec<String> = names.iter().map(|n| env.id(n)).collect();
    let mut keys = Vec::new();
    for id in &ids {
        for kind in [ObjectKind::Spot, ObjectKind::Actor] {
            keys.push(KeyRef { kind, id });
        }
    }
    for (node, key) in (1..).zip(&keys) {
        let created = ok(
            store.create(*key, long_claim(node), next_proposal()).await,
            "create",
        )
        .value;
        assert_eq!(
            (created.state, created.authority_owner_generation),
            (AuthorityState::Creating, AuthorityOwnerGeneration(1)),
            "{key:?} is a new object"
        );
    }
    for (node, key) in (1..).zip(&keys) {
        assert_eq!(
            record(store, *key).await.owner.route.node,
            NodeRid(node),
            "{key:?} kept its own record"
        );
    }
    // Releasing the Spot leaves the Actor of the same ID alone.
    let spot_key = keys[0];
    let actor_key = keys[1];
    assert_eq!(actor_key.id, spot_key.id);
    let actor = record(store, actor_key).await;
    let r = ok(
        store
            .begin_release(
                spot_key,
                record(store, spot_key).await.write_fence(),
                next_proposal(),
            )
            .await,
        "begin_release",
    )
    .value;
    ok(
        store
            .complete_release(spot_key, r.write_fence(), next_proposal())
            .await,
        "complete_release",
    );
    assert_eq!(read(store, spot_key).await.value, None);
    assert_eq!(record(store, actor_key).await, actor);
}

/// Contenders creating the same ID at once: exactly one creates it, the
/// others see it exists.
pub(crate) fn concurrent_create_has_exactly_one_winner(store: &dyn LocationStore, env: &StoreEnv) {
    for round in 0..ROUNDS {
        let id = env.id(&format!("race-create-{round}"));
        let key = spot(&id);
        let results = race(|i| store.create(key, long_claim(100 + i), next_proposal()));
        let (i, won, losers) = one_winner(results);
        let r = won.value;
        assert_eq!(r.state, AuthorityState::Creating);
        assert_granted(&won, &long_claim(100 + i as u64), "winning create");
        for refused in losers {
            assert_eq!(
                refused,
                WriteRejection::AlreadyExists {
                    state: AuthorityState::Creating,
                    current: r.write_fence(),
                }
            );
        }
        assert_eq!(block_on(record(store, key)), r);
    }
}

/// Contenders publishing with the same fence: exactly one publishes, the
/// others find the record already `Ready`.
pub(crate) fn concurrent_publish_has_exactly_one_winner(store: &dyn LocationStore, env: &StoreEnv) {
    for round in 0..ROUNDS {
        let id = env.id(&format!("race-publish-{round}"));
        let key = spot(&id);
        let created = ok(
            block_on(store.create(key, long_claim(1), next_proposal())),
            "create",
        )
        .value;
        let fence = created.write_fence();
        let results = race(|_| store.publish_ready(key, fence, next_proposal()));
        let (_, won, losers) = one_winner(results);
        assert_eq!(won.value.state, AuthorityState::Ready);
        for refused in losers {
            assert_eq!(
                refused,
                WriteRejection::WrongState {
                    state: AuthorityState::Ready
                }
            );
        }
        assert_eq!(block_on(record(store, key)), won.value);
    }
}

/// Contenders committing a relocation from the same authority: exactly one
/// takes ownership (owner generation up by one), the others are stale.
pub(crate) fn concurrent_transfer_has_exactly_one_winner(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("race-transfer");
    let key = spot(&id);
    let mut current = block_on(ready(store, key, long_claim(1))).value;
    for round in 0..ROUNDS {
        let fence = current.write_fence();
        let node = |i: u64| 100 * (round + 1) + i;
        let results =
            race(|i| store.transfer_owner(key, fence, long_claim(node(i)), next_proposal()));
        let (i, won, losers) = one_winner(results);
        let r = won.value;
        assert_eq!(
            r.authority_owner_generation,
            current.authority_owner_generation.next(),
            "round {round}: one relocation, one owner generation"
        );
        assert_granted(&won, &long_claim(node(i as u64)), "winning transfer");
        assert_eq!(losers.len() as u64, CONTENDERS - 1);
        for refused in losers {
            assert_eq!(
                refused,
                WriteRejection::StaleGeneration {
                    expected: fence,
                    current: r.write_fence(),
                }
            );
        }
        assert_eq!(block_on(record(store, key)), r);
        current = r;
    }
}

/// A write retried with the proposal of an attempt that was applied (its
/// answer lost to a timeout) gets that attempt's record back: no conflict,
/// nothing written twice. Another proposal with the same stale fence is
/// still refused.
pub(crate) async fn a_write_retried_with_its_proposal_is_recognised_not_repeated(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let id = env.id("replay");
    let key = spot(&id);
    let (p_create, p_publish, p_move, p_renew, p_begin, p_done) = (
        next_proposal(),
        next_proposal(),
        next_proposal(),
        next_proposal(),
        next_proposal(),
        next_proposal(),
    );
    let created = ok(store.create(key, long_claim(1), p_create).await, "create").value;
    assert_eq!(created.last_proposal, p_create);
    let again = ok(
        store.create(key, long_claim(1), p_create).await,
        "create replay",
    )
    .value;
    assert_eq!(
        again, created,
        "create replayed, not refused as AlreadyExists"
    );

    let fence = created.write_fence();
    let published = ok(store.publish_ready(key, fence, p_publish).await, "publish").value;
    let again = ok(
        store.publish_ready(key, fence, p_publish).await,
        "publish replay",
    )
    .value;
    assert_eq!(
        again, published,
        "publish replayed, not refused as WrongState"
    );

    let fence = published.write_fence();
    let moved = ok(
        store
            .transfer_owner(key, fence, long_claim(2), p_move)
            .await,
        "transfer",
    )
    .value;
    let again = ok(
        store
            .transfer_owner(key, fence, long_claim(2), p_move)
            .await,
        "transfer replay",
    )
    .value;
    assert_eq!(
        again, moved,
        "transfer applied once: owner generation moved by one"
    );
    assert_eq!(
        moved.authority_owner_generation,
        AuthorityOwnerGeneration(published.authority_owner_generation.get() + 1)
    );
    assert!(matches!(
        rejection(
            store
                .transfer_owner(key, fence, long_claim(3), next_proposal())
                .await,
            "other proposal"
        ),
        WriteRejection::StaleGeneration { .. }
    ));

    let fence = moved.write_fence();
    let lease = moved.owner.lease.generation;
    let renewed = ok(
        store
            .renew_lease(key, fence, lease, LONG_LEASE_MILLIS, p_renew)
            .await,
        "renew",
    )
    .value;
    let again = ok(
        store
            .renew_lease(key, fence, lease, LONG_LEASE_MILLIS, p_renew)
            .await,
        "renew replay",
    )
    .value;
    assert_eq!(
        again.store_version, renewed.store_version,
        "renewal applied once"
    );

    let releasing = ok(store.begin_release(key, fence, p_begin).await, "begin").value;
    let again = ok(
        store.begin_release(key, fence, p_begin).await,
        "begin replay",
    )
    .value;
    assert_eq!(again, releasing);

    ok(store.complete_release(key, fence, p_done).await, "complete");
    ok(
        store.complete_release(key, fence, p_done).await,
        "complete replay",
    );
    assert_eq!(read(store, key).await.value, None);
    assert_eq!(
        rejection(
            store.complete_release(key, fence, next_proposal()).await,
            "other proposal"
        ),
        WriteRejection::NotFound
    );
}

fn peer(env: &StoreEnv, rid: u64, generation: u64) -> zlink_core::PeerDescriptor {
    let endpoint = zlink_core::Endpoint::new(&env.id("10.0.0.7:7400")).expect("valid endpoint");
    zlink_core::PeerDescriptor::new(
        endpoint,
        NodeRid(rid),
        NodeGeneration(generation),
        "node.mesh",
    )
    .expect("valid descriptor")
}

/// A node publishes its object-peer descriptor; others read all four values
/// back; an endpoint without one reads as absent.
pub(crate) async fn peer_descriptors_are_published_and_read_back(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    let d = peer(env, 7, 1);
    let absent = store.read_descriptor(&d.endpoint).await.expect("answers");
    assert_eq!(absent.value, None);
    let stored = ok(store.put_descriptor(&d).await, "publish").value;
    assert_eq!(stored, d);
    let read = store.read_descriptor(&d.endpoint).await.expect("answers");
    assert_eq!(read.value, Some(d));
}

/// A restarted node publishes a higher lifecycle generation; its previous
/// lifecycle can never overwrite it. Another node may take the endpoint over.
pub(crate) async fn an_older_lifecycle_never_overwrites_a_newer_descriptor(
    store: &dyn LocationStore,
    env: &StoreEnv,
) {
    ok(
        store
            .put_descriptor(&peer(env, 7, 9_007_199_254_740_993))
            .await,
        "publish",
    );
    let refused = rejection(
        store
            .put_descriptor(&peer(env, 7, 9_007_199_254_740_992))
            .await,
        "older",
    );
    assert_eq!(
        refused,
        WriteRejection::StaleDescriptor {
            current: NodeGeneration(9_007_199_254_740_993)
        }
    );
    ok(
        store
            .put_descriptor(&peer(env, 7, 9_007_199_254_740_994))
            .await,
        "newer",
    );
    ok(
        store.put_descriptor(&peer(env, 8, 1)).await,
        "another node takes the endpoint",
    );
    let read = store
        .read_descriptor(&peer(env, 8, 1).endpoint)
        .await
        .expect("answers");
    assert_eq!(read.value, Some(peer(env, 8, 1)));
}
