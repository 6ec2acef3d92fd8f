//! The server-side compare-and-set scripts and the decoding of their answers.
//!
//! Each script is the shared prelude plus one body (`lua/*.lua`); the redis
//! crate sends it by EVALSHA and loads it again after NOSCRIPT.

use redis::Script;

use zlink_core::OwnerRoute;
use zlink_core::store::{StoreError, WriteRejection};
use zlink_core::{
    AuthorityOwnerGeneration, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    OwnerLeaseGeneration, ProposalId, StoreVersion,
};
use zlink_core::{AuthorityRecord, AuthorityState, Owner, OwnerLease, StoreTime, WriteFence};
use zlink_core::{Endpoint, PeerDescriptor};

macro_rules! script {
    ($file:literal) => {
        Script::new(concat!(
            include_str!("lua/prelude.lua"),
            "\n",
            include_str!(concat!("lua/", $file))
        ))
    };
}

/// Every script the store runs, hashed once.
pub(super) struct Scripts {
    pub(super) create: Script,
    pub(super) publish_ready: Script,
    pub(super) transfer_owner: Script,
    pub(super) renew_lease: Script,
    pub(super) begin_release: Script,
    pub(super) complete_release: Script,
    pub(super) put_descriptor: Script,
    pub(super) read_descriptor: Script,
}

impl Scripts {
    pub(super) fn new() -> Self {
        Scripts {
            create: script!("create.lua"),
            publish_ready: script!("publish_ready.lua"),
            transfer_owner: script!("transfer_owner.lua"),
            renew_lease: script!("renew_lease.lua"),
            begin_release: script!("begin_release.lua"),
            complete_release: script!("complete_release.lua"),
            put_descriptor: script!("put_descriptor.lua"),
            read_descriptor: script!("read_descriptor.lua"),
        }
    }
}

/// A script's answer, as every script shapes it: a tag then fields.
pub(super) type RawReply = Vec<Option<String>>;

/// A decoded answer.
#[derive(Debug)]
pub(super) enum Reply {
    /// The record after the write (or as read), and the server's now.
    Record(AuthorityRecord, StoreTime),
    /// No record exists (read), at the server's now.
    Absent(StoreTime),
    /// The record was removed (complete release), at the server's now.
    Released(StoreTime),
    /// The compare-and-set was refused.
    Refused(WriteRejection),
    /// A peer descriptor, at the server's now.
    Descriptor(PeerDescriptor, StoreTime),
}

/// What a refusal is reported against: the writer's fence and lease.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Claimed {
    pub(super) fence: Option<WriteFence>,
    pub(super) lease: Option<OwnerLeaseGeneration>,
}

fn bad(what: &str) -> StoreError {
    StoreError::Protocol(format!("unexpected script answer: {what}").into())
}

fn field<'a>(reply: &'a RawReply, i: usize, name: &str) -> Result<&'a str, StoreError> {
    reply
        .get(i)
        .and_then(|v| v.as_deref())
        .ok_or_else(|| bad(&format!("missing {name}")))
}

fn number(reply: &RawReply, i: usize, name: &str) -> Result<u64, StoreError> {
    let text = field(reply, i, name)?;
    text.parse()
        .map_err(|_| bad(&format!("{name} is not a u64: {text:?}")))
}

fn state(text: &str) -> Result<AuthorityState, StoreError> {
    match text {
        "creating" => Ok(AuthorityState::Creating),
        "ready" => Ok(AuthorityState::Ready),
        "releasing" => Ok(AuthorityState::Releasing),
        other => Err(bad(&format!("unknown state {other:?}"))),
    }
}

/// The record's hash fields, as `FIELDS` in the prelude lists them: fields
/// 1..=10 of an `ok` answer, and what a plain read asks for.
pub(super) const FIELDS: [&str; 10] = [
    "st", "og", "aog", "mesh", "rid", "ngen", "lgen", "lexp", "ver", "prop",
];

/// Fields 1..=10 of an `ok` answer, in the order of `FIELDS` in the prelude.
fn record(r: &RawReply) -> Result<AuthorityRecord, StoreError> {
    let mesh = MeshName::new(field(r, 4, "mesh")?).map_err(|e| bad(&e.to_string()))?;
    Ok(AuthorityRecord {
        state: state(field(r, 1, "st")?)?,
        object_generation: ObjectGeneration(number(r, 2, "og")?),
        authority_owner_generation: AuthorityOwnerGeneration(number(r, 3, "aog")?),
        owner: Owner {
            route: OwnerRoute {
                mesh,
                node: NodeRid(number(r, 5, "rid")?),
            },
            node_generation: NodeGeneration(number(r, 6, "ngen")?),
            lease: OwnerLease {
                generation: OwnerLeaseGeneration(number(r, 7, "lgen")?),
                expires_at: StoreTime(number(r, 8, "lexp")?),
            },
        },
        store_version: StoreVersion(number(r, 9, "ver")?),
        last_proposal: ProposalId(number(r, 10, "prop")?),
    })
}

/// Fields 1..=4 of a `desc` answer.
fn descriptor(r: &RawReply) -> Result<PeerDescriptor, StoreError> {
    let endpoint = Endpoint::new(field(r, 1, "endpoint")?).map_err(|e| bad(&e.to_string()))?;
    PeerDescriptor::new(
        endpoint,
        NodeRid(number(r, 2, "rid")?),
        NodeGeneration(number(r, 3, "gen")?),
        field(r, 4, "identity")?,
    )
    .map_err(|e| bad(&e.to_string()))
}

fn fence_at(r: &RawReply, og: usize, aog: usize) -> Result<WriteFence, StoreError> {
    Ok(WriteFence {
        object_generation: ObjectGeneration(number(r, og, "og")?),
        authority_owner_generation: AuthorityOwnerGeneration(number(r, aog, "aog")?),
    })
}

fn refusal(r: &RawReply, claimed: Claimed) -> Result<WriteRejection, StoreError> {
    Ok(match field(r, 1, "code")? {
        "NOTFOUND" => WriteRejection::NotFound,
        "EXISTS" => WriteRejection::AlreadyExists {
            state: state(field(r, 2, "st")?)?,
            current: fence_at(r, 3, 4)?,
        },
        "STALE" => WriteRejection::StaleGeneration {
            expected: claimed.fence.ok_or_else(|| bad("STALE without a fence"))?,
            current: fence_at(r, 2, 3)?,
        },
        "STATE" => WriteRejection::WrongState {
            state: state(field(r, 2, "st")?)?,
        },
        "HOLDER" => WriteRejection::NotLeaseHolder {
            holder: OwnerLeaseGeneration(number(r, 2, "lgen")?),
            claimed: claimed.lease.ok_or_else(|| bad("HOLDER without a lease"))?,
        },
        "EXPIRED" => WriteRejection::LeaseExpired,
        "OLDDESC" => WriteRejection::StaleDescriptor {
            current: NodeGeneration(number(r, 2, "gen")?),
        },
        other => return Err(bad(&format!("unknown refusal {other:?}"))),
    })
}

/// Decodes any script's answer.
pub(super) fn decode(r: &RawReply, claimed: Claimed) -> Result<Reply, StoreError> {
    let now = |i| number(r, i, "now").map(StoreTime);
    match field(r, 0, "tag")? {
        "ok" => Ok(Reply::Record(record(r)?, now(11)?)),
        "none" => Ok(Reply::Absent(now(1)?)),
        "released" => Ok(Reply::Released(now(1)?)),
        "err" => Ok(Reply::Refused(refusal(r, claimed)?)),
        "desc" => Ok(Reply::Descriptor(descriptor(r)?, now(5)?)),
        other => Err(bad(&format!("unknown tag {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_read_asks_for_the_fields_the_scripts_answer_with() {
        let prelude = include_str!("lua/prelude.lua");
        let listed = prelude
            .lines()
            .find(|l| l.starts_with("local FIELDS"))
            .expect("the prelude lists its fields");
        let quoted: Vec<String> = FIELDS.iter().map(|f| format!("'{f}'")).collect();
        assert!(listed.contains(&quoted.join(", ")), "{listed}");
    }

    fn reply(fields: &[Option<&str>]) -> RawReply {
        fields.iter().map(|f| f.map(str::to_owned)).collect()
    }

    #[test]
    fn records_decode_with_exact_64_bit_values() {
        let big = "18446744073709551615";
        let r = reply(&[
            Some("ok"),
            Some("ready"),
            Some("9007199254740993"),
            Some(big),
            Some("mesh"),
            Some("7"),
            Some("2"),
            Some("3"),
            Some("1700000000000"),
            Some("9007199254740992"),
            Some("5"),
            Some("1700000000001"),
        ]);
        let Reply::Record(rec, now) = decode(&r, Claimed::default()).expect("decodes") else {
            panic!("expected a record");
        };
        assert_eq!(
            rec.object_generation,
            ObjectGeneration(9_007_199_254_740_993)
        );
        assert_eq!(
            rec.authority_owner_generation,
            AuthorityOwnerGeneration(u64::MAX)
        );
        assert_eq!(rec.store_version, StoreVersion(9_007_199_254_740_992));
        assert_eq!(now, StoreTime(1_700_000_000_001));
    }

    #[test]
    fn bad_answers_are_protocol_errors_not_panics() {
        for r in [
            reply(&[]),
            reply(&[Some("ok"), Some("ready")]),
            reply(&[Some("what")]),
            reply(&[Some("err"), Some("STALE"), Some("1"), Some("1")]),
            reply(&[
                Some("err"),
                Some("EXISTS"),
                Some("flying"),
                Some("1"),
                Some("1"),
            ]),
            reply(&[Some("none"), Some("-3")]),
        ] {
            assert!(
                matches!(decode(&r, Claimed::default()), Err(StoreError::Protocol(_))),
                "{r:?}"
            );
        }
    }
}
