"""What the Python web apps of the conformance suite share: initialising the stock sentry-sdk as
its docs show for a web app, and speaking the protocol of ../web-app.mjs on the standard
streams (one JSON object a line: `listening`, `sent`, `flushed`; `flush` read from stdin).

Each app (../flask/app.py, ../fastapi/app.py, ../django/app.py) calls `start_sdk()` before it
builds its app, logs `loading order <id>` and raises from its `/orders/<id>` route, sets the
user from the `X-Conformance-User` header as an auth layer would, and hands its server's
`serve()` to `run()`."""

import json
import logging
import os
import sys
import threading
import time

import sentry_sdk

log = logging.getLogger("shop")


def say(message):
    """One protocol line on stdout."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _before_send(event, _hint):
    # Only tells the harness which event ids the SDK sends; the event is returned unchanged.
    say({"sent": event["event_id"]})
    return event


def start_sdk():
    """sentry_sdk.init as a web app calls it: the framework integrations are enabled by the SDK
    itself (nothing listed), no performance monitoring, personal data (user, IP, cookies) on."""
    sentry_sdk.init(
        dsn=os.environ["SENTRY_TEST_DSN"],
        release=os.environ.get("CONFORMANCE_RELEASE"),
        environment="test",
        traces_sample_rate=0,
        send_default_pii=True,
        before_send=_before_send,
    )


def load_order(order_id):
    """The route's work: a log line (a breadcrumb), then the error the route does not handle."""
    log.warning("loading order %s", order_id)
    raise LookupError(f"order {order_id} could not be loaded")


class InFlight:
    """Counts requests until the SDK's middleware inside is done with them: a request's session
    is recorded when that middleware returns, which can be after the client read the response,
    so `run` waits for none to be in flight before it flushes."""

    def __init__(self):
        self.count = 0
        self.lock = threading.Lock()

    def _add(self, n):
        with self.lock:
            self.count += n

    def asgi(self, app):
        """The ASGI app wrapped: counted until it returns."""

        async def tracked(scope, receive, send):
            self._add(1)
            try:
                await app(scope, receive, send)
            finally:
                self._add(-1)

        return tracked

    def wsgi(self, app):
        """The WSGI app wrapped: counted until the server closes its response."""

        def tracked(environ, start_response):
            self._add(1)
            try:
                body = app(environ, start_response)
            except BaseException:
                self._add(-1)
                raise
            return _ClosingBody(body, lambda: self._add(-1))

        return tracked

    def wait_idle(self, seconds=10):
        deadline = time.monotonic() + seconds
        while self.count > 0 and time.monotonic() < deadline:
            time.sleep(0.01)


class _ClosingBody:
    """A WSGI response body that calls `done` once the server closed it."""

    def __init__(self, body, done):
        self.body = body
        self.done = done

    def __iter__(self):
        return iter(self.body)

    def close(self):
        try:
            if hasattr(self.body, "close"):
                self.body.close()
        finally:
            self.done()


in_flight = InFlight()


def run(port, serve):
    """Announces `port`, runs `serve()` in a thread, and on `flush` flushes the SDK (events and
    the request-mode session aggregates) once no request is in flight, and exits."""
    threading.Thread(target=serve, daemon=True).start()
    say({"listening": port})
    for line in sys.stdin:
        if line.strip() == "flush":
            break
    in_flight.wait_idle()
    client = sentry_sdk.get_client()
    sentry_sdk.flush(timeout=5)
    say(
        {
            "flushed": client.transport is not None,
            "sdk": {"package": "sentry-sdk", "version": sentry_sdk.VERSION},
        }
    )
    os._exit(0)
