"""A one-file Django shop with the stock sentry-sdk (its Django integration enabled by the SDK
itself), served through Django's WSGI handler by the standard library's threading WSGI server
on a free loopback port. Speaks ../web-app.mjs's protocol."""

import os
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import web_app  # noqa: E402

web_app.start_sdk()

import django  # noqa: E402
import sentry_sdk  # noqa: E402
from django.conf import settings  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402

settings.configure(
    DEBUG=False,
    SECRET_KEY="conformance-only",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[f"{__name__}.authenticate"],
    LOGGING_CONFIG=None,
)


def authenticate(get_response):
    # What an auth middleware does: the signed-in user goes on the request's scope.
    def middleware(request):
        sentry_sdk.set_user({"id": request.headers.get("X-Conformance-User")})
        return get_response(request)

    return middleware


def health(_request):
    return HttpResponse("ok")


def order(_request, order_id):
    return web_app.load_order(order_id)


urlpatterns = [
    path("health", health),
    path("orders/<int:order_id>", order),
]

django.setup()

from django.core.wsgi import get_wsgi_application  # noqa: E402


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


server = make_server(
    "127.0.0.1",
    0,
    web_app.in_flight.wsgi(get_wsgi_application()),
    ThreadingWSGIServer,
    handler_class=QuietHandler,
)
web_app.run(server.server_port, server.serve_forever)
