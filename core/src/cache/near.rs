//! What a host's near cache needs to answer a hit without calling in.
//!
//! A managed host (the JVM, Node) pays more to cross into the library than
//! the core pays for the hit itself, so it keeps the routes it was given in
//! its own map. The core stays the only source of truth: every key falls
//! in one of [`NEAR_SHARDS`] shards, and each shard has a change epoch, a
//! seqlock's sequence: a writer makes it odd before it removes or replaces
//! an entry of that shard (an invalidation, an eviction, a newer route)
//! and even again after. A near entry remembers its shard's epoch from
//! before the core read it (an odd one is not kept: a change was under
//! way), and is served only while that epoch has not moved and its expiry
//! has not passed: one load of memory the host shares with the core, and a
//! clock reading. So a near entry is never served once the core would
//! refuse it: the change that makes the core refuse starts by moving the
//! epoch.
//!
//! Moving entries to another array (growth, rebuilds) changes no answer,
//! so it bumps nothing; dropping expired entries needs no bump either, as
//! the near entry expires at the same instant. IDs too long for the table
//! are not offered to near caches.

use std::sync::atomic::{AtomicU64, Ordering};

use super::slot::SlotKey;
use super::table::Table;
use crate::clock::MonoTime;
use crate::route::ReadyRoute;

/// Change epochs per table: a power of two, so a shard is a mask of the
/// key's hash. 32 KiB, shared with the host.
pub const NEAR_SHARDS: usize = 4096;

/// A cache hit as a near cache keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NearHit {
    /// The route, as a hit of the core answers it.
    pub route: ReadyRoute,
    /// When the core stops serving it (on the runtime's clock, coarse
    /// reading: [`Clock::now_coarse`](crate::Clock::now_coarse)).
    pub expires_at: MonoTime,
    /// The key's shard: its epoch is word `shard` of the shared epochs.
    pub shard: u32,
    /// That epoch, read before the entry was. Odd: a change of the shard
    /// was under way; serve this hit but do not keep it.
    pub epoch: u64,
}

/// The change epochs of one table.
pub(super) struct Epochs(Box<[AtomicU64]>);

impl Epochs {
    pub(super) fn new() -> Epochs {
        Epochs((0..NEAR_SHARDS).map(|_| AtomicU64::new(0)).collect())
    }

    /// Changes an entry of `shard` by `write`: the epoch odd before it, even
    /// after (writers hold the table's lock, so changes of a shard never
    /// overlap). SeqCst: the slot's writes fall between the two.
    pub(super) fn change<T>(&self, shard: usize, write: impl FnOnce() -> T) -> T {
        self.0[shard].fetch_add(1, Ordering::SeqCst);
        let done = write();
        self.0[shard].fetch_add(1, Ordering::SeqCst);
        done
    }

    fn load(&self, shard: usize) -> u64 {
        self.0[shard].load(Ordering::SeqCst)
    }

    /// The epochs, for the host to read in place.
    pub(super) fn words(&self) -> &[AtomicU64] {
        &self.0
    }
}

impl Table {
    /// The shard of `key`: bits of its hash the probe does not start from.
    pub(super) fn shard(&self, key: &SlotKey) -> usize {
        // Bits apart from the tag's (the lowest seven) and the group's (the
        // highest).
        (self.hash(key).0 >> 8) as usize & (NEAR_SHARDS - 1)
    }

    /// The route of `key` live at `now`, with what a near cache needs to
    /// serve it later without asking again.
    pub(crate) fn near_get(&self, key: &SlotKey, now: MonoTime) -> Option<NearHit> {
        let shard = self.shard(key);
        // Before the entry: a change after this load moves the epoch past
        // what the near entry keeps, even if the read saw the old entry.
        let epoch = self.epochs.load(shard);
        let entry = self.probe(self.current(), key, Ordering::Acquire, |slot, _, _| {
            self.read_entry_if(slot, key, now)
        })?;
        Some(NearHit {
            route: entry.route,
            expires_at: entry.expires_at,
            shard: shard as u32,
            epoch,
        })
    }

    /// The change epochs (see the module doc).
    pub(crate) fn near_epochs(&self) -> &[AtomicU64] {
        self.epochs.words()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::cache::table::testing::{entry_in, key};

    const KEYS: u64 = 512;

    /// A reader's near cache: served while the shard's epoch holds and the
    /// clock has not reached the expiry.
    struct Near<'t> {
        table: &'t Table,
        kept: HashMap<u64, NearHit>,
    }

    impl Near<'_> {
        fn get(&mut self, i: u64, now: MonoTime) -> Option<(ReadyRoute, bool)> {
            if let Some(n) = self.kept.get(&i) {
                let epoch = self.table.near_epochs()[n.shard as usize].load(Ordering::SeqCst);
                if epoch == n.epoch && now < n.expires_at {
                    return Some((n.route, true));
                }
            }
            let hit = self.table.near_get(&key(&format!("k{i}")), now)?;
            if hit.epoch & 1 == 0 {
                self.kept.insert(i, hit);
            }
            Some((hit.route, false))
        }
    }

    #[test]
    fn a_near_entry_is_never_served_once_the_core_changed_its_route() {
        // One writer replaces, removes, evicts (512 keys in a table of
        // 256) and lets routes expire, while two readers serve from their
        // near caches. `retired[i]` is the highest version of key i the core
        // no longer serves; a reader that read it before serving version v
        // and still served v <= it served a stale route.
        let t = Arc::new(Table::new(256));
        let retired: Arc<Vec<AtomicU64>> = Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
        let clock = Arc::new(AtomicU64::new(1));
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2u64)
            .map(|r| {
                let (t, retired, clock, stop) =
                    (t.clone(), retired.clone(), clock.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut near = Near {
                        table: &t,
                        kept: HashMap::new(),
                    };
                    let (mut served, mut stale, mut x) = (0u64, 0u64, r + 1);
                    while !stop.load(Ordering::Relaxed) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let i = x % KEYS;
                        let gone = retired[i as usize].load(Ordering::SeqCst);
                        let now = MonoTime(clock.load(Ordering::SeqCst));
                        if let Some((route, true)) = near.get(i, now) {
                            served += 1;
                            stale += u64::from(route.fence.store_version.0 <= gone);
                        }
                    }
                    (served, stale)
                })
            })
            .collect();
        let mut versions = vec![0u64; KEYS as usize];
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut n = 0u64;
        while Instant::now() < deadline {
            n += 1;
            let i = (n * 7919) % KEYS;
            let id = format!("k{i}");
            let now = clock.fetch_add(1, Ordering::SeqCst) + 1;
            let old = versions[i as usize];
            if n.is_multiple_of(5) && old > 0 {
                // An invalidation: the route goes.
                if t.remove_if(&key(&id), |_| true).is_some() {
                    retired[i as usize].store(old, Ordering::SeqCst);
                }
                continue;
            }
            let v = old + 1;
            let expires = now + if n.is_multiple_of(3) { 5 } else { 1_000 };
            let e = entry_in("m", i, v, expires);
            if t.insert(&key(&id), e, MonoTime(now), |_| false).0 {
                versions[i as usize] = v;
                retired[i as usize].store(old, Ordering::SeqCst);
            }
        }
        stop.store(true, Ordering::Relaxed);
        let (served, stale) = readers
            .into_iter()
            .map(|r| r.join().expect("a reader"))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        assert_eq!(
            stale, 0,
            "stale routes served ({served} served from near caches)"
        );
        assert!(served > 1_000, "the near caches served ({served})");
    }
}
