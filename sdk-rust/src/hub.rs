//! The process-wide client that the global capture functions use.

use crate::client::Client;
use std::sync::{Arc, PoisonError, RwLock};

static CURRENT: RwLock<Option<Arc<Client>>> = RwLock::new(None);

/// The client bound by [`init`](crate::init), if any.
pub fn current_client() -> Option<Arc<Client>> {
    CURRENT
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Binds `client` as the process-wide client; returns the previous one.
pub fn bind_client(client: Option<Arc<Client>>) -> Option<Arc<Client>> {
    let mut slot = CURRENT.write().unwrap_or_else(PoisonError::into_inner);
    std::mem::replace(&mut *slot, client)
}

/// Unbinds `client` if it is still the bound one.
pub(crate) fn unbind_if_current(client: &Arc<Client>) {
    let mut slot = CURRENT.write().unwrap_or_else(PoisonError::into_inner);
    if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, client)) {
        *slot = None;
    }
}

/// Runs `f` with the bound client, if there is one.
pub fn with_client<R>(f: impl FnOnce(&Client) -> R) -> Option<R> {
    current_client().map(|client| f(&client))
}
