//! Panic reporting: a panic hook that sends a fatal `panic` event with a stack trace and
//! ends the session as `crashed`, then runs the previously installed hook.

use crate::hub::Hub;
use crate::protocol::{Event, Exception, Frame, Level, Mechanism, Stacktrace};
use std::panic::PanicHookInfo;
use std::sync::Once;

static INSTALL: Once = Once::new();

/// Installs the hook once per process; it reports only while a client is bound.
pub fn install() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            previous(info);
        }));
    });
}

fn report(info: &PanicHookInfo<'_>) {
    let hub = Hub::current();
    let Some(client) = hub.client() else {
        return;
    };
    // The panicking thread's (or task's) own scope: its tags and breadcrumbs.
    let scope = hub.scope_for_crash();
    client.capture_crash(event_from_panic(info), scope.as_ref());
    // The program may be about to abort or exit: get the report out now. The sender
    // thread never waits on itself, and the wait is bounded by the shutdown timeout.
    client.flush_for_crash();
}

/// The panic message: the `&str` or `String` payload, else a placeholder.
fn message(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "Box<dyn Any>".to_owned())
}

/// A fatal event describing the panic.
pub(crate) fn event_from_panic(info: &PanicHookInfo<'_>) -> Event {
    let location_frame = info.location().map(|l| Frame {
        filename: Some(l.file().to_owned()),
        lineno: Some(l.line()),
        colno: Some(l.column()),
        in_app: Some(true),
        ..Frame::default()
    });
    let stacktrace = crate::stacktrace::capture().or_else(|| {
        location_frame.map(|frame| Stacktrace {
            frames: vec![frame],
        })
    });
    let mut event = Event::new();
    event.level = Level::Fatal;
    event.exception = vec![Exception {
        ty: "panic".to_owned(),
        value: Some(message(info)),
        mechanism: Some(Mechanism {
            ty: "panic".to_owned(),
            handled: Some(false),
        }),
        stacktrace,
    }];
    event
}
