//! The direct send decision as a call: a cache hit decides on the caller's
//! thread, a miss goes to the store on the runtime's threads.

use crate::direct::{DirectSend, SendOptions, check_send, send_direct};
use crate::error::InputError;
use crate::ids::ObjectKind;

use super::Runtime;

impl Runtime {
    /// Decides a Spot/Actor direct call by global ID alone (§2.1): no owner,
    /// generation or reference is taken as a target. A cache hit decides
    /// without the store; a store failure is retried within the deadline.
    pub fn send_direct(
        &self,
        kind: ObjectKind,
        id: &str,
        options: SendOptions,
    ) -> Result<DirectSend, InputError> {
        check_send(kind, options)?;
        let key = self.key(kind, id)?;
        if let Some(route) = self.inner().resolver.lookup_cached(key) {
            return Ok(DirectSend::Submit(route));
        }
        let inner = self.inner().clone();
        let key = key.to_owned();
        Ok(self.block_on(async move {
            let attempts = inner.config.get().store_attempts;
            send_direct(
                &inner.resolver,
                &*inner.clock,
                attempts,
                key.as_ref(),
                options,
            )
            .await
        }))
    }
}
