//! Hubs keep concurrent work apart: two threads and two async tasks set different tags,
//! users and breadcrumbs, and each event carries only its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Recorder;
use ingest_sdk::protocol::{Event, Item};
use ingest_sdk::transport::Transport;
use ingest_sdk::{Breadcrumb, ClientOptions, Hub, HubFutureExt, User};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, Waker};

/// Returns `Pending` once, so two tasks interleave on one thread.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// What each unit of work does: set its own scope, wait for the other, capture.
fn tag_and_user(name: &str) {
    ingest_sdk::set_tag("worker", name);
    ingest_sdk::set_user(Some({
        let mut user = User::default();
        user.id = Some(name.to_owned());
        user
    }));
    ingest_sdk::add_breadcrumb(Breadcrumb::new(format!("{name} started")));
}

fn events(recorder: &Recorder) -> Vec<Event> {
    recorder
        .envelopes()
        .into_iter()
        .flat_map(|e| e.items().to_vec())
        .filter_map(|i| match i {
            Item::Event(e) => Some(*e),
            _ => None,
        })
        .collect()
}

/// The event with `message`, and its worker tag, user id and breadcrumb texts.
fn summary(events: &[Event], message: &str) -> (String, String, Vec<String>) {
    let event = events
        .iter()
        .find(|e| e.message.as_deref() == Some(message))
        .unwrap_or_else(|| panic!("no event {message:?}"));
    assert_eq!(event.tags.len(), 2, "{message}: {:?}", event.tags);
    assert_eq!(
        event.tags["app"], "shop",
        "the tag set before the split is shared"
    );
    let crumbs = event
        .breadcrumbs
        .iter()
        .filter_map(|b| b.message.clone())
        .collect();
    (
        event.tags["worker"].clone(),
        event.user.as_ref().and_then(|u| u.id.clone()).unwrap(),
        crumbs,
    )
}

fn own(name: &str) -> (String, String, Vec<String>) {
    (
        name.to_owned(),
        name.to_owned(),
        vec![format!("{name} started")],
    )
}

#[test]
fn threads_and_tasks_keep_their_own_scope() {
    let recorder = Recorder::default();
    let transport = recorder.clone();
    let options = ClientOptions::new("http://abc123@127.0.0.1:9/42")
        .unwrap()
        .session_tracking(false)
        .panic_reporting(false)
        .transport(move |_: &ClientOptions| Arc::new(transport.clone()) as Arc<dyn Transport>);
    let guard = ingest_sdk::init(options);
    ingest_sdk::set_tag("app", "shop");

    // Two threads: both set their scope before either captures.
    let barrier = Arc::new(Barrier::new(2));
    let threads: Vec<_> = ["thread-a", "thread-b"]
        .into_iter()
        .map(|name| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                tag_and_user(name);
                barrier.wait();
                ingest_sdk::capture_message(name, ingest_sdk::Level::Error).unwrap();
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }

    // Two tasks on this one thread, polled in turns: each sets its scope, yields, captures.
    let task = |name: &'static str| {
        let hub = Arc::new(Hub::new_from_top(&Hub::current()));
        Box::pin(
            async move {
                tag_and_user(name);
                YieldOnce(false).await;
                ingest_sdk::capture_message(name, ingest_sdk::Level::Error).unwrap();
            }
            .bind_hub(hub),
        )
    };
    let mut tasks = [task("task-a"), task("task-b")];
    let mut done = [false, false];
    let mut cx = Context::from_waker(Waker::noop());
    while done.contains(&false) {
        for (task, done) in tasks.iter_mut().zip(done.iter_mut()) {
            if !*done {
                *done = task.as_mut().poll(&mut cx).is_ready();
            }
        }
    }

    // The main thread's own scope saw none of it.
    ingest_sdk::capture_message("main", ingest_sdk::Level::Error).unwrap();
    drop(guard);

    let events = events(&recorder);
    assert_eq!(events.len(), 5);
    for name in ["thread-a", "thread-b", "task-a", "task-b"] {
        assert_eq!(summary(&events, name), own(name), "{name}");
    }
    let main = events
        .iter()
        .find(|e| e.message.as_deref() == Some("main"))
        .unwrap();
    assert_eq!(main.tags.keys().collect::<Vec<_>>(), ["app"]);
    assert!(main.user.is_none() && main.breadcrumbs.is_empty());
}

#[test]
fn with_scope_and_push_scope_are_undone_afterwards() {
    let recorder = Recorder::default();
    let transport = recorder.clone();
    let options = ClientOptions::new("http://abc123@127.0.0.1:9/42")
        .unwrap()
        .transport(move |_: &ClientOptions| Arc::new(transport.clone()) as Arc<dyn Transport>);
    // A hub with its own client: independent of the process-wide one the other test binds.
    let client = Arc::new(ingest_sdk::Client::new(options));
    let hub = Arc::new(Hub::new(Some(client), ingest_sdk::Scope::default()));
    Hub::run(Arc::clone(&hub), || {
        ingest_sdk::with_scope(
            |scope| scope.set_tag("inner", "yes"),
            || ingest_sdk::capture_message("inside", ingest_sdk::Level::Info),
        );
        {
            let _guard = ingest_sdk::push_scope();
            ingest_sdk::set_tag("pushed", "yes");
            ingest_sdk::capture_message("pushed", ingest_sdk::Level::Info);
        }
        ingest_sdk::capture_message("after", ingest_sdk::Level::Info);
    });
    let events = events(&recorder);
    let tags = |message: &str| {
        let event = events
            .iter()
            .find(|e| e.message.as_deref() == Some(message))
            .unwrap();
        event.tags.keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(tags("inside"), ["inner"]);
    assert_eq!(tags("pushed"), ["pushed"]);
    assert!(tags("after").is_empty());
}
