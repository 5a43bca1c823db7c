//! The native sender: one background thread draining a bounded queue over blocking HTTP.

use super::delivery::{Delivery, ResponseInfo};
use super::{Transport, sdk_client_name};
use crate::options::ClientOptions;
use crate::platform::now_unix_secs;
use crate::protocol::{DiscardReason, Envelope};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle, ThreadId};
use std::time::{Duration, Instant};

/// Upper bound for one HTTP request, so a hung server cannot stall the queue forever.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends envelopes from a background thread; a full queue drops (`queue_overflow`).
pub struct ThreadTransport {
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
    worker_id: Option<ThreadId>,
}

struct Shared {
    state: Mutex<QueueState>,
    /// Signalled when work arrives or shutdown is requested.
    wake: Condvar,
    /// Signalled when the worker finishes a job.
    idle: Condvar,
    delivery: Delivery,
    capacity: usize,
}

#[derive(Default)]
struct QueueState {
    queue: VecDeque<Envelope>,
    busy: bool,
    report_requested: bool,
    shutdown: bool,
}

impl QueueState {
    fn is_drained(&self) -> bool {
        self.queue.is_empty() && !self.busy && !self.report_requested
    }
}

enum Job {
    Send(Envelope),
    SendReport,
}

fn lock(m: &Mutex<QueueState>) -> MutexGuard<'_, QueueState> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ThreadTransport {
    /// Starts the sender thread for `options.dsn`.
    pub fn new(options: &ClientOptions) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
            delivery: Delivery::new(),
            capacity: options.queue_size.max(1),
        });
        let http = HttpSender::new(options);
        let worker_shared = Arc::clone(&shared);
        let worker = thread::Builder::new()
            .name("ingest-sdk-sender".into())
            .spawn(move || worker_shared.run(&http))
            .ok();
        let worker_id = worker.as_ref().map(|h| h.thread().id());
        Self {
            shared,
            worker: Mutex::new(worker),
            worker_id,
        }
    }

    /// Whether the caller is the sender thread itself (which must never wait on itself).
    fn on_worker_thread(&self) -> bool {
        self.worker_id == Some(thread::current().id())
    }
}

impl Transport for ThreadTransport {
    fn send_envelope(&self, envelope: Envelope) {
        let mut state = lock(&self.shared.state);
        if state.shutdown || self.worker_id.is_none() || state.queue.len() >= self.shared.capacity {
            drop(state);
            self.shared
                .delivery
                .record(DiscardReason::QueueOverflow, envelope.items());
            return;
        }
        state.queue.push_back(envelope);
        self.shared.wake.notify_one();
    }

    fn flush(&self, timeout: Duration) -> bool {
        if self.on_worker_thread() || self.worker_id.is_none() {
            return false;
        }
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared.state);
        state.report_requested = true;
        self.shared.wake.notify_one();
        while !state.is_drained() {
            let now = Instant::now();
            if now >= deadline || state.shutdown {
                return false;
            }
            state = self
                .shared
                .idle
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    fn shutdown(&self, timeout: Duration) -> bool {
        let flushed = self.flush(timeout);
        lock(&self.shared.state).shutdown = true;
        self.shared.wake.notify_all();
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // Only wait for the thread if it is idle; a request still in flight is abandoned
        // so that shutdown stays within its time bound.
        if let Some(handle) = worker
            && flushed
            && !self.on_worker_thread()
        {
            let _ = handle.join();
        }
        flushed
    }
}

impl Drop for ThreadTransport {
    fn drop(&mut self) {
        lock(&self.shared.state).shutdown = true;
        self.shared.wake.notify_all();
    }
}

impl Shared {
    fn run(&self, http: &HttpSender) {
        while let Some(job) = self.next_job() {
            let now = now_unix_secs();
            let envelope = match job {
                Job::Send(envelope) => Some(envelope),
                Job::SendReport => self.delivery.take_report_envelope(now),
            };
            if let Some(envelope) = envelope.and_then(|e| self.delivery.prepare(e, now)) {
                self.deliver(http, &envelope);
            }
            lock(&self.state).busy = false;
            self.idle.notify_all();
        }
        // Wake any flush still waiting so it can observe the shutdown.
        self.idle.notify_all();
    }

    /// Blocks until there is work; `None` once shut down with nothing left to do.
    fn next_job(&self) -> Option<Job> {
        let mut state = lock(&self.state);
        loop {
            if let Some(envelope) = state.queue.pop_front() {
                state.busy = true;
                return Some(Job::Send(envelope));
            }
            if state.report_requested {
                state.report_requested = false;
                state.busy = true;
                return Some(Job::SendReport);
            }
            if state.shutdown {
                return None;
            }
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn deliver(&self, http: &HttpSender, envelope: &Envelope) {
        let Ok(body) = envelope.to_bytes() else {
            self.delivery
                .record(DiscardReason::SendError, envelope.items());
            return;
        };
        match http.post(&body) {
            Ok(response) => self
                .delivery
                .on_response(&response, envelope, now_unix_secs()),
            Err(_) => self.delivery.on_network_error(envelope),
        }
    }
}

/// A blocking POST to the envelope endpoint.
struct HttpSender {
    agent: ureq::Agent,
    url: String,
    auth: String,
}

impl HttpSender {
    fn new(options: &ClientOptions) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .user_agent(sdk_client_name())
            .build()
            .into();
        Self {
            agent,
            // Without a DSN every send fails (and is counted); `Client` never builds one then.
            url: options
                .dsn
                .as_ref()
                .map(|d| d.envelope_url())
                .unwrap_or_default(),
            auth: (options.dsn.as_ref())
                .map(|d| d.auth_header(&sdk_client_name()))
                .unwrap_or_default(),
        }
    }

    fn post(&self, body: &[u8]) -> Result<ResponseInfo, ureq::Error> {
        let response = self
            .agent
            .post(&self.url)
            .header("X-Sentry-Auth", &self.auth)
            .header("Content-Type", "application/x-sentry-envelope")
            .send(body)?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let info = ResponseInfo {
            status: response.status().as_u16(),
            rate_limits: header("x-sentry-rate-limits"),
            retry_after: header("retry-after"),
        };
        // Read (a bounded amount of) the body so the connection can be reused.
        let _ = response
            .into_body()
            .with_config()
            .limit(64 * 1024)
            .read_to_vec();
        Ok(info)
    }
}
