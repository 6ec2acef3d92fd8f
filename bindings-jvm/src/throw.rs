//! Bridge errors as Java exceptions: the class is the error's family
//! (`io.zlink.*Exception`), its `kind()` the bridge's kind name. Programmer
//! errors are the JDK's own types, as Java code expects: bad input and
//! invalid configs are `IllegalArgumentException`s, a closed object an
//! `IllegalStateException`, a null argument a `NullPointerException`.
//! A payload over its bound is bad input from every call: the session
//! (`PayloadTooLarge`) and reply-route (`TooLarge`: a reply or its error
//! message) families report it too, and those are `ZlinkInputException`s
//! as well, as from `send` (the kind stays the bridge's).
//!
//! The classes are resolved once, by the thread that loads the library
//! (`on_load`): a completion pool thread, which fails the future of an
//! asynchronous call with the same exception, would find them only through
//! the system class loader.

use std::any::Any;
use std::sync::OnceLock;

use jni::errors::{Error as JniError, ErrorPolicy};
use jni::objects::{JClass, JString, JThrowable};
use jni::refs::Global;
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
        let e = panicked(&*payload);
        if !env.exception_check() {
            let _ = throw(env, &e);
        }
        Ok(T::default())
    }
}

/// A panic's payload as the error Java sees: a `ZlinkException` of kind
/// `Panic`.
pub(crate) fn panicked(payload: &(dyn Any + Send)) -> Error {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned());
    Error::host(
        ErrorKind::Panic,
        format!("zlink bug (please report): {text}"),
    )
}

/// Every class `class` names.
const CLASS_NAMES: [&JNIStr; 11] = [
    jni_str!("java/lang/NullPointerException"),
    jni_str!("io/zlink/ZlinkInputException"),
    jni_str!("io/zlink/ZlinkConfigException"),
    jni_str!("io/zlink/ZlinkClosedException"),
    jni_str!("io/zlink/StoreException"),
    jni_str!("io/zlink/LifecycleException"),
    jni_str!("io/zlink/WireException"),
    jni_str!("io/zlink/ReplyRouteException"),
    jni_str!("io/zlink/SessionException"),
    jni_str!("io/zlink/RelocationException"),
    jni_str!("io/zlink/ZlinkException"),
];

/// The classes of `CLASS_NAMES`, resolved by `on_load`, with their names.
static CLASSES: OnceLock<Vec<(&'static JNIStr, Global<JClass<'static>>)>> = OnceLock::new();

/// Resolves the exception classes, on the thread that loads the library.
pub(crate) fn on_load(env: &mut Env<'_>) -> jni::errors::Result<()> {
    let mut classes = Vec::with_capacity(CLASS_NAMES.len());
    for name in CLASS_NAMES {
        let class = env.find_class(name)?;
        classes.push((name, env.new_global_ref(&class)?));
    }
    let _ = CLASSES.set(classes);
    Ok(())
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

/// `e` as its Java exception, not thrown: on any thread attached to the
/// JVM (a completion pool thread fails a future with it).
pub(crate) fn exception<'l>(env: &mut Env<'l>, e: &Error) -> jni::errors::Result<JThrowable<'l>> {
    let name = class(e);
    let (_, class) = CLASSES
        .get()
        .and_then(|all| all.iter().find(|(n, _)| *n == name))
        .ok_or(JniError::NullPtr(
            "an exception class (resolved by JNI_OnLoad)",
        ))?;
    let message = env.new_string(&e.message)?;
    let made = if e.kind == ErrorKind::NullPointer {
        env.new_object(
            class,
            jni_sig!((message: JString) -> void),
            &[JValue::Object(&message)],
        )?
    } else {
        let kind = env.new_string(e.kind.name())?;
        let refusal = match e.refusal {
            Some(r) => env.new_string(r)?,
            None => JString::null(),
        };
        env.new_object(
            class,
            jni_sig!((message: JString, kind: JString, refusal: JString) -> void),
            &[
                JValue::Object(&message),
                JValue::Object(&kind),
                JValue::Object(&refusal),
            ],
        )?
    };
    env.cast_local::<JThrowable<'_>>(made)
}

/// Throws `e` as its Java exception. Returns the JNI error that says an
/// exception is now pending.
pub(crate) fn throw(env: &mut Env<'_>, e: &Error) -> jni::errors::Result<()> {
    let throwable = exception(env, e)?;
    env.throw(throwable)
}
