"""A small FastAPI shop with the stock sentry-sdk (its Starlette and FastAPI integrations
enabled by the SDK itself), served by uvicorn on a free loopback port (ASGI). Speaks
../web-app.mjs's protocol."""

import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

import web_app  # noqa: E402

web_app.start_sdk()

import sentry_sdk  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402

app = FastAPI()


@app.middleware("http")
async def authenticate(request: Request, call_next):
    # What an auth layer does: the signed-in user goes on the request's scope.
    sentry_sdk.set_user({"id": request.headers.get("x-conformance-user")})
    return await call_next(request)


@app.get("/health")
async def health():
    return "ok"


@app.get("/orders/{order_id}")
async def order(order_id: int):
    return web_app.load_order(order_id)


sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
sock.listen(128)
config = uvicorn.Config(web_app.in_flight.asgi(app), log_level="warning", lifespan="off")
server = uvicorn.Server(config)
web_app.run(sock.getsockname()[1], lambda: server.run(sockets=[sock]))
