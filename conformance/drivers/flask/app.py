"""A small Flask shop with the stock sentry-sdk (its Flask integration enabled by the SDK
itself), served by Werkzeug on a free loopback port. Speaks ../web-app.mjs's protocol."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import web_app  # noqa: E402

web_app.start_sdk()

import sentry_sdk  # noqa: E402
from flask import Flask, request  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

app = Flask("shop")


@app.before_request
def authenticate():
    # What an auth layer does: the signed-in user goes on the request's scope.
    sentry_sdk.set_user({"id": request.headers.get("X-Conformance-User")})


@app.get("/health")
def health():
    return "ok"


@app.get("/orders/<int:order_id>")
def order(order_id):
    return web_app.load_order(order_id)


server = make_server("127.0.0.1", 0, web_app.in_flight.wsgi(app), threaded=True)
web_app.run(server.server_port, server.serve_forever)
