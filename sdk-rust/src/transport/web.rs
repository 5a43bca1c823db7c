//! The `web` sender: each envelope goes out through the platform `fetch`, looked up on
//! the JavaScript global object so the same build works in browsers, workers and Node.

use super::delivery::{Delivery, ResponseInfo};
use super::{FlushFuture, Transport, sdk_client_name};
use crate::options::ClientOptions;
use crate::platform::now_unix_secs;
use crate::protocol::{DiscardReason, Envelope};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::{JsFuture, future_to_promise};

thread_local! {
    /// Requests still in flight, by id; wasm is single-threaded, so one list per thread.
    static PENDING: RefCell<BTreeMap<u64, Promise>> = const { RefCell::new(BTreeMap::new()) };
}

/// Sends envelopes with `fetch`; flushing needs [`Transport::flush_async`].
pub struct FetchTransport {
    shared: Arc<Shared>,
}

struct Shared {
    url: String,
    auth: String,
    delivery: Delivery,
    in_flight: AtomicUsize,
    next_id: AtomicU64,
}

impl FetchTransport {
    /// A sender for `options.dsn`.
    pub fn new(options: &ClientOptions) -> Self {
        Self {
            shared: Arc::new(Shared {
                // Without a DSN every send fails (and is counted); `Client` never builds one then.
                url: options
                    .dsn
                    .as_ref()
                    .map(|d| d.envelope_url())
                    .unwrap_or_default(),
                auth: (options.dsn.as_ref())
                    .map(|d| d.auth_header(&sdk_client_name()))
                    .unwrap_or_default(),
                delivery: Delivery::new(),
                in_flight: AtomicUsize::new(0),
                next_id: AtomicU64::new(0),
            }),
        }
    }
}

impl Transport for FetchTransport {
    fn send_envelope(&self, envelope: Envelope) {
        let now = now_unix_secs();
        if let Some(envelope) = self.shared.delivery.prepare(envelope, now) {
            Shared::start(&self.shared, envelope);
        }
    }

    /// Cannot block on this platform: reports whether nothing is in flight.
    fn flush(&self, _timeout: Duration) -> bool {
        self.send_pending_report();
        self.shared.in_flight.load(Ordering::SeqCst) == 0
    }

    fn flush_async(&self, timeout: Duration) -> FlushFuture {
        self.send_pending_report();
        let pending: Array = PENDING.with(|p| p.borrow().values().cloned().collect());
        Box::pin(async move {
            if pending.length() == 0 {
                return true;
            }
            let (timer, cancel) = delay(timeout);
            let all = Promise::all(&pending);
            let winner = JsFuture::from(Promise::race(&Array::of2(&all, &timer))).await;
            cancel();
            matches!(winner, Ok(v) if v.is_array())
        })
    }
}

impl FetchTransport {
    fn send_pending_report(&self) {
        if let Some(report) = self.shared.delivery.take_report_envelope(now_unix_secs()) {
            self.send_envelope(report);
        }
    }
}

impl Shared {
    /// Starts one request and tracks it until its response is handled.
    fn start(shared: &Arc<Self>, envelope: Envelope) {
        let Ok(body) = envelope.to_bytes() else {
            shared
                .delivery
                .record(DiscardReason::SendError, envelope.items());
            return;
        };
        let request = match fetch(&shared.url, &shared.auth, &body) {
            Ok(promise) => promise,
            Err(_) => {
                shared.delivery.on_network_error(&envelope);
                return;
            }
        };
        let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
        shared.in_flight.fetch_add(1, Ordering::SeqCst);
        let task_shared = Arc::clone(shared);
        let done = future_to_promise(async move {
            match JsFuture::from(request).await.and_then(read_response) {
                Ok(info) => task_shared
                    .delivery
                    .on_response(&info, &envelope, now_unix_secs()),
                Err(_) => task_shared.delivery.on_network_error(&envelope),
            }
            task_shared.in_flight.fetch_sub(1, Ordering::SeqCst);
            PENDING.with(|p| p.borrow_mut().remove(&id));
            Ok(JsValue::UNDEFINED)
        });
        PENDING.with(|p| p.borrow_mut().insert(id, done));
    }
}

/// A function property of the JavaScript global object.
fn global_function(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &name.into())
        .ok()?
        .dyn_into()
        .ok()
}

/// Calls `globalThis.fetch(url, {method, headers, body})`.
fn fetch(url: &str, auth: &str, body: &[u8]) -> Result<Promise, JsValue> {
    let global = js_sys::global();
    let fetch = global_function("fetch").ok_or_else(|| JsValue::from_str("no global fetch"))?;
    let headers = Object::new();
    Reflect::set(&headers, &"X-Sentry-Auth".into(), &auth.into())?;
    Reflect::set(
        &headers,
        &"Content-Type".into(),
        &"application/x-sentry-envelope".into(),
    )?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&Uint8Array::from(body));
    fetch.call2(&global, &url.into(), &init)?.dyn_into()
}

fn read_response(value: JsValue) -> Result<ResponseInfo, JsValue> {
    let response: web_sys::Response = value.dyn_into()?;
    let headers = response.headers();
    Ok(ResponseInfo {
        status: response.status(),
        rate_limits: headers.get("x-sentry-rate-limits")?,
        retry_after: headers.get("retry-after")?,
    })
}

/// A promise resolving to `"timeout"` after `duration`, and a function that cancels it
/// (an armed timer would keep Node's event loop alive).
fn delay(duration: Duration) -> (Promise, impl FnOnce()) {
    let global = js_sys::global();
    let handle: Rc<RefCell<JsValue>> = Rc::default();
    let slot = Rc::clone(&handle);
    let millis = duration.as_millis().min(u128::from(u32::MAX)) as f64;
    let promise = Promise::new(&mut |resolve, _reject| {
        let Some(set_timeout) = global_function("setTimeout") else {
            return;
        };
        let bound = resolve.bind1(&JsValue::NULL, &"timeout".into());
        if let Ok(id) = set_timeout.call2(&global, &bound, &millis.into()) {
            *slot.borrow_mut() = id;
        }
    });
    let cancel = move || {
        if let Some(clear) = global_function("clearTimeout") {
            let _ = clear.call1(&js_sys::global(), &handle.borrow());
        }
    };
    (promise, cancel)
}
