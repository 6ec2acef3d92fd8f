//! Host arguments and their checks, once: an object kind as C's number or
//! Python's name, text as a `str` or as bytes that must be UTF-8, the
//! bounds on inputs read before the core sees them. Every check has its
//! error kind here, whichever language gave the input.

use zlink_core::wire::ReplyErrorKind as CoreReplyErrorKind;
use zlink_core::{InputError, MAX_MESSAGE_BYTES, MAX_OBJECT_ID_BYTES, ObjectKind, StoreError};

use crate::codes::{self, LogLevel, ReplyErrorKind, WriteAcksMode};
use crate::error::{Error, ErrorKind, Family, Result};

/// Longest NUL-terminated text a C caller may pass (mesh name, store URL,
/// endpoint), in bytes.
pub const MAX_TEXT_BYTES: usize = 4096;

/// Longest frame `on_frame` takes: the largest payload plus its headers.
pub const MAX_FRAME_BYTES: usize = MAX_MESSAGE_BYTES + (1 << 20);

/// A host's argument that stands for a `T`.
pub trait Arg<T> {
    /// The value, or the input error naming what is wrong.
    fn get(self) -> Result<T>;
}

impl Arg<ObjectKind> for ObjectKind {
    #[inline]
    fn get(self) -> Result<ObjectKind> {
        Ok(self)
    }
}

impl Arg<ObjectKind> for u32 {
    /// The two codes are matched in line (hosts call this per lookup); the
    /// error is built out of line.
    #[inline]
    fn get(self) -> Result<ObjectKind> {
        const SPOT: u32 = codes::ObjectKind::Spot as u32;
        const ACTOR: u32 = codes::ObjectKind::Actor as u32;
        match self {
            SPOT => Ok(ObjectKind::Spot),
            ACTOR => Ok(ObjectKind::Actor),
            other => Err(unknown_kind(other)),
        }
    }
}

#[cold]
fn unknown_kind(code: u32) -> Error {
    Error::input(
        ErrorKind::UnknownObjectKind,
        format!("object kind {code} is neither SPOT (1) nor ACTOR (2)"),
    )
}

impl Arg<ObjectKind> for &str {
    #[inline]
    fn get(self) -> Result<ObjectKind> {
        match self {
            "spot" => Ok(ObjectKind::Spot),
            "actor" => Ok(ObjectKind::Actor),
            other => Err(InputError::UnknownObjectKind(other.to_owned()).into()),
        }
    }
}

impl Arg<CoreReplyErrorKind> for u32 {
    fn get(self) -> Result<CoreReplyErrorKind> {
        ReplyErrorKind::from_code(self)
            .and_then(ReplyErrorKind::to_core)
            .ok_or_else(|| {
                Error::input(
                    ErrorKind::UnknownErrorKind,
                    format!("error kind {self} is neither HANDLER (1) nor DECODE (2)"),
                )
            })
    }
}

impl Arg<CoreReplyErrorKind> for &str {
    fn get(self) -> Result<CoreReplyErrorKind> {
        crate::decision::reply_error_kind(self).ok_or_else(|| {
            Error::input(
                ErrorKind::UnknownErrorKind,
                format!("error_kind must be \"Handler\" or \"Decode\", got {self:?}"),
            )
        })
    }
}

impl Arg<LogLevel> for u32 {
    fn get(self) -> Result<LogLevel> {
        LogLevel::from_code(self).ok_or_else(|| {
            Error::input(
                ErrorKind::UnknownLogLevel,
                format!("log level {self} is not one of 1 (ERROR) ..= 5 (TRACE)"),
            )
        })
    }
}

/// A Redis store option the store cannot use: the store's `Config` kind,
/// as the core reports its own option checks (a zero timeout, a bad key
/// prefix, more replicas than the deployment has).
pub(crate) fn store_config(why: String) -> Error {
    StoreError::Config(why.into()).into()
}

impl Arg<WriteAcksMode> for WriteAcksMode {
    #[inline]
    fn get(self) -> Result<WriteAcksMode> {
        Ok(self)
    }
}

impl Arg<WriteAcksMode> for u32 {
    fn get(self) -> Result<WriteAcksMode> {
        WriteAcksMode::from_code(self).ok_or_else(|| {
            store_config(format!(
                "write_acks mode {self} is not ALL_REPLICAS (1), REPLICAS (2) or PRIMARY_ONLY (3)"
            ))
        })
    }
}

impl Arg<WriteAcksMode> for &str {
    fn get(self) -> Result<WriteAcksMode> {
        WriteAcksMode::ALL
            .iter()
            .copied()
            .find(|m| m.name() == self)
            .ok_or_else(|| {
                store_config(format!(
                    "write_acks must be \"all_replicas\", \"primary_only\" or a number of \
                     replicas, got {self:?}"
                ))
            })
    }
}

/// Text a host gives: a `str`, or bytes that must be UTF-8.
pub trait Text<'a> {
    /// The text, or `InvalidUtf8` naming `what`.
    fn text(self, what: &str) -> Result<&'a str>;
    /// Its length in bytes.
    fn byte_len(&self) -> usize;
}

impl<'a> Text<'a> for &'a str {
    #[inline]
    fn text(self, _: &str) -> Result<&'a str> {
        Ok(self)
    }
    #[inline]
    fn byte_len(&self) -> usize {
        self.len()
    }
}

impl<'a> Text<'a> for &'a [u8] {
    #[inline]
    fn text(self, what: &str) -> Result<&'a str> {
        std::str::from_utf8(self)
            .map_err(|e| Error::input(ErrorKind::InvalidUtf8, format!("{what}: {e}")))
    }
    #[inline]
    fn byte_len(&self) -> usize {
        self.len()
    }
}

/// An object ID: over the global cap is `ObjectIdTooLong` before its
/// bytes are read; the runtime's own (config) cap is the core's check.
#[inline(always)]
pub fn id<'a>(id: impl Text<'a>) -> Result<&'a str> {
    if id.byte_len() > MAX_OBJECT_ID_BYTES {
        return Err(InputError::ObjectIdTooLong {
            len: id.byte_len(),
            max: MAX_OBJECT_ID_BYTES,
        }
        .into());
    }
    id.text("object id")
}

/// The IDs of a batch, each checked as [`id`] checks one, all before any
/// is used; the error names the first bad one's index (`ids[3]: …`). The
/// host reads each ID its own way (C: a NULL pointer is an error).
pub fn ids<'a, T: Text<'a>>(ids: impl IntoIterator<Item = Result<T>>) -> Result<Vec<&'a str>> {
    let one = |(i, id): (usize, Result<T>)| id.and_then(self::id).map_err(|e| at(i, e));
    ids.into_iter().enumerate().map(one).collect()
}

/// An error about the ID at index `i` of a batch.
pub fn at(i: usize, mut e: Error) -> Error {
    e.message = format!("ids[{i}]: {}", e.message);
    e
}

/// A NUL-terminated text over [`MAX_TEXT_BYTES`].
pub fn text_too_long(what: &str) -> Error {
    Error::input(
        ErrorKind::TextTooLong,
        format!("{what} is over {MAX_TEXT_BYTES} bytes"),
    )
}

/// A required argument the host did not give (C: a NULL pointer).
pub fn missing(what: &str) -> Error {
    Error::input(ErrorKind::NullPointer, format!("{what} is NULL"))
}

/// A number of milliseconds a host gives as a signed integer.
pub fn millis(field: &str, v: i64) -> Result<std::time::Duration> {
    u64::try_from(v)
        .map(std::time::Duration::from_millis)
        .map_err(|_| {
            Error::new(
                Family::Input,
                ErrorKind::Negative,
                format!("{field} must be >= 0 ms, got {v}"),
            )
        })
}

/// A send's or request's options from a host's optional fields: each one
/// not given keeps the core's default (`RequestOptions::default()`), so no
/// binding repeats a default.
pub fn request_options(
    instance_intent: bool,
    deadline_ms: Option<i64>,
    timeout_ms: Option<i64>,
) -> Result<zlink_core::RequestOptions> {
    let mut options = zlink_core::RequestOptions::default();
    options.send.instance_intent = instance_intent;
    if let Some(ms) = deadline_ms {
        options.send.deadline = millis("deadline", ms)?;
    }
    if let Some(ms) = timeout_ms {
        options.timeout = millis("timeout", ms)?;
    }
    Ok(options)
}
