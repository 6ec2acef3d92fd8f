//! Raising the Python exceptions of `zlink._errors` (a pure-Python module, so
//! `ConfigError` can be both a `ZlinkError` and a `ValueError`).

use std::fmt::Display;

use pyo3::prelude::*;
use zlink_core::store::{WriteError, WriteRejection};
use zlink_core::{ConfigError, InputError, LifecycleError, RelocationError, StoreError};

/// An instance of `zlink._errors.<class>(message, kind)` as a `PyErr`.
pub(crate) fn raise(class: &str, kind: &str, message: impl Display) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("zlink._errors")
            .and_then(|m| m.getattr(class))
            .and_then(|cls| cls.call1((message.to_string(), kind)));
        match made {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    })
}

pub(crate) fn config(e: &ConfigError) -> PyErr {
    let kind = match e {
        ConfigError::CacheOutlivesFollow { .. } => "CacheOutlivesFollow",
        ConfigError::FollowHops(_) => "FollowHops",
        ConfigError::ZeroDuration { .. } => "ZeroDuration",
        ConfigError::ZeroCapacity => "ZeroCapacity",
        ConfigError::ObjectIdCap { .. } => "ObjectIdCap",
        ConfigError::MessageBound { .. } => "MessageBound",
        ConfigError::ZeroStoreAttempts => "ZeroStoreAttempts",
        ConfigError::StateBound { .. } => "StateBound",
    };
    raise("ConfigError", kind, e)
}

pub(crate) fn input(e: &InputError) -> PyErr {
    let kind = match e {
        InputError::EmptyObjectId => "EmptyObjectId",
        InputError::ObjectIdTooLong { .. } => "ObjectIdTooLong",
        InputError::EmptyMeshName => "EmptyMeshName",
        InputError::MeshNameTooLong { .. } => "MeshNameTooLong",
        InputError::UnknownObjectKind(_) => "UnknownObjectKind",
        InputError::InstanceIntentOnActor => "InstanceIntentOnActor",
        InputError::PayloadTooLarge { .. } => "PayloadTooLarge",
        InputError::NotACommittedMove(_) => "NotACommittedMove",
        InputError::NotOwned(_) => "NotOwned",
        InputError::BadPeerField { .. } => "BadPeerField",
        InputError::ZeroDeadline => "ZeroDeadline",
    };
    raise("InputError", kind, e)
}

pub(crate) fn store_kind(e: &StoreError) -> &'static str {
    match e {
        StoreError::Timeout { .. } => "Timeout",
        StoreError::Unreachable(_) => "Unreachable",
        StoreError::Config(_) => "Config",
        StoreError::Protocol(_) => "Protocol",
    }
}

pub(crate) fn store(e: &StoreError) -> PyErr {
    raise("StoreError", store_kind(e), e)
}

pub(crate) fn lifecycle(e: &LifecycleError) -> PyErr {
    let kind = match e {
        // Input mistakes stay InputError: the caller fixes the arguments.
        LifecycleError::Input(InputError::NotOwned(_)) => "NotOwned",
        LifecycleError::Input(InputError::NotACommittedMove(_)) => "NotACommittedMove",
        LifecycleError::Input(i) => return input(i),
        LifecycleError::NotOwned { .. } => "NotOwned",
        LifecycleError::Write(WriteError::Store(_)) => "Store",
        LifecycleError::Write(WriteError::Rejected(r)) => match r {
            WriteRejection::AlreadyExists { .. } => "AlreadyExists",
            WriteRejection::NotFound => "NotFound",
            WriteRejection::StaleGeneration { .. } => "StaleGeneration",
            WriteRejection::WrongState { .. } => "WrongState",
            WriteRejection::NotLeaseHolder { .. } => "NotLeaseHolder",
            WriteRejection::LeaseExpired => "LeaseExpired",
            WriteRejection::StaleDescriptor { .. } => "StaleDescriptor",
        },
    };
    raise("LifecycleError", kind, e)
}

pub(crate) fn forked() -> PyErr {
    raise(
        "ForkedRuntimeError",
        "Forked",
        "this object was created before fork(); create a new one in this process",
    )
}

pub(crate) fn session(e: &zlink_core::SessionError) -> PyErr {
    use zlink_core::SessionError;
    let kind = match e {
        SessionError::UnknownSession(_) => "UnknownSession",
        SessionError::Closing(_) => "Closing",
        SessionError::Sealed { .. } => "Sealed",
        SessionError::NotBound { .. } => "NotBound",
        SessionError::PayloadTooLarge { .. } => "PayloadTooLarge",
    };
    raise("SessionError", kind, e)
}

/// A relocation call refused (nothing changed): a bad ID or saved payload
/// is an `InputError`; everything else a `RelocationError` whose `kind` is
/// the core's variant name and, for `Refused`, whose `refusal` names why.
pub(crate) fn relocation(e: &RelocationError) -> PyErr {
    let kind = match e {
        RelocationError::Input(i) => return input(i),
        RelocationError::NotOwned(_) => "NotOwned",
        RelocationError::TargetIsSelf => "TargetIsSelf",
        RelocationError::AlreadyRelocating(_) => "AlreadyRelocating",
        RelocationError::StateTooLarge { .. } => "StateTooLarge",
        RelocationError::TooManySaved { .. } => "TooManySaved",
        RelocationError::ForeignOperation(_) => "ForeignOperation",
        RelocationError::NotRelocating(_) => "NotRelocating",
        RelocationError::AfterRelayReady => "AfterRelayReady",
        RelocationError::Refused(_) => "Refused",
    };
    let refusal = match e {
        RelocationError::Refused(r) => Some(format!("{r:?}")),
        _ => None,
    };
    Python::attach(|py| {
        let made = py
            .import("zlink._errors")
            .and_then(|m| m.getattr("RelocationError"))
            .and_then(|cls| cls.call1((e.to_string(), kind, refusal)));
        match made {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    })
}
