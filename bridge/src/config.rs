//! The routing config as hosts give it: thirteen numbers in a fixed order,
//! durations in milliseconds. One conversion with one set of range errors
//! (`Negative`, `OutOfRange`) turns a host's numbers into a validated
//! `RoutingConfig`; one turns a config back into numbers.

use std::time::Duration;

use zlink_core::RoutingConfig;

use crate::error::{Error, ErrorKind, Family, Result};

/// A config field's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds (C field names end in `_ms`).
    Millis,
    /// A plain count or size.
    Count,
}

/// The fields in the fixed order, with their host names (C adds `_ms` to
/// the durations).
pub const FIELDS: [(&str, Unit); 13] = [
    ("route_cache_max_age", Unit::Millis),
    ("message_follow_duration", Unit::Millis),
    ("max_follow_hops", Unit::Count),
    ("session_relocation_seal_timeout", Unit::Millis),
    ("session_bind_timeout", Unit::Millis),
    ("route_cache_capacity", Unit::Count),
    ("owner_lease_duration", Unit::Millis),
    ("store_timeout", Unit::Millis),
    ("store_attempts", Unit::Count),
    ("max_object_id_bytes", Unit::Count),
    ("max_message_bytes", Unit::Count),
    ("relocation_timeout", Unit::Millis),
    ("max_relocation_state_bytes", Unit::Count),
];

/// A config's numbers, in `FIELDS` order.
pub type Values = [u64; 13];

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The numbers of `c`, in `FIELDS` order.
pub fn values(c: &RoutingConfig) -> Values {
    [
        ms(c.route_cache_max_age),
        ms(c.message_follow_duration),
        c.max_follow_hops.into(),
        ms(c.session_relocation_seal_timeout),
        ms(c.session_bind_timeout),
        c.route_cache_capacity as u64,
        ms(c.owner_lease_duration),
        ms(c.store_timeout),
        c.store_attempts.into(),
        c.max_object_id_bytes as u64,
        c.max_message_bytes as u64,
        ms(c.relocation_timeout),
        c.max_relocation_state_bytes as u64,
    ]
}

/// A validated config from a host's numbers (`FIELDS` order; `i128` holds
/// every host integer): `Negative` or `OutOfRange` for a number its field
/// cannot hold, then the config's own rules.
pub fn from_values(v: [i128; 13]) -> Result<RoutingConfig> {
    fn num<T: TryFrom<i128>>(v: &[i128; 13], i: usize) -> Result<T> {
        let (field, unit) = FIELDS[i];
        if v[i] < 0 {
            let unit = if unit == Unit::Millis {
                " milliseconds"
            } else {
                ""
            };
            return Err(Error::new(
                Family::Config,
                ErrorKind::Negative,
                format!("{field} must be >= 0{unit}, got {}", v[i]),
            ));
        }
        T::try_from(v[i]).map_err(|_| {
            Error::new(
                Family::Config,
                ErrorKind::OutOfRange,
                format!("{field} is out of range: {}", v[i]),
            )
        })
    }
    let d = |i| num::<u64>(&v, i).map(Duration::from_millis);
    let config = RoutingConfig {
        route_cache_max_age: d(0)?,
        message_follow_duration: d(1)?,
        max_follow_hops: num(&v, 2)?,
        session_relocation_seal_timeout: d(3)?,
        session_bind_timeout: d(4)?,
        route_cache_capacity: num(&v, 5)?,
        owner_lease_duration: d(6)?,
        store_timeout: d(7)?,
        store_attempts: num(&v, 8)?,
        max_object_id_bytes: num(&v, 9)?,
        max_message_bytes: num(&v, 10)?,
        relocation_timeout: d(11)?,
        max_relocation_state_bytes: num(&v, 12)?,
    };
    config.validate()?;
    Ok(config)
}

/// `Name(field=value, ...)` of a config, for a host's `repr`.
pub fn describe(name: &str, c: &RoutingConfig) -> String {
    let fields: Vec<String> = FIELDS
        .iter()
        .zip(values(c))
        .map(|((field, _), v)| format!("{field}={v}"))
        .collect();
    format!("{name}({})", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_round_trip_and_ranges_are_named() {
        let d = RoutingConfig::default();
        assert_eq!(from_values(values(&d).map(i128::from)), Ok(d));
        let mut v = values(&RoutingConfig::default()).map(i128::from);
        v[2] = 300;
        assert_eq!(
            from_values(v).map_err(|e| e.kind),
            Err(ErrorKind::OutOfRange)
        );
        v[2] = 9;
        assert_eq!(
            from_values(v).map_err(|e| e.kind),
            Err(ErrorKind::FollowHops)
        );
        v[0] = -1;
        let e = from_values(v).expect_err("negative");
        assert_eq!((e.kind, e.family), (ErrorKind::Negative, Family::Config));
    }
}
