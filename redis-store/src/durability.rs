//! Durable authority writes: how many replicas a write waits for (`WAIT`
//! right after its script, on the same connection), from what the epoch
//! watcher learns of the deployment's replicas.

use std::sync::RwLock;

use super::connection::Replication;
use super::options::WriteAcks;
use zlink_core::store::StoreError;

/// Redis Cluster's slot count.
const SLOTS: u16 = 16384;

/// The replicas the deployment is known to have, as last learned.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Known {
    /// One primary (one server, or Sentinel's): the most replicas it was
    /// seen with, and the hash of its run id (a new primary starts over);
    /// under Sentinel also the replicas the Sentinels list now.
    Primary {
        servers: u64,
        replicas: u32,
        listed: u32,
    },
    /// A Cluster: each primary's slot ranges and its replicas.
    Slots(Vec<SlotRange>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SlotRange {
    first: u16,
    last: u16,
    replicas: u32,
}

/// What a store's authority writes wait for.
#[derive(Debug)]
pub(super) struct Durability {
    acks: WriteAcks,
    /// `WAIT`'s timeout, in ms (more than 0).
    timeout_ms: u64,
    known: RwLock<Known>,
}

impl Durability {
    pub(super) fn new(acks: WriteAcks, timeout: std::time::Duration) -> Self {
        Durability {
            acks,
            timeout_ms: u64::try_from(timeout.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            known: RwLock::new(Known::Primary {
                servers: 0,
                replicas: 0,
                listed: 0,
            }),
        }
    }

    /// Whether any write may wait (so `WAIT` must be allowed).
    pub(super) fn may_wait(&self) -> bool {
        self.acks != WriteAcks::PrimaryOnly
    }

    /// The `WAIT` to send after a write of `redis_key`: (replicas, timeout
    /// in ms), or `None` when the write waits for no replica.
    pub(super) fn wait_for(&self, redis_key: &str) -> Option<(u32, u64)> {
        let wanted = match self.acks {
            WriteAcks::PrimaryOnly => 0,
            WriteAcks::Replicas(n) => n,
            WriteAcks::AllReplicas => match &*self.read() {
                Known::Primary {
                    replicas, listed, ..
                } => *replicas.max(listed),
                Known::Slots(ranges) => {
                    let slot = slot_of(redis_key.as_bytes());
                    ranges
                        .iter()
                        .find(|r| (r.first..=r.last).contains(&slot))
                        .map_or(0, |r| r.replicas)
                }
            },
        };
        (wanted > 0).then_some((wanted, self.timeout_ms))
    }

    /// Learns the replicas from what the deployment said of them, and
    /// from the replicas the Sentinels `listed` as promotable, if any.
    pub(super) fn learn(&self, servers: u64, what: &Replication, listed: Option<u32>) {
        match what {
            Replication::Primary(info) => self.learn_primary(servers, info, listed.unwrap_or(0)),
            Replication::Cluster(nodes) => self.learn_cluster(nodes),
        }
    }

    /// `INFO replication` of the one primary whose run ids hash to
    /// `servers`: a replica it reports is known from then on, until the
    /// primary changes (a replica that disconnects may still be promoted).
    /// Under Sentinel the replicas it lists now count too (not kept as a
    /// high-water mark: a primary that died stays listed as a replica):
    /// right after a failover the new primary reports none connected while
    /// the others are still being pointed at it, and writes must wait for
    /// them.
    fn learn_primary(&self, servers: u64, info: &str, listed: u32) {
        let connected = info_field(info, "connected_slaves").unwrap_or(0);
        let mut known = self.write();
        let seen = match *known {
            Known::Primary {
                servers: seen,
                replicas,
                ..
            } if seen == servers => replicas,
            _ => 0,
        };
        *known = Known::Primary {
            servers,
            replicas: seen.max(connected),
            listed,
        };
    }

    /// `CLUSTER NODES` text: every primary's slots and listed replicas (a
    /// failed one included: it may be promoted once back).
    fn learn_cluster(&self, nodes: &str) {
        *self.write() = Known::Slots(slot_ranges(nodes));
    }

    /// At connect: a fixed replica count the deployment cannot meet is a
    /// configuration error, not a store that fails every write.
    pub(super) fn check(&self) -> Result<(), StoreError> {
        let WriteAcks::Replicas(n) = self.acks else {
            return Ok(());
        };
        let fewest = match &*self.read() {
            Known::Primary {
                replicas, listed, ..
            } => *replicas.max(listed),
            Known::Slots(ranges) => ranges.iter().map(|r| r.replicas).min().unwrap_or(0),
        };
        if n > fewest {
            return Err(StoreError::Config(
                format!(
                    "write_acks asks {n} replicas to acknowledge each write, but a primary of \
                     this deployment has {fewest}"
                )
                .into(),
            ));
        }
        Ok(())
    }

    /// A write's `WAIT` answered `acknowledged` of `wanted`.
    pub(super) fn outcome(acknowledged: i64, wanted: u32) -> Result<(), StoreError> {
        let acknowledged = u32::try_from(acknowledged).unwrap_or(0);
        if acknowledged >= wanted {
            Ok(())
        } else {
            Err(StoreError::NotReplicated {
                acknowledged,
                wanted,
            })
        }
    }

    // A poisoned lock only means a watcher tick panicked mid-update; the
    // value is whole either way (it is replaced, never edited in place).
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Known> {
        self.known.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Known> {
        self.known.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// A numeric `name:value` line of `INFO` text.
fn info_field(info: &str, name: &str) -> Option<u32> {
    info.split(['\r', '\n'])
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.trim().parse().ok())
}

/// Each primary's slot ranges with the number of replicas `CLUSTER NODES`
/// lists for it.
fn slot_ranges(nodes: &str) -> Vec<SlotRange> {
    let lines: Vec<Vec<&str>> = nodes
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() >= 8)
        .collect();
    let replicas_of = |id: &str| {
        let n = lines
            .iter()
            .filter(|f| f[2].split(',').any(|flag| flag == "slave") && f[3] == id)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let mut ranges = Vec::new();
    for f in lines
        .iter()
        .filter(|f| f[2].split(',').any(|g| g == "master"))
    {
        let replicas = replicas_of(f[0]);
        // Slots are `a-b` or `a`; `[...]` entries are migrations: skip.
        for slots in f[8..].iter().filter(|s| !s.starts_with('[')) {
            let (first, last) = slots.split_once('-').unwrap_or((slots, slots));
            if let (Ok(first), Ok(last)) = (first.parse(), last.parse()) {
                ranges.push(SlotRange {
                    first,
                    last,
                    replicas,
                });
            }
        }
    }
    ranges
}

/// The cluster slot of a key: CRC16 (XMODEM) of its hash tag (the text
/// between the first `{` and the next `}`, if not empty), else of the key.
fn slot_of(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    crc16(tagged.unwrap_or(key)) % SLOTS
}

fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn slots_follow_redis_cluster_keyslot() {
        // Values from `CLUSTER KEYSLOT` on Redis 7.
        assert_eq!(slot_of(b"foo"), 12182);
        assert_eq!(slot_of(b"123456789"), 12739);
        assert_eq!(slot_of(b"zlink:{actor:x}"), slot_of(b"actor:x"));
        assert_eq!(
            slot_of(b"a{}b"),
            slot_of(b"a{}b"),
            "an empty tag hashes the whole key"
        );
        assert_ne!(slot_of(b"a{}b"), slot_of(b""));
    }

    #[test]
    fn all_replicas_waits_for_the_slots_primary_replicas_failed_ones_included() {
        let nodes = "\
a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460
b 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922 [5462->-c]
c 127.0.0.1:7002@17002 master - 0 0 3 connected 10923-16383
d 127.0.0.1:7003@17003 slave a 0 0 1 connected
e 127.0.0.1:7004@17004 slave,fail a 0 0 1 disconnected
f 127.0.0.1:7005@17005 slave b 0 0 2 connected
";
        let d = Durability::new(WriteAcks::AllReplicas, Duration::from_millis(500));
        d.learn_cluster(nodes);
        assert_eq!(d.wait_for("k{foo}"), None, "slot 12182 is c's: no replica");
        assert_eq!(d.wait_for("{123456789}x"), None);
        let on_a = (0u32..)
            .map(|i| format!("k{{{i}}}"))
            .find(|k| slot_of(k.as_bytes()) <= 5460)
            .expect("some key is on a");
        assert_eq!(d.wait_for(&on_a), Some((2, 500)));
        let on_b = (0u32..)
            .map(|i| format!("k{{{i}}}"))
            .find(|k| (5461..=10922).contains(&slot_of(k.as_bytes())))
            .expect("some key is on b");
        assert_eq!(d.wait_for(&on_b), Some((1, 500)));
        let fixed = Durability::new(WriteAcks::Replicas(1), Duration::from_millis(500));
        fixed.learn_cluster(nodes);
        assert!(
            matches!(fixed.check(), Err(StoreError::Config(_))),
            "c has none"
        );
    }

    #[test]
    fn a_primary_keeps_the_replicas_it_had_until_it_changes() {
        let d = Durability::new(WriteAcks::AllReplicas, Duration::from_secs(1));
        assert_eq!(d.wait_for("k"), None);
        d.learn_primary(
            1,
            "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n",
            0,
        );
        assert_eq!(d.wait_for("k"), Some((2, 1000)));
        d.learn_primary(1, "connected_slaves:0\r\n", 0);
        assert_eq!(
            d.wait_for("k"),
            Some((2, 1000)),
            "a replica away is still one"
        );
        d.learn_primary(2, "connected_slaves:1\r\n", 0);
        assert_eq!(
            d.wait_for("k"),
            Some((1, 1000)),
            "a new primary starts over"
        );
        d.learn_primary(3, "connected_slaves:0\r\n", 2);
        assert_eq!(
            d.wait_for("k"),
            Some((2, 1000)),
            "the replicas the Sentinels list for a new primary count at once"
        );
        d.learn_primary(3, "connected_slaves:1\r\n", 0);
        assert_eq!(
            d.wait_for("k"),
            Some((1, 1000)),
            "what the Sentinels list is not kept: a dead primary drops out"
        );
        let none = Durability::new(WriteAcks::PrimaryOnly, Duration::from_secs(1));
        none.learn_primary(1, "connected_slaves:2\r\n", 0);
        assert_eq!(none.wait_for("k"), None);
        assert!(!none.may_wait());
    }

    #[test]
    fn fewer_acknowledgements_than_wanted_leave_the_outcome_unknown() {
        assert_eq!(Durability::outcome(2, 2), Ok(()));
        assert_eq!(Durability::outcome(3, 2), Ok(()));
        assert_eq!(
            Durability::outcome(1, 2),
            Err(StoreError::NotReplicated {
                acknowledged: 1,
                wanted: 2
            })
        );
        assert!(matches!(
            Durability::outcome(-1, 1),
            Err(StoreError::NotReplicated { .. })
        ));
    }
}
