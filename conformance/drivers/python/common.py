"""What every Python driver does around its scenarios: initialise the stock SDK from
$SENTRY_TEST_DSN and print the one-line JSON report the harness reads."""

import json
import os
import sys

import sentry_sdk


def start_sdk(release, **options):
    """Initialises sentry_sdk with the DSN, environment `test` and no tracing unless overridden."""
    dsn = os.environ.get("SENTRY_TEST_DSN")
    if not dsn:
        sys.exit("SENTRY_TEST_DSN is not set")
    settings = {"environment": "test", "traces_sample_rate": 0, **options}
    sentry_sdk.init(dsn=dsn, release=release, **settings)


def flush_and_report(scenario, **fields):
    """Flushes (5 s), then prints {"sdk":{"package","version"},"scenario",...fields}."""
    sentry_sdk.flush(timeout=5)
    sdk = {"package": "sentry-sdk", "version": sentry_sdk.VERSION}
    print(json.dumps({"sdk": sdk, "scenario": scenario, **fields}), flush=True)


def report_groups(scenario, groups):
    """Reports an event scenario: its groups and all their ids as `event_ids`."""
    event_ids = [event_id for ids in groups.values() for event_id in ids]
    flush_and_report(scenario, event_ids=event_ids, groups=groups)


def scenario_arg(argv, script, scenarios):
    """The one argument, a scenario name; exits with the usage line otherwise."""
    if len(argv) != 1 or argv[0] not in scenarios:
        sys.exit(f"usage: {script} <scenario>; scenarios: {', '.join(scenarios)}")
    return argv[0]
