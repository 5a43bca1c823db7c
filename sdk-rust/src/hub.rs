//! Hubs: the process-wide client, and a stack of scopes per thread or per task.
//!
//! Like the stock `sentry` crate, every thread has its own [`Hub`]: tags, the user and
//! breadcrumbs set while handling one request on one thread never reach events captured on
//! another. The thread that first touches the hub (normally the one calling
//! [`init`](crate::init)) uses the process hub; every other thread starts from a copy of the
//! process hub's top scope. An async task carries its own hub with
//! [`HubFutureExt::bind_hub`], because tasks move between threads and share them.

use crate::client::Client;
use crate::protocol::{Breadcrumb, Event, Level, Uuid};
use crate::scope::Scope;
use std::cell::RefCell;
use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock, TryLockError};
use std::task::{Context, Poll};
use std::thread::ThreadId;

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

/// Runs `f` with the current hub's client, if there is one.
pub fn with_client<R>(f: impl FnOnce(&Client) -> R) -> Option<R> {
    Hub::current().client().map(|client| f(&client))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A client and a stack of scopes: what the global capture functions use on this thread.
///
/// ```
/// use ingest_sdk::Hub;
/// use std::sync::Arc;
///
/// // A hub of its own for one request, starting from the current hub's scope.
/// let request_hub = Arc::new(Hub::new_from_top(&Hub::current()));
/// Hub::run(Arc::clone(&request_hub), || {
///     ingest_sdk::set_tag("route", "/checkout");
/// });
/// ```
#[derive(Debug)]
pub struct Hub {
    /// `None` means the process-wide client (the one [`init`](crate::init) binds).
    client: RwLock<Option<Arc<Client>>>,
    /// Never empty; the last scope is the one in use.
    stack: Mutex<Vec<Scope>>,
}

static PROCESS_HUB: OnceLock<(Arc<Hub>, ThreadId)> = OnceLock::new();

thread_local! {
    static THREAD_HUB: RefCell<Option<Arc<Hub>>> = const { RefCell::new(None) };
}

impl Hub {
    /// A hub with its own `client` (or, with `None`, the process-wide client) and `scope`.
    pub fn new(client: Option<Arc<Client>>, scope: Scope) -> Self {
        Self {
            client: RwLock::new(client),
            stack: Mutex::new(vec![scope]),
        }
    }

    /// A hub with `other`'s client and a copy of its current scope.
    pub fn new_from_top(other: &Hub) -> Self {
        let client = other
            .client
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Self::new(client, other.top_scope())
    }

    /// The process hub: the one the first thread to ask uses, and the template of the others.
    pub fn main() -> Arc<Hub> {
        Arc::clone(&Self::process().0)
    }

    fn process() -> &'static (Arc<Hub>, ThreadId) {
        PROCESS_HUB.get_or_init(|| {
            (
                Arc::new(Hub::new(None, Scope::default())),
                std::thread::current().id(),
            )
        })
    }

    /// The hub of this thread, or the one bound with [`Hub::run`] or
    /// [`HubFutureExt::bind_hub`].
    pub fn current() -> Arc<Hub> {
        THREAD_HUB.with(|slot| {
            let mut slot = slot.borrow_mut();
            if let Some(hub) = slot.as_ref() {
                return Arc::clone(hub);
            }
            let (process, thread) = Self::process();
            let hub = if *thread == std::thread::current().id() {
                Arc::clone(process)
            } else {
                Arc::new(Hub::new_from_top(process))
            };
            *slot = Some(Arc::clone(&hub));
            hub
        })
    }

    /// Runs `f` with `hub` as this thread's current hub, restoring the previous one after
    /// (also when `f` panics).
    pub fn run<R>(hub: Arc<Hub>, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Arc<Hub>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                // `try_with`: during thread teardown the slot may already be gone.
                let _ = THREAD_HUB.try_with(|slot| *slot.borrow_mut() = previous);
            }
        }
        let previous = THREAD_HUB.with(|slot| slot.borrow_mut().replace(hub));
        let _restore = Restore(previous);
        f()
    }

    /// This hub's client, else the process-wide one; `None` when the SDK is not initialised
    /// or disabled (then every capture is a no-op).
    pub fn client(&self) -> Option<Arc<Client>> {
        self.client
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .or_else(current_client)
    }

    /// Gives this hub a client of its own (`None`: use the process-wide client again).
    pub fn bind_client(&self, client: Option<Arc<Client>>) {
        *self.client.write().unwrap_or_else(PoisonError::into_inner) = client;
    }

    /// A copy of the scope in use.
    pub fn top_scope(&self) -> Scope {
        lock(&self.stack).last().cloned().unwrap_or_default()
    }

    /// Runs `f` on the scope in use, when a client is bound (otherwise `f` does not run).
    ///
    /// The scope is locked while `f` runs: do not capture events from inside `f`.
    pub fn configure_scope<R: Default>(&self, f: impl FnOnce(&mut Scope) -> R) -> R {
        if self.client().is_none() {
            return R::default();
        }
        let mut stack = lock(&self.stack);
        match stack.last_mut() {
            Some(scope) => f(scope),
            None => R::default(),
        }
    }

    /// Pushes a copy of the scope in use; dropping the guard pops it again.
    pub fn push_scope(self: &Arc<Self>) -> ScopeGuard {
        let mut stack = lock(&self.stack);
        let top = stack.last().cloned().unwrap_or_default();
        stack.push(top);
        ScopeGuard {
            hub: Arc::clone(self),
            depth: stack.len(),
        }
    }

    /// Runs `f` with a temporary scope that `configure` prepared; changes made inside
    /// (by `configure` or by `f`) are gone afterwards.
    pub fn with_scope<R>(
        self: &Arc<Self>,
        configure: impl FnOnce(&mut Scope),
        f: impl FnOnce() -> R,
    ) -> R {
        let _guard = self.push_scope();
        if let Some(scope) = lock(&self.stack).last_mut() {
            configure(scope);
        }
        f()
    }

    /// Records a breadcrumb on the scope in use.
    pub fn add_breadcrumb(&self, breadcrumb: Breadcrumb) {
        let Some(client) = self.client() else { return };
        let max = client.options().max_breadcrumbs;
        if let Some(scope) = lock(&self.stack).last_mut() {
            scope.add_breadcrumb_limited(breadcrumb, max);
        }
    }

    /// Sends `event` with the scope in use; `None` without a client.
    pub fn capture_event(&self, event: Event) -> Option<Uuid> {
        let client = self.client()?;
        let scope = self.top_scope();
        Some(client.capture_event(event, Some(&scope)))
    }

    /// Captures an error and its `source()` chain with the scope in use.
    pub fn capture_error<E: Error + ?Sized>(&self, error: &E) -> Option<Uuid> {
        let client = self.client()?;
        let event = client.event_from_error(error);
        let scope = self.top_scope();
        Some(client.capture_event(event, Some(&scope)))
    }

    /// Captures a plain message at `level` with the scope in use.
    pub fn capture_message(&self, message: &str, level: Level) -> Option<Uuid> {
        let mut event = Event::new();
        event.message = Some(message.to_owned());
        event.level = level;
        self.capture_event(event)
    }

    /// The scope for a crash report: never waits, since the panic may have happened inside
    /// `configure_scope` on this very thread with the stack still locked.
    pub(crate) fn scope_for_crash(&self) -> Option<Scope> {
        match self.stack.try_lock() {
            Ok(stack) => stack.last().cloned(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().last().cloned(),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

/// Pops the scope [`Hub::push_scope`] pushed when dropped.
#[must_use = "the scope is popped as soon as the guard is dropped"]
#[derive(Debug)]
pub struct ScopeGuard {
    hub: Arc<Hub>,
    depth: usize,
}

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        let mut stack = lock(&self.hub.stack);
        // Also pops scopes pushed later and leaked; the bottom scope always stays.
        stack.truncate(self.depth.saturating_sub(1).max(1));
    }
}

/// Binds a hub to a future, so an async task keeps its own scope across `.await`s and
/// threads: every poll runs inside [`Hub::run`].
pub trait HubFutureExt: Future + Sized {
    /// Runs every poll of this future with `hub` as the current hub.
    fn bind_hub(self, hub: Arc<Hub>) -> HubBound<Self> {
        HubBound {
            hub,
            future: Box::pin(self),
        }
    }
}

impl<F: Future> HubFutureExt for F {}

/// A future with its own hub; see [`HubFutureExt::bind_hub`].
#[derive(Debug)]
pub struct HubBound<F> {
    hub: Arc<Hub>,
    // Boxed so the wrapper is `Unpin` without unsafe pin projection.
    future: Pin<Box<F>>,
}

impl<F: Future> Future for HubBound<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        Hub::run(Arc::clone(&this.hub), || this.future.as_mut().poll(cx))
    }
}
