//! Bridge errors as Java exceptions: the class is the error's family
//! (`io.zlink.*Exception`), its `kind()` the bridge's kind name. Programmer
//! errors are the JDK's own types, as Java code expects: bad input and
//! invalid configs are `IllegalArgumentException`s, a closed object an
//! `IllegalStateException`, a null argument a `NullPointerException`.
//! A payload over its bound is bad input from every call: the session
//! (`PayloadTooLarge`) and reply-route (`TooLarge`: a reply or its error
//! message) families report it too, and those are `ZlinkInputException`s
//! as well, as from `send` (the kind stays the bridge's).

use std::any::Any;

use jni::errors::{Error as JniError, ErrorPolicy};
use jni::objects::{JString, JThrowable};
use jni::strings::JNIStr;
use jni::{Env, JValue, jni_sig, jni_str};
use zlink_bridge::{Error, ErrorKind, Family};

/// Why a native call failed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The bridge refused the call.
    Bridge(Error),
    /// A JNI call failed (usually a Java exception is already pending).
    Jni(JniError),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Bridge(e)
    }
}

impl From<JniError> for Fail {
    fn from(e: JniError) -> Self {
        match e {
            JniError::NullPtr(what) => Fail::Bridge(zlink_bridge::args::missing(what)),
            e => Fail::Jni(e),
        }
    }
}

/// The error policy of every entry point: throw, return the default.
pub(crate) struct Throw;

impl<T: Default> ErrorPolicy<T, Fail> for Throw {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'u: 'n, 'n>(env: &mut Env<'u>, _: &mut (), fail: Fail) -> jni::errors::Result<T> {
        if !env.exception_check() {
            let e = match fail {
                Fail::Bridge(e) => e,
                Fail::Jni(e) => Error::host(ErrorKind::Panic, format!("JNI call failed: {e}")),
            };
            // If even building the exception fails, a Java exception (an
            // OutOfMemoryError, say) is pending: the caller sees that one.
            let _ = throw(env, &e);
        }
        Ok(T::default())
    }

    fn on_panic<'u: 'n, 'n>(
        env: &mut Env<'u>,
        _: &mut (),
        payload: Box<dyn Any + Send>,
    ) -> jni::errors::Result<T> {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        let e = Error::host(
            ErrorKind::Panic,
            format!("zlink bug (please report): {text}"),
        );
        if !env.exception_check() {
            let _ = throw(env, &e);
        }
        Ok(T::default())
    }
}

/// The Java class of an error.
fn class(e: &Error) -> &'static JNIStr {
    match (e.family, e.kind) {
        (_, ErrorKind::NullPointer) => jni_str!("java/lang/NullPointerException"),
        (Family::Input, _)
        | (Family::Session, ErrorKind::PayloadTooLarge)
        | (Family::ReplyRoute, ErrorKind::TooLarge) => jni_str!("io/zlink/ZlinkInputException"),
        (Family::Config, _) => jni_str!("io/zlink/ZlinkConfigException"),
        (Family::Closed | Family::Forked, _) | (_, ErrorKind::InvalidHandle) => {
            jni_str!("io/zlink/ZlinkClosedException")
        }
        (Family::Store, _) => jni_str!("io/zlink/StoreException"),
        (Family::Lifecycle, _) => jni_str!("io/zlink/LifecycleException"),
        (Family::Wire, _) => jni_str!("io/zlink/WireException"),
        (Family::ReplyRoute, _) => jni_str!("io/zlink/ReplyRouteException"),
        (Family::Session, _) => jni_str!("io/zlink/SessionException"),
        (Family::Relocation, _) => jni_str!("io/zlink/RelocationException"),
        (Family::Host, _) => jni_str!("io/zlink/ZlinkException"),
    }
}

/// Throws `e` as its Java exception. Returns the JNI error that says an
/// exception is now pending.
pub(crate) fn throw(env: &mut Env<'_>, e: &Error) -> jni::errors::Result<()> {
    if e.kind == ErrorKind::NullPointer {
        return env.throw_new(class(e), jni::strings::JNIString::from(e.message.as_str()));
    }
    let message = env.new_string(&e.message)?;
    let kind = env.new_string(e.kind.name())?;
    let refusal = match e.refusal {
        Some(r) => env.new_string(r)?,
        None => JString::null(),
    };
    let made = env.new_object(
        class(e),
        jni_sig!((message: JString, kind: JString, refusal: JString) -> void),
        &[
            JValue::Object(&message),
            JValue::Object(&kind),
            JValue::Object(&refusal),
        ],
    )?;
    let throwable = env.cast_local::<JThrowable<'_>>(made)?;
    env.throw(throwable)
}
