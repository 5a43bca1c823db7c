"""Conformance driver for quotas, rate-limit back-off and unsupported items, with the stock
Python SDK (sentry-sdk 2.x and 1.x), unmodified.

    SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \\
        conformance/.venv/bin/python conformance/drivers/python/quota.py <scenario>

Scenarios (the test sets the project's quota first; the numbers here must match it):
  ratelimit    quota 3 per 4 s: 3 events, a 4th (answered 429), 3 more the SDK must hold back
               (client report `ratelimit_backoff`), then after the announced time one more.
  partial      quota 30 per 4 s: one envelope of 50 events through the SDK's own transport,
               then the same envelope again once the announced time has passed.
  unsupported  traces_sample_rate=1 (a transaction), a log line and an attachment with one event.
Prints one JSON line like send.py: {"sdk","scenario","event_ids","groups"}.
"""

import sys
import time
import uuid
from datetime import datetime, timezone

import sentry_sdk
from sentry_sdk.envelope import Envelope, Item, PayloadRef

from common import HAS_LOGS, client, current_scope, report_groups, scenario_arg, start_sdk

# The window the test configures; waiting this long outlasts any Retry-After it announces.
WINDOW_SECONDS = 4


def capture_one(text):
    """Captures one message and waits until the SDK has sent (or dropped) it."""
    event_id = sentry_sdk.capture_message(text, level="error")
    sentry_sdk.flush(timeout=5)
    return event_id


def ratelimit():
    groups = {"accepted": [], "refused": [], "held_back": [], "after_window": []}
    for i in range(3):
        groups["accepted"].append(capture_one(f"ratelimit {i}"))
    groups["refused"].append(capture_one("ratelimit over quota"))
    for i in range(3):
        groups["held_back"].append(capture_one(f"held back {i}"))
    # flush() above also sent the client report with the held-back events.
    time.sleep(WINDOW_SECONDS + 0.5)
    groups["after_window"].append(capture_one("after the window"))
    return groups


def partial():
    """One envelope of 50 events through the SDK's stock transport, twice."""
    ids = []
    envelope = Envelope(headers={"sent_at": datetime.now(timezone.utc).isoformat()})
    for i in range(50):
        event_id = uuid.uuid4().hex
        ids.append(event_id)
        event = {
            "event_id": event_id,
            "message": f"partial envelope event {i}",
            "level": "error",
            "platform": "python",
            "timestamp": time.time(),
        }
        envelope.add_item(Item(payload=PayloadRef(json=event), type="event"))
    transport = client().transport
    transport.capture_envelope(envelope)
    sentry_sdk.flush(timeout=5)
    time.sleep(WINDOW_SECONDS + 0.5)
    transport.capture_envelope(envelope)
    sentry_sdk.flush(timeout=5)
    return {"sent": ids}


def unsupported():
    current_scope().add_attachment(bytes=b"attachment body", filename="note.txt")
    with sentry_sdk.start_transaction(name="conformance transaction", op="task"):
        pass
    if HAS_LOGS:  # 1.x has no logs: the matrix declares that cell unsupported
        sentry_sdk.logger.info("conformance log line")
    event_id = sentry_sdk.capture_message("conformance with attachment", level="error")
    sentry_sdk.flush(timeout=5)
    return {"event": [event_id]}


SCENARIOS = {"ratelimit": ratelimit, "partial": partial, "unsupported": unsupported}


def main(argv):
    scenario = scenario_arg(argv, "quota.py", SCENARIOS)
    rate = 1.0 if scenario == "unsupported" else 0
    start_sdk("conformance@1.0.0", traces_sample_rate=rate, enable_logs=True)
    report_groups(scenario, SCENARIOS[scenario]())


if __name__ == "__main__":
    main(sys.argv[1:])
