"""Conformance driver for release health with the stock Python SDK (sentry-sdk 2.x and 1.x), unmodified.

    SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \\
        conformance/.venv/bin/python conformance/drivers/python/sessions.py <scenario> --release <r>

Scenarios:
  wsgi    a WSGI app behind the SDK's own WSGI middleware (what Flask, Django & co. build on),
          called three times through wsgiref; one request raises: the SDK aggregates the
          request sessions (2 exited, 1 crashed) into one `sessions` item on flush
  manual  start_session / end_session around a handled exception (one errored session)
  clean   start_session / end_session with nothing going wrong (one exited session)
Prints one JSON line {"sdk":{"package","version"},"scenario","release"}.
"""

import argparse
import sys
from wsgiref.util import setup_testing_defaults

import sentry_sdk
from sentry_sdk.integrations.wsgi import SentryWsgiMiddleware

from common import end_session, flush_and_report, start_session, start_sdk


def app(environ, start_response):
    if environ["PATH_INFO"] == "/boom":
        raise RuntimeError("conformance request crashed")
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]


def wsgi():
    wrapped = SentryWsgiMiddleware(app)
    for path in ("/a", "/boom", "/b"):
        environ = {"PATH_INFO": path}
        setup_testing_defaults(environ)
        try:
            body = wrapped(environ, lambda status, headers, exc_info=None: None)
            b"".join(body)
        except RuntimeError:
            pass  # the middleware reported it (unhandled) and re-raised, as under a server


def manual():
    start_session()
    try:
        raise ValueError("conformance handled error")
    except ValueError as error:
        sentry_sdk.capture_exception(error)
    end_session()


def clean():
    start_session()
    end_session()


SCENARIOS = {"wsgi": wsgi, "manual": manual, "clean": clean}


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--release", required=True)
    parser.add_argument("--user")
    args = parser.parse_args(argv)
    start_sdk(args.release)
    if args.user:
        sentry_sdk.set_user({"id": args.user})
    SCENARIOS[args.scenario]()
    flush_and_report(args.scenario, release=args.release)


if __name__ == "__main__":
    main(sys.argv[1:])
