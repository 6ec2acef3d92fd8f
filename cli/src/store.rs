//! Opening the Location Store a command names with `--store`.
//!
//! Only Redis, Redis Cluster and Redis Sentinel can be named: the embedded store lives
//! inside one process, so another command cannot reach it. URLs are shown
//! back to the user with any password masked, since commands and their
//! errors end up in terminals, shell history and CI logs.

use std::error::Error;
use std::fmt::{self, Display};

use zlink_core::StoreError;
use zlink_redis::{RedisOptions, RedisStore};

/// Why `--store URL` could not be opened. One line, password masked.
#[derive(Debug)]
pub(crate) struct OpenError {
    shown: String,
    cause: String,
    hint: Option<&'static str>,
}

impl Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot open the Location Store at {}: {}",
            self.shown, self.cause
        )?;
        if let Some(hint) = self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl Error for OpenError {}

/// Connects to the Redis deployment at `url` with every key under `prefix`.
///
/// Blocking, and bounded by the store's connect timeouts: an unreachable
/// server is an error within seconds, never a hang.
pub(crate) fn open_redis(url: &str, prefix: &str) -> Result<RedisStore, OpenError> {
    let options = RedisOptions {
        prefix: prefix.to_owned(),
        ..RedisOptions::default()
    };
    RedisStore::open_with(url, options).map_err(|e| {
        let hint = matches!(e, StoreError::Config(_)).then_some(
            "--store takes redis://HOST:PORT, rediss://HOST:PORT, \
             redis+cluster://HOST:PORT,HOST:PORT or \
             redis+sentinel://HOST:PORT,HOST:PORT/MASTER",
        );
        let shown = masked(url);
        // The core's messages may quote the URL as given: mask it there too,
        // and keep the message on one line for `zlink: error: ...`.
        let cause = e
            .to_string()
            .replace(url, &shown)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        OpenError { shown, cause, hint }
    })
}

/// Whether `url` names a Redis Cluster (by its seed nodes).
pub(crate) fn is_cluster(url: &str) -> bool {
    url.split_once("://")
        .is_some_and(|(scheme, _)| scheme.ends_with("+cluster"))
}

/// `url` with the password of its user info replaced by `***`. Cluster URLs
/// carry one user info for every seed, before the last `@`.
pub(crate) fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((auth, hosts)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    let user = match auth.split_once(':') {
        Some((user, _password)) => format!("{user}:***"),
        // A lone user info is a password to some clients: mask it whole.
        None => "***".to_owned(),
    };
    format!("{scheme}://{user}@{hosts}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked_and_plain_urls_kept() {
        assert_eq!(masked("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        assert_eq!(
            masked("redis://:s3cret@127.0.0.1:6379/2"),
            "redis://:***@127.0.0.1:6379/2"
        );
        assert_eq!(
            masked("rediss+cluster://app:p@ss@h1:1,h2:2"),
            "rediss+cluster://app:***@h1:1,h2:2"
        );
        assert_eq!(masked("redis://token@h:1"), "redis://***@h:1");
        assert_eq!(masked("not a url"), "not a url");
    }

    #[test]
    fn cluster_urls_are_recognised_by_scheme() {
        assert!(is_cluster("redis+cluster://h:1,h:2"));
        assert!(is_cluster("rediss+cluster://h:1"));
        assert!(!is_cluster("redis://h:1"));
        assert!(!is_cluster("memory"));
    }

    #[test]
    fn a_bad_url_is_one_masked_line_with_a_hint() {
        let err = open_redis("http://u:hunter2@h:1", "zlink").expect_err("not a Redis URL");
        let text = err.to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains("redis://HOST:PORT"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
}
