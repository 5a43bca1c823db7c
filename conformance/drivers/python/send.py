"""Conformance driver for the stock Python SDK (sentry-sdk 2.x and 1.x), unmodified.

    SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \\
        conformance/.venv/bin/python conformance/drivers/python/send.py <scenario>

Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids","groups"} where
groups maps an expected-issue label to the event ids that belong to it. Exit code 0 unless
the scenario fails. The transport compresses every request (gzip here: brotli is not
installed in the venv; with it the SDK would switch to br).
"""

import sys

import sentry_sdk

from common import forked_scope, report_groups, scenario_arg, start_sdk


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


def check(item):
    # Every member of one kind raised from one line: identical stack traces.
    if isinstance(item, str):
        raise KeyError(item)
    raise ValueError(f"bad item {item}")


def batch(items):
    errors = []
    for item in items:
        try:
            check(item)
        except Exception as error:  # noqa: BLE001 - collected into the group
            errors.append(error)
    raise ExceptionGroup("batch failed", errors)  # noqa: F821 - Python 3.11+


def exception_groups():
    """ExceptionGroups: two of copies of one error, then two of the same two errors in another
    order and count."""
    groups = {"same": [], "mixed": []}
    for label, items in (("same", [1, 2]), ("same", [3]), ("mixed", [4, "sku"]), ("mixed", ["sku", 5, 6])):
        try:
            batch(items)
        except Exception as group:  # noqa: BLE001 - the ExceptionGroup
            groups[label].append(sentry_sdk.capture_exception(group))
    return groups


def large():
    """One message with ~50 KB of extra data (the transport compresses every body anyway)."""
    with forked_scope() as scope:
        for i in range(800):
            scope.set_extra(f"line{i}", f"conformance payload line {i} " * 2)
        return {"large": [sentry_sdk.capture_message("conformance large payload", level="info")]}


SCENARIOS = {"grouping": grouping, "large": large, "exception-groups": exception_groups}


def main(argv):
    scenario = scenario_arg(argv, "send.py", SCENARIOS)
    start_sdk("conformance@1.0.0")
    report_groups(scenario, SCENARIOS[scenario]())


if __name__ == "__main__":
    main(sys.argv[1:])
