"""Conformance driver for the stock Python SDK (sentry-sdk 2.x), unmodified.

    SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \\
        conformance/.venv/bin/python conformance/drivers/python/send.py <scenario>

Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids","groups"} where
groups maps an expected-issue label to the event ids that belong to it. Exit code 0 unless
the scenario fails. The transport compresses every request (gzip here: brotli is not
installed in the venv; with it the SDK would switch to br).
"""

import json
import os
import sys

import sentry_sdk


def divide(numerator, denominator):
    # One place raising, always called from the same line: identical stack traces.
    return numerator / denominator


def grouping():
    """The same exception twice from the same code, and two messages differing in a number."""
    groups = {"exception": [], "message": []}
    for order in (17, 42):
        try:
            divide(order, 0)
        except ZeroDivisionError as error:
            groups["exception"].append(sentry_sdk.capture_exception(error))
        groups["message"].append(sentry_sdk.capture_message(f"conformance order {order} failed"))
    return groups


SCENARIOS = {"grouping": grouping}


def main(argv):
    if len(argv) != 1 or argv[0] not in SCENARIOS:
        sys.exit(f"usage: send.py <scenario>; scenarios: {', '.join(SCENARIOS)}")
    dsn = os.environ.get("SENTRY_TEST_DSN")
    if not dsn:
        sys.exit("SENTRY_TEST_DSN is not set")
    sentry_sdk.init(dsn=dsn, release="conformance@1.0.0", environment="test", traces_sample_rate=0)
    groups = SCENARIOS[argv[0]]()
    sentry_sdk.flush(timeout=5)
    event_ids = [event_id for ids in groups.values() for event_id in ids]
    result = {
        "sdk": {"package": "sentry-sdk", "version": sentry_sdk.VERSION},
        "scenario": argv[0],
        "event_ids": event_ids,
        "groups": groups,
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
