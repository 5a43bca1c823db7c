"""What every Python driver does around its scenarios: initialise the stock SDK from
$SENTRY_TEST_DSN and print the one-line JSON report the harness reads.

The same programs run sentry-sdk 2.x (rows python, python-prev) and 1.x (row python-1x): the few
APIs that moved in 2.0 are reached through the helpers below, chosen by what the installed SDK
has (https://docs.sentry.io/platforms/python/migration/1.x-to-2.x)."""

import importlib.util
import json
import os
import sys

import sentry_sdk


# 2.x has top-level scope and session functions; 1.x reaches them through the Hub.
HAS_SCOPES_API = hasattr(sentry_sdk, "get_client")
# The sentry_sdk.logger module and the enable_logs option arrived in 2.x; 1.x refuses unknown
# options.
HAS_LOGS = importlib.util.find_spec("sentry_sdk.logger") is not None


def start_sdk(release, enable_logs=False, **options):
    """Initialises sentry_sdk with the DSN, environment `test` and no tracing unless overridden;
    `enable_logs` only where the SDK has logs."""
    dsn = os.environ.get("SENTRY_TEST_DSN")
    if not dsn:
        sys.exit("SENTRY_TEST_DSN is not set")
    settings = {"environment": "test", "traces_sample_rate": 0, **options}
    if enable_logs and HAS_LOGS:
        settings["enable_logs"] = True
    sentry_sdk.init(dsn=dsn, release=release, **settings)


def client():
    """The initialised client (sentry_sdk.get_client() in 2.x, the Hub's client in 1.x)."""
    return sentry_sdk.get_client() if HAS_SCOPES_API else sentry_sdk.Hub.current.client


def current_scope():
    """The scope captures go through (get_current_scope() in 2.x, the Hub's scope in 1.x)."""
    return sentry_sdk.get_current_scope() if HAS_SCOPES_API else sentry_sdk.Hub.current.scope


def forked_scope():
    """A context manager yielding a scope forked from the current one (new_scope / push_scope)."""
    return sentry_sdk.new_scope() if HAS_SCOPES_API else sentry_sdk.push_scope()


def start_session():
    """Starts a manual release-health session."""
    if HAS_SCOPES_API:
        sentry_sdk.start_session()
    else:
        sentry_sdk.Hub.current.start_session()


def end_session():
    """Ends the manual session, which queues it for sending."""
    if HAS_SCOPES_API:
        sentry_sdk.end_session()
    else:
        sentry_sdk.Hub.current.end_session()


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
