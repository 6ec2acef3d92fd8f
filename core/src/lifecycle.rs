//! Why this node's authority writes (create, publish Ready, relocation
//! commit, lease renewal, release; `Runtime` runs them) did not happen.

use crate::error::InputError;
use crate::ids::ObjectKind;
use crate::store::{WriteError, WriteRejection};

/// Why an authority write did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// The ID is not valid.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The store refused the compare-and-set; re-read and decide again.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// This node does not own the object, so it cannot write its authority.
    #[error("this node does not own {kind} {id:?}")]
    NotOwned {
        /// The object's kind.
        kind: ObjectKind,
        /// The object's ID.
        id: String,
    },
}

impl From<WriteRejection> for LifecycleError {
    fn from(r: WriteRejection) -> Self {
        LifecycleError::Write(WriteError::Rejected(r))
    }
}
