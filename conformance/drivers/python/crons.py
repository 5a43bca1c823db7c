"""Conformance driver for cron check-ins with the stock Python SDK (sentry-sdk 2.x and 1.x), unmodified.

    SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \\
        conformance/.venv/bin/python conformance/drivers/python/crons.py <scenario> --slug <slug>

Scenarios:
  crontab   the @monitor decorator on a job, crontab */5 in Europe/Berlin, margin 1, max 5
  interval  capture_checkin in_progress then ok (duration 1.5 s), every 10 minutes, margin 2
  hang      capture_checkin in_progress with max_runtime 1, never closed (a hung job)
  fail      the @monitor decorator on a job that raises: the SDK sends an error check-in
Prints one JSON line {"sdk":{"package","version"},"scenario","slug","check_in_ids":[...]}.
"""

import argparse
import sys
import time

import sentry_sdk
from sentry_sdk.crons import capture_checkin

from common import flush_and_report, start_sdk

CRONTAB = {
    "schedule": {"type": "crontab", "value": "*/5 * * * *"},
    "checkin_margin": 1,
    "max_runtime": 5,
    "timezone": "Europe/Berlin",
}
INTERVAL = {"schedule": {"type": "interval", "value": 10, "unit": "minute"}, "checkin_margin": 2}


def crontab(slug):
    @sentry_sdk.monitor(monitor_slug=slug, monitor_config=CRONTAB)
    def job():
        time.sleep(0.02)

    job()
    return []


def interval(slug):
    cid = capture_checkin(monitor_slug=slug, status="in_progress", monitor_config=INTERVAL)
    capture_checkin(monitor_slug=slug, check_in_id=cid, status="ok", duration=1.5)
    return [cid]


def hang(slug):
    config = dict(CRONTAB, max_runtime=1)
    return [capture_checkin(monitor_slug=slug, status="in_progress", monitor_config=config)]


def fail(slug):
    @sentry_sdk.monitor(monitor_slug=slug, monitor_config=CRONTAB)
    def job():
        raise RuntimeError("conformance job failed")

    try:
        job()
    except RuntimeError:
        pass  # the decorator sent the error check-in and re-raised
    return []


SCENARIOS = {"crontab": crontab, "interval": interval, "hang": hang, "fail": fail}


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--slug", required=True)
    args = parser.parse_args(argv)
    start_sdk("crons@1.0.0")
    ids = SCENARIOS[args.scenario](args.slug)
    flush_and_report(args.scenario, slug=args.slug, check_in_ids=ids)


if __name__ == "__main__":
    main(sys.argv[1:])
