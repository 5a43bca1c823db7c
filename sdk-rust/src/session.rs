//! Client-side state of the release-health session (one per `init`).

use crate::protocol::{SessionAttributes, SessionStatus, SessionUpdate, Timestamp, Uuid};

/// A running session.
#[derive(Debug)]
pub(crate) struct Session {
    sid: Uuid,
    started: Timestamp,
    errors: u64,
    status: SessionStatus,
    init_sent: bool,
    attrs: SessionAttributes,
}

impl Session {
    /// Starts a session now, if there is a release to attribute it to.
    pub(crate) fn start(release: Option<&str>, environment: Option<&str>) -> Option<Self> {
        Some(Self {
            sid: Uuid::new_v4(),
            started: Timestamp::now(),
            errors: 0,
            status: SessionStatus::Ok,
            init_sent: false,
            attrs: SessionAttributes {
                release: release?.to_owned(),
                environment: environment.map(str::to_owned),
            },
        })
    }

    /// Whether the session has ended.
    pub(crate) fn is_ended(&self) -> bool {
        self.status.is_terminal()
    }

    /// Counts an error (or a crash, which also ends the session). Returns the update to
    /// send with the event: the first update of the session, or the crash.
    pub(crate) fn record_error(&mut self, crashed: bool) -> Option<SessionUpdate> {
        if self.is_ended() {
            return None;
        }
        self.errors += 1;
        if crashed {
            self.status = SessionStatus::Crashed;
            return Some(self.update());
        }
        (!self.init_sent).then(|| self.update())
    }

    /// Ends the session with `status`; the final update, unless it had already ended.
    pub(crate) fn end(&mut self, status: SessionStatus) -> Option<SessionUpdate> {
        if self.is_ended() {
            return None;
        }
        self.status = status;
        Some(self.update())
    }

    fn update(&mut self) -> SessionUpdate {
        let now = Timestamp::now();
        let init = !self.init_sent;
        self.init_sent = true;
        let duration = self
            .is_ended()
            .then(|| (now.as_unix_secs() - self.started.as_unix_secs()).max(0.0));
        SessionUpdate {
            sid: self.sid,
            init,
            started: self.started,
            timestamp: now,
            status: self.status,
            errors: self.errors,
            duration,
            attrs: self.attrs.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_a_release() {
        assert!(Session::start(None, Some("prod")).is_none());
    }

    #[test]
    fn first_error_sends_init_then_exit_carries_the_count() {
        let mut s = Session::start(Some("r@1"), None).unwrap();
        let first = s.record_error(false).unwrap();
        assert!(first.init);
        assert_eq!(
            (first.status, first.errors, first.duration),
            (SessionStatus::Ok, 1, None)
        );
        assert!(s.record_error(false).is_none());
        let last = s.end(SessionStatus::Exited).unwrap();
        assert!(!last.init);
        assert_eq!((last.status, last.errors), (SessionStatus::Exited, 2));
        assert!(last.duration.is_some());
        assert_eq!(first.sid, last.sid);
        assert!(s.end(SessionStatus::Exited).is_none());
    }

    #[test]
    fn crash_ends_the_session() {
        let mut s = Session::start(Some("r@1"), Some("test")).unwrap();
        let crash = s.record_error(true).unwrap();
        assert!(crash.init);
        assert_eq!((crash.status, crash.errors), (SessionStatus::Crashed, 1));
        assert!(s.record_error(false).is_none());
        assert!(s.end(SessionStatus::Exited).is_none());
    }

    #[test]
    fn quiet_session_exits_with_init() {
        let mut s = Session::start(Some("r@1"), None).unwrap();
        let only = s.end(SessionStatus::Exited).unwrap();
        assert!(only.init);
        assert_eq!(only.errors, 0);
    }
}
