"""The web server against hostile and broken clients (issue 14), on 127.0.0.1 only, every loop
bounded in count and time: deep JSON is a 400, a client leaving mid-body is handled quietly,
connections are capped and slow headers and bodies time out; arbitrary JSON bodies on every route
(hypothesis) answer 2xx or a 4xx JSON error, never 500."""

from __future__ import annotations

import json
import logging
import socket
import time

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catena_zero.web.app import create_app
from catena_zero.web.bots import BotPool
from catena_zero.web.server import uvicorn_config
from catena_zero.web.sessions import ServerConfig
from web_helpers import LiveServer, QuickBot


class HardenedServer(LiveServer):
    """``LiveServer`` with the settings ``catena-zero serve`` uses (``uvicorn_config``)."""

    def __init__(self, config: ServerConfig) -> None:
        super().__init__(create_app(BotPool([QuickBot()]), config))
        self.server = uvicorn.Server(uvicorn_config(self.app, config, lifespan="on"))
        import threading

        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)


def raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (bounded)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out, deadline = b"", time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out


def post(path: str, body: bytes, length: int | None = None) -> bytes:
    size = len(body) if length is None else length
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\nConnection: close\r\n\r\n").encode() + body


@pytest.fixture(scope="module")
def server():
    with HardenedServer(ServerConfig(request_timeout_s=1.0, max_connections=8)) as live:
        yield live


def test_deeply_nested_json_is_a_400_without_a_traceback(server, caplog):
    with caplog.at_level(logging.WARNING):
        for body in (b"[" * 15_000, b'{"a":' * 2500 + b"1" + b"}" * 2500):
            reply = raw(server.port, post("/api/games", body))
            head, _, payload = reply.partition(b"\r\n\r\n")
            assert head.split()[1] == b"400", reply[:200]
            assert "nested too deeply" in json.loads(payload)["error"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_a_client_leaving_mid_body_is_handled_quietly(server, caplog):
    with caplog.at_level(logging.WARNING):
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
                s.sendall(post("/api/games", b'{"side": ', length=100))
        time.sleep(0.5)  # the server notices the disconnects
        with httpx.Client(base_url=server.url, timeout=10) as c:
            assert c.get("/api/info").status_code == 200
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not noisy, [r.getMessage() for r in noisy]


@pytest.mark.parametrize("partial", [b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # headers never end
                                     b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                     b"application/json\r\nContent-Length: 50\r\n\r\n{\"si"])  # body never ends
def test_slow_headers_and_bodies_are_cut_off_at_the_deadline(server, partial):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(partial)
        got = b""
        while time.monotonic() - started < 10:  # bounded: the deadline is 1 s
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    elapsed = time.monotonic() - started
    assert 0.8 <= elapsed < 5, elapsed  # closed at the deadline, not held
    assert b" 500 " not in got


def test_connections_are_capped_and_trickling_ones_do_not_hold_the_server():
    config = ServerConfig(request_timeout_s=1.5, max_connections=4)
    with HardenedServer(config) as live:
        slow = []
        try:
            for _ in range(20):  # 20 slow clients: headers trickled, never finished
                s = socket.create_connection(("127.0.0.1", live.port), timeout=10)
                s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                slow.append(s)
            time.sleep(0.3)
            reply = raw(live.port, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert reply.split()[1] == b"503", reply[:100]  # beyond the cap: refused at once, not queued
            started = time.monotonic()
            for s in slow:  # every slow connection is closed by the deadline
                s.settimeout(max(0.1, 8 - (time.monotonic() - started)))
                assert s.recv(100) == b""
            assert time.monotonic() - started < 8
        finally:
            for s in slow:
                s.close()
        time.sleep(0.3)
        with httpx.Client(base_url=live.url, timeout=10) as c:  # and the server serves again
            assert c.get("/api/info").status_code == 200


def test_server_config_refuses_bad_limits():
    for bad in ({"max_connections": 0}, {"request_timeout_s": 0}, {"request_timeout_s": float("inf")},
                {"max_connections": True}):
        with pytest.raises(ValueError):
            ServerConfig(**bad)


# ------------------------------------------------------------------------------ property-based

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=10)
_fields = st.dictionaries(st.sampled_from(["side", "game_type", "scoring", "seat", "komi", "colour", "move", "x"]),
                          _json | st.sampled_from(["komi", "double", "quadratic", "first", "second", "black", "white",
                                                   "A1", "B2", "button", "swap", 3, 0, 7]), max_size=4)
_routes = st.sampled_from(["/api/games", "/api/games/{id}/komi", "/api/games/{id}/colour", "/api/games/{id}/move",
                           "/api/games/{id}/undo", "/api/games/{id}/bot"])


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
          deadline=None)  # each example is a dozen HTTP requests: few here, 500 in the slow test
@given(st.lists(st.tuples(_routes, _fields | _json), min_size=1, max_size=6))
def test_arbitrary_json_bodies_answer_2xx_or_a_4xx_json_error(server, calls):
    with httpx.Client(base_url=server.url, timeout=20) as c:
        game = c.post("/api/games", json={}).json()["id"]
        for route, body in calls:
            reply = c.post(route.format(id=game), content=json.dumps(body), headers={"Content-Type": "application/json"})
            assert reply.status_code < 500, (route, body, reply.text)
            if reply.status_code >= 400:
                assert isinstance(reply.json().get("error"), str) and "\n" not in reply.json()["error"]
            for path in (f"/api/games/{game}", f"/api/games/{game}/record"):
                assert c.get(path).status_code == 200
        c.delete(f"/api/games/{game}")


@pytest.mark.slow
@settings(max_examples=500, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
          deadline=None)
@given(st.lists(st.tuples(_routes, _fields | _json), min_size=1, max_size=10))
def test_arbitrary_json_bodies_many_examples(server, calls):
    test_arbitrary_json_bodies_answer_2xx_or_a_4xx_json_error.hypothesis.inner_test(server, calls)
