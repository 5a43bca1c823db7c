"""The legacy raven-python client (6.10, the last release) reporting an exception whose frame
holds secrets and a log template with its parameters, as an old app still does.

Reads the DSN from SENTRY_TEST_DSN; prints one JSON line: {"event_ids": [exception, message]}.
"""

import json
import os

from raven import Client
from raven.transport.http import HTTPTransport


def charge(order):
    password = "hunter2-raven-6c1"  # noqa: F841 -- a local the client reports with the frame
    card = "4111 1111 1111 1111"  # noqa: F841
    return order["total"] / order["items"]


def main():
    client = Client(
        os.environ["SENTRY_TEST_DSN"],
        release="raven-app@6.10",
        environment="legacy",
        # Synchronous sends: each capture returns after the server answered.
        transport=HTTPTransport,
        raise_send_errors=True,
    )
    try:
        charge({"total": 10, "items": 0})
    except ZeroDivisionError:
        exc_id = client.captureException(extra={"api_key": "raven-key-6c2"})
    msg_id = client.captureMessage("order %s failed after %s tries", params=("A-17", 3))
    print(json.dumps({"event_ids": [exc_id, msg_id]}))


if __name__ == "__main__":
    main()
