"""Conformance driver for server-side scrubbing with the stock Python SDK and a real Flask app,
`send_default_pii=True` (the SDK then sends cookies, headers and the request body itself).
A `POST /login` view raises while its local variables and JSON body hold a password and a card
number; the request is made with Flask's test client, with an Authorization header and cookies.

    SENTRY_TEST_DSN=... conformance/.venv-web/bin/python \\
        conformance/drivers/python/privacy_flask.py

Prints one JSON line: {"event_ids": [...]}.
"""

import json
import os

import sentry_sdk
from flask import Flask, request

# Fixed here, never passed as arguments: the SDK reports `sys.argv` as it is.
secret = "hunter2-privacy-7f3a"
card = "4111 1111 1111 1111"
ids = []


def before_send(event, _hint):
    ids.append(event["event_id"])
    return event


sentry_sdk.init(
    dsn=os.environ["SENTRY_TEST_DSN"],
    send_default_pii=True,
    release="privacy-flask@1.0.0",
    before_send=before_send,
)

app = Flask(__name__)


@app.post("/login")
def login():
    body = request.get_json()
    password = body["password"]
    api_key = secret + "-local"
    raise ValueError(f"login failed: card {body['card']} rejected for {len(password + api_key)}")


client = app.test_client()
client.set_cookie("sessionid", secret + "-cookie")
client.set_cookie("theme", "dark")
client.post(
    f"/login?token={secret}-query",
    json={"username": "bob", "password": secret, "card": card},
    headers={"Authorization": f"Bearer {secret}-bearer"},
)
sentry_sdk.flush(timeout=5)
print(json.dumps({"event_ids": ids}))
