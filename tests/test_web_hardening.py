"""The web server against hostile and broken clients, on 127.0.0.1 only, every loop
bounded in count and time: deep JSON is a 400, a client leaving mid-body is handled quietly,
slow headers and bodies time out; arbitrary JSON bodies on every route (hypothesis) answer 2xx or
a 4xx JSON error, never 500. Issue 25: cross-site and non-JSON writes are refused (CSRF), other
Host names too (DNS rebinding), a new game never evicts one in play, and idle connections hold no
request slot."""

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
from catena_zero.bot.players import NO_BUDGET
from web_helpers import JSON, GatedBot, LiveServer, QuickBot


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
    with HardenedServer(ServerConfig(request_timeout_s=1.0, idle_timeout_s=1.0, max_requests=8)) as live:
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
        with httpx.Client(headers=JSON, base_url=server.url, timeout=10) as c:
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


def test_trickling_connections_do_not_hold_the_server_and_are_cut_off():
    config = ServerConfig(request_timeout_s=1.5, idle_timeout_s=1.0, max_requests=4)
    with HardenedServer(config) as live:
        slow = []
        try:
            for _ in range(20):  # 20 slow clients: headers trickled, never finished
                s = socket.create_connection(("127.0.0.1", live.port), timeout=10)
                s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                slow.append(s)
            time.sleep(0.3)
            reply = raw(live.port, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert reply.split()[1] == b"200", reply[:100]  # they hold no request slot
            started = time.monotonic()
            for s in slow:  # every slow connection is closed by the deadline
                s.settimeout(max(0.1, 8 - (time.monotonic() - started)))
                assert s.recv(100) == b""
            assert time.monotonic() - started < 8
        finally:
            for s in slow:
                s.close()


def test_server_config_refuses_bad_limits():
    for bad in ({"max_requests": 0}, {"request_timeout_s": 0}, {"request_timeout_s": float("inf")},
                {"max_requests": True}, {"idle_timeout_s": 0}, {"abandon_s": -1}, {"hosts": ("",)},
                {"hosts": "localhost"}, {"send_timeout_s": 0}, {"send_timeout_s": float("nan")},
                {"max_games_per_client": 0}, {"max_requests_per_client": 0}, {"max_analyses_per_client": 1.5},
                {"max_connections": 0}, {"max_connections_per_client": True}):
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
    with httpx.Client(headers=JSON, base_url=server.url, timeout=20) as c:
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


# ------------------------------------------------------------------------------ CSRF, eviction, Host, idle sockets


def send(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict]:
    """One request with exactly these headers (Host included); (status, JSON body or {})."""
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()),
             f"Content-Length: {len(body)}", "Connection: close", "", ""]
    reply = raw(port, "\r\n".join(lines).encode("latin-1") + body)
    head, _, payload = reply.partition(b"\r\n\r\n")
    try:
        data = json.loads(payload) if payload else {}
    except ValueError:
        data = {"raw": payload[:200].decode("latin-1")}
    return int(head.split()[1]), data


@pytest.mark.parametrize("extra, body, status, fragment", [
    ({"Content-Type": "text/plain"}, b"", 415, "Content-Type: application/json"),  # a cross-site fetch, no preflight
    ({"Content-Type": "application/x-www-form-urlencoded"}, b"", 415, "Content-Type: application/json"),  # a form
    ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--\r\n", 415, "Content-Type: application/json"),
    ({}, b"", 415, "Content-Type: application/json"),  # no content type at all
    ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, b"{}", 403, "cross-site"),
    ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, b"{}", 403, "cross-site"),
    ({"Content-Type": "application/json", "Origin": "http://evil.example"}, b"{}", 403, "evil.example"),
    ({"Content-Type": "application/json", "Origin": "null"}, b"{}", 403, "Origin"),
    ({"Content-Type": "application/json", "Origin": "http://127.0.0.1:1"}, b"{}", 403, "not this server"),
])
def test_cross_site_and_non_json_writes_are_refused(server, extra, body, status, fragment):
    store = server.app.state.web.store
    before = len(store)
    got, data = send(server.port, "POST", "/api/games", {"Host": "127.0.0.1", **extra}, body)
    assert got == status and fragment in data["error"] and "\n" not in data["error"], (got, data)
    assert len(store) == before  # no game was made


def test_the_pages_own_writes_and_programs_are_served(server):
    host = f"127.0.0.1:{server.port}"
    browser = {"Host": host, "Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin",
               "Content-Type": "application/json"}
    got, state = send(server.port, "POST", "/api/games", browser)  # the page's POST /bot-like call: no body
    assert got == 201, state
    got, data = send(server.port, "DELETE", f"/api/games/{state['id']}", {"Host": host})  # no content type
    assert got == 415 and "Content-Type: application/json" in data["error"]
    assert send(server.port, "GET", f"/api/games/{state['id']}", {"Host": host})[0] == 200  # not deleted
    got, _ = send(server.port, "DELETE", f"/api/games/{state['id']}", {"Host": host, **JSON})  # curl-like
    assert got == 200


def test_the_page_script_says_json_on_every_write():
    from importlib import resources

    script = (resources.files("catena_zero.web") / "static" / "api.js").read_text()  # every request goes through it
    api = script[script.index("async function api("):script.index("let response;", script.index("async function api("))]
    assert 'if (method !== "GET") options.headers["Content-Type"] = "application/json";' in api


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil",
                                  "[::2]:80", "10.0.0.1"])
def test_other_hosts_are_refused_dns_rebinding(server, host):
    for method, path, extra in (("GET", "/", {}), ("GET", "/api/info", {}), ("POST", "/api/games", JSON)):
        got, data = send(server.port, method, path, {"Host": host, **extra})
        assert got == 400 and "answers only for host" in data["error"], (host, got, data)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:{port}", "localhost:{port}", "LOCALHOST.:{port}",
                                  "[::1]:{port}"])
def test_this_machines_names_are_served(server, host):
    assert send(server.port, "GET", "/api/info", {"Host": host.format(port=server.port)})[0] == 200


def test_serve_answers_for_its_host_and_any_address_when_bound_everywhere():
    from catena_zero.web.guard import host_allowed
    from catena_zero.web.server import answering_for

    base = ServerConfig(hosts=ServerConfig().hosts + ("box.lan",))  # --allow-host box.lan
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        everywhere = answering_for("0.0.0.0", s, base)
    assert all(host_allowed(h, everywhere) for h in ("192.168.1.5:8000", "[fe80::1]:8000", "box.lan:8000", "localhost"))
    assert not host_allowed("evil.example:8000", everywhere)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        local = answering_for("127.0.0.1", s, ServerConfig())
    assert not local.any_ip_host and not host_allowed("192.168.1.5", local) and host_allowed("127.0.0.1", local)


def _play_to_the_end(c, gid: str) -> None:
    state = c.get(f"/api/games/{gid}").json()
    for _ in range(300):
        if state["phase"] == "over":
            return
        if state["to_act_is"] == "bot":
            reply = c.post(f"/api/games/{gid}/bot")
        elif state["phase"] == "komi":
            reply = c.post(f"/api/games/{gid}/komi", json={"komi": 3})
        elif state["phase"] == "colour":
            reply = c.post(f"/api/games/{gid}/colour", json={"colour": "white"})
        else:
            reply = c.post(f"/api/games/{gid}/move", json={"move": state["legal"][0]})
        assert reply.status_code == 200, reply.text
        state = reply.json()
    raise AssertionError("the game did not end")


def test_new_games_never_evict_a_game_in_play():
    now = [1000.0]
    app = create_app(BotPool([QuickBot()]), ServerConfig(max_games=4, abandon_s=600, expire_s=3600),
                     clock=lambda: now[0])
    with LiveServer(app) as live, httpx.Client(headers=JSON, base_url=live.url, timeout=30) as c:
        mine = c.post("/api/games", json={"seat": "second"}).json()["id"]
        assert c.post(f"/api/games/{mine}/bot").status_code == 200  # in play
        others = [c.post("/api/games", json={}).json()["id"] for _ in range(3)]
        now[0] += 300  # five minutes: nobody has left
        refused = [c.post("/api/games", json={}) for _ in range(64)]  # 64 more creates (a flood, or more players)
        assert {r.status_code for r in refused} == {503}
        assert "hold games in play" in refused[0].json()["error"] and "\n" not in refused[0].json()["error"]
        for gid in [mine, *others]:
            assert c.get(f"/api/games/{gid}").status_code == 200  # every game in play is still there
        _play_to_the_end(c, others[0])  # a finished game makes room at once, the other games stay
        fifth = c.post("/api/games", json={})
        assert fifth.status_code == 201, fifth.text
        assert c.get(f"/api/games/{others[0]}").status_code == 404
        now[0] += 601  # untouched ten minutes: abandoned, the one idle longest makes room
        for gid in (mine, fifth.json()["id"]):
            c.get(f"/api/games/{gid}")
        assert c.post("/api/games", json={}).status_code == 201
        assert c.get(f"/api/games/{others[1]}").status_code == 404
        assert c.get(f"/api/games/{mine}").status_code == 200


def test_idle_connections_do_not_lock_anyone_out():
    # serve's defaults: 64 idle sockets used to take every connection slot (503 for 10 s).
    with HardenedServer(ServerConfig()) as live:
        idle = [socket.create_connection(("127.0.0.1", live.port), timeout=10) for _ in range(200)]
        try:
            time.sleep(0.3)
            started = time.monotonic()
            with httpx.Client(headers=JSON, base_url=live.url, timeout=10) as c:
                assert c.get("/api/info").status_code == 200
                assert c.post("/api/games", json={}).status_code == 201
            assert time.monotonic() - started < 2
        finally:
            for s in idle:
                s.close()


def test_a_connection_silent_before_its_first_byte_is_closed_at_the_idle_deadline():
    with HardenedServer(ServerConfig(idle_timeout_s=0.5, request_timeout_s=5)) as live:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", live.port), timeout=10) as s:
            assert s.recv(100) == b""
        assert 0.4 <= time.monotonic() - started < 3  # the idle deadline, not the 5 s request one


def test_requests_in_flight_are_capped_and_a_trickled_body_takes_no_slot():
    import threading

    gate, group = threading.Event(), {"calls": 0, "lock": threading.Lock(), "waiting": threading.Event()}
    config = ServerConfig(max_requests=1, request_timeout_s=5)
    live = HardenedServer(config)
    live.app = create_app(BotPool([GatedBot(gate, group)]), config)
    live.server = uvicorn.Server(uvicorn_config(live.app, config, lifespan="on"))
    live.thread = threading.Thread(target=live.server.run, kwargs={"sockets": [live.sock]}, daemon=True)
    with live, httpx.Client(headers=JSON, base_url=live.url, timeout=30) as c:
        with socket.create_connection(("127.0.0.1", live.port), timeout=10) as trickle:
            trickle.sendall(post("/api/games", b'{"si', length=50))  # a body that never ends
            time.sleep(0.2)
            state = c.post("/api/games", json={"game_type": "double", "seat": "second"})
            assert state.status_code == 201, state.text  # the trickled body holds no slot
        thinker = threading.Thread(target=lambda: c.post(f"/api/games/{state.json()['id']}/bot"))
        thinker.start()
        try:
            assert group["waiting"].wait(timeout=30)  # one request in flight: the cap
            with httpx.Client(headers=JSON, base_url=live.url, timeout=10) as other:
                reply = other.get("/api/info")
            assert reply.status_code == 503 and "answering 1 requests" in reply.json()["error"]
        finally:
            gate.set()
            thinker.join(timeout=30)
        assert c.get("/api/info").status_code == 200


# ------------------------------------------------------------------------------ hostile clients: slow readers,
# analysis floods, slot grabs, descriptor exhaustion. Clients are told apart by address: 127.0.0.N for N > 1
# reach the server on Linux's loopback as other machines would.


def from_address(n: int, base_url: str, timeout: float = 30) -> httpx.Client:
    """A client whose connections come from 127.0.0.n (another client to the server)."""
    return httpx.Client(headers=JSON, base_url=base_url, timeout=timeout,
                        transport=httpx.HTTPTransport(local_address=f"127.0.0.{n}"))


def connect_from(n: int, port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(f"127.0.0.{n}", 0))


def serving(app, config: ServerConfig) -> HardenedServer:
    """``HardenedServer`` around ``app`` (a stand-in bot's)."""
    import threading

    live = HardenedServer(config)
    live.app = app
    live.server = uvicorn.Server(uvicorn_config(app, config, lifespan="on"))
    live.thread = threading.Thread(target=live.server.run, kwargs={"sockets": [live.sock]}, daemon=True)
    return live


def test_clients_that_never_read_their_answers_lock_nobody_out():
    config = ServerConfig(max_requests=4, send_timeout_s=2, idle_timeout_s=5, request_timeout_s=10)
    with HardenedServer(config) as live:
        readers = []
        connections = live.server.server_state.connections
        try:
            for n in range(6):  # more than the request slots: each pipelines 300 answers of 13 KB, reads none
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.bind((f"127.0.0.{2 + n}", 0))
                s.connect(("127.0.0.1", live.port))
                s.sendall(b"GET /static/panel.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 300)
                readers.append(s)
            # The server's buffers fill: its sends wait on sockets nobody drains (they held every slot).
            _wait_for(lambda: sum(p.flow.write_paused for p in list(connections)) >= 4)
            started = time.monotonic()
            with httpx.Client(headers=JSON, base_url=live.url, timeout=10) as c:
                assert c.get("/api/info").status_code == 200  # was 503 for as long as they stayed
                assert c.post("/api/games", json={}).status_code == 201
            assert time.monotonic() - started < 1
            _wait_for(lambda: not connections, seconds=8)  # and the readers lose their connections at the deadline
        finally:
            for s in readers:
                s.close()


class SlowAnalysisBot(QuickBot):
    """Moves at once; every analysis waits for ``gate`` (or ``seconds``); ``log`` lists the calls in order."""

    def __init__(self, gate, log: list, seconds: float = 30) -> None:
        super().__init__()
        self.gate, self.log, self.seconds = gate, log, seconds

    def choose(self, game, rng=None, budget=NO_BUDGET) -> str:
        self.log.append("move")
        return super().choose(game, rng, budget)

    def analyze(self, game, **budget):
        self.log.append("analysis")
        self.gate.wait(timeout=self.seconds)
        return super().analyze(game)


def _analysis_server(workers: int, gate, log: list, **limits) -> HardenedServer:
    config = ServerConfig(request_timeout_s=30, **limits)
    return serving(create_app(BotPool([SlowAnalysisBot(gate, log) for _ in range(workers)]), config), config)


def _wait_for(predicate, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _analyse_in_background(client: httpx.Client, gid: str) -> "threading.Thread":
    import threading

    thread = threading.Thread(target=lambda: client.get(f"/api/games/{gid}/analysis"), daemon=True)
    thread.start()
    return thread


def test_a_bots_move_comes_before_queued_analyses_and_one_worker_stays_for_moves():
    import threading

    gate, log = threading.Event(), []
    with _analysis_server(2, gate, log) as live:
        clients = [from_address(2 + n, live.url) for n in range(4)]
        player = from_address(20, live.url)
        threads = []
        try:
            games = [c.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"] for c in clients]
            for c, gid in zip(clients, games):
                assert c.post(f"/api/games/{gid}/bot").status_code == 200  # a stone on the board to evaluate
            threads = [_analyse_in_background(c, gid) for c, gid in zip(clients, games)]
            _wait_for(lambda: log.count("analysis") >= 1)
            time.sleep(0.3)  # the other three are queued behind it, not on the second worker
            assert log.count("analysis") == 1
            mine = player.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"]
            started = time.monotonic()
            assert player.post(f"/api/games/{mine}/bot").status_code == 200  # the spare worker moves at once
            assert time.monotonic() - started < 2 and not gate.is_set()
        finally:
            gate.set()
            for t in threads:
                t.join(timeout=30)
            for c in clients + [player]:
                c.close()


def test_moves_are_served_before_analyses_waiting_for_the_only_worker():
    import threading

    gate, log = threading.Event(), []
    with _analysis_server(1, gate, log) as live:
        clients = [from_address(2 + n, live.url) for n in range(4)]
        player = from_address(20, live.url)
        threads = []
        try:
            mine = player.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"]
            games = [c.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"] for c in clients]
            for c, gid in zip(clients, games):
                assert c.post(f"/api/games/{gid}/bot").status_code == 200
            log.clear()
            threads = [_analyse_in_background(clients[0], games[0])]
            _wait_for(lambda: log == ["analysis"])  # the only worker is busy
            threads += [_analyse_in_background(c, gid) for c, gid in zip(clients[1:], games[1:])]
            time.sleep(0.3)  # three analyses wait
            mover = threading.Thread(target=lambda: player.post(f"/api/games/{mine}/bot"), daemon=True)
            mover.start()
            time.sleep(0.3)  # the move waits too, behind the running analysis only
            gate.set()
            mover.join(timeout=30)
            for t in threads:
                t.join(timeout=30)
            assert log[:2] == ["analysis", "move"], log  # was: the move after all four analyses
        finally:
            gate.set()
            for c in clients + [player]:
                c.close()


def test_analyses_are_limited_per_game_and_per_client():
    import threading

    gate, log = threading.Event(), []
    with _analysis_server(1, gate, log, max_analyses_per_client=2) as live, \
            from_address(2, live.url) as c, from_address(3, live.url) as other:
        threads = []
        try:
            new = {"seat": "second", "game_type": "double"}
            games = [c.post("/api/games", json=new).json()["id"] for _ in range(3)]
            theirs = other.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"]
            for client, gid in [(c, g) for g in games] + [(other, theirs)]:
                assert client.post(f"/api/games/{gid}/bot").status_code == 200  # a stone to evaluate
            threads.append(_analyse_in_background(c, games[0]))
            _wait_for(lambda: log.count("analysis") == 1)
            same = c.get(f"/api/games/{games[0]}/analysis")  # the same game again: refused at once
            assert same.status_code == 429 and "being evaluated already" in same.json()["error"]
            threads.append(_analyse_in_background(c, games[1]))  # a second game: queued (the client's 2nd)
            time.sleep(0.3)
            third = c.get(f"/api/games/{games[2]}/analysis")  # a third at once: over the client's limit
            assert third.status_code == 429 and "2 evaluations in flight" in third.json()["error"]
            threads.append(_analyse_in_background(other, theirs))  # another client is not counted with this one
            time.sleep(0.3)
        finally:
            gate.set()
            for t in threads:
                t.join(timeout=30)
        assert log.count("analysis") == 3
        assert c.get(f"/api/games/{games[2]}/analysis").status_code == 200  # the answers came: allowed again


def test_analyses_whose_clients_left_are_not_searched():
    import threading

    gate, log = threading.Event(), []
    with _analysis_server(1, gate, log) as live:
        owner = from_address(2, live.url)
        try:
            games = [owner.post("/api/games", json={"seat": "second", "game_type": "double"}).json()["id"]
                     for _ in range(7)]
            for gid in games:
                owner.post(f"/api/games/{gid}/bot")
            log.clear()
            request = "GET /api/games/{}/analysis HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            first = connect_from(3, live.port)
            first.sendall(request.format(games[0]).encode())
            _wait_for(lambda: log == ["analysis"])  # searching: the only worker is busy
            gone = []
            for n, gid in enumerate(games[1:]):  # six more from six clients, queued, then the clients leave
                s = connect_from(4 + n, live.port)
                s.sendall(request.format(gid).encode())
                gone.append(s)
            time.sleep(0.3)
            for s in gone + [first]:
                s.close()
            time.sleep(0.3)
            gate.set()
            time.sleep(0.5)
            assert log == ["analysis"], log  # was: all seven searched, for nobody
            assert owner.get(f"/api/games/{games[1]}/analysis").status_code == 200  # the server still answers
        finally:
            gate.set()
            owner.close()


def test_one_client_cannot_take_every_game_slot():
    config = ServerConfig(max_games=8, max_games_per_client=4)
    with HardenedServer(config) as live:
        grabbers = [from_address(2, live.url), from_address(3, live.url)]
        try:
            taken = [c.post("/api/games", json={}) for c in grabbers for _ in range(6)]
            codes = [r.status_code for r in taken]
            assert codes.count(201) == 8  # four each: the first client's fifth is refused
            refused = next(r for r in taken if r.status_code == 429)
            assert "the most one address may have" in refused.json()["error"]
            for r in taken:  # kept alive with a request each, as a slot grab does
                if r.status_code == 201:
                    grabbers[0].get(f"/api/games/{r.json()['id']}")
            with from_address(4, live.url) as player:  # the store is full, but this client holds nothing
                got = player.post("/api/games", json={})
                assert got.status_code == 201, got.text  # was: 503 for everyone while the grab lasted
                assert player.post(f"/api/games/{got.json()['id']}/move", json={"move": "A1"}).status_code in (200, 409)
            left = sum(c.get(f"/api/games/{r.json()['id']}").status_code == 200
                       for c in grabbers[:1] for r in taken if r.status_code == 201)
            assert left == 7  # one of the grabbers' games made room
        finally:
            for c in grabbers:
                c.close()


def test_one_game_each_is_never_undone_by_a_newcomer():
    from catena_zero.game.options import GameConfig
    from catena_zero.web.sessions import ApiError, SessionStore

    store = SessionStore(ServerConfig(max_games=3, max_games_per_client=2))
    for client in ("a", "b", "c"):
        store.create(GameConfig(side=3), "first", client)
    with pytest.raises(ApiError) as refused:
        store.create(GameConfig(side=3), "first", "d")
    assert refused.value.status == 503 and len(store) == 3
    store2 = SessionStore(ServerConfig(max_games=3, max_games_per_client=2))
    kept = [store2.create(GameConfig(side=3), "first", c).id for c in ("a", "a", "b")]
    store2.create(GameConfig(side=3), "first", "c")  # "a" holds two, more than its share (1): one makes room
    assert sum(store2.get(g) is not None for g in kept[1:]) == 2
    with pytest.raises(ApiError):
        store2.get(kept[0])  # a's game seen least recently went


def test_one_clients_connections_beyond_its_cap_close_its_own_idle_ones():
    config = ServerConfig(max_connections_per_client=4, idle_timeout_s=5)
    with HardenedServer(config) as live:
        mine = [connect_from(2, live.port) for _ in range(6)]
        try:
            started = time.monotonic()
            for s in mine[:2]:  # the two opened first are closed at once, not at the idle deadline
                s.settimeout(3)
                assert s.recv(100) == b""
            assert time.monotonic() - started < 2
            with httpx.Client(headers=JSON, base_url=live.url, timeout=10) as c:  # others are unaffected
                assert c.get("/api/info").status_code == 200
        finally:
            for s in mine:
                s.close()


def test_idle_connections_at_the_descriptor_limit_neither_stall_requests_nor_flood_the_log(tmp_path):
    import re
    import resource
    import subprocess
    import sys

    from web_helpers import ROOT, make_bot_file

    bot = make_bot_file(tmp_path)
    err = tmp_path / "serve.err"

    def limit() -> None:  # the serve process only: 512 file descriptors, soft and hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))

    with open(err, "w") as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "catena_zero.cli", "serve", "--bot", str(bot), "--port", "0",
                                 "--simulations", "2"], stdout=subprocess.PIPE, stderr=err_file, text=True,
                                cwd=ROOT, preexec_fn=limit)
    idle = []
    try:
        port = None
        for line in proc.stdout:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if found:
                port = int(found.group(1))
                break
        assert port, err.read_text()
        for n in range(600):  # more than the process can hold, from 30 addresses (20 each, under the cap per client)
            idle.append(connect_from(2 + n % 30, port))
        time.sleep(0.5)
        started = time.monotonic()
        reply = raw(port, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout=20)
        elapsed = time.monotonic() - started
        assert reply.split()[1] == b"200", reply[:100]
        assert elapsed < 1.5, elapsed  # was: the idle deadline (5 s) and a retry
        time.sleep(0.5)
    finally:
        for s in idle:
            s.close()
        proc.terminate()
        proc.wait(timeout=30)
    log = err.read_text()
    assert "Traceback" not in log and "out of system resource" not in log, log[:1000]


def test_descriptor_errors_reach_the_log_once_a_minute():
    from catena_zero.web.server import OncePerMinute

    once = OncePerMinute()

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, message, None, None)

    passed = [once.filter(record("socket.accept() out of system resource")) for _ in range(1000)]
    assert passed.count(True) == 1  # was: every failed accept, with its traceback
    assert once.filter(record("something else"))


def test_serve_raises_the_soft_descriptor_limit_as_far_as_the_hard_one_allows():
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 1200))

    code = ("import resource; from catena_zero.web.server import raise_fd_limit; "
            "from catena_zero.web.sessions import ServerConfig; raise_fd_limit(ServerConfig()); "
            "print(*resource.getrlimit(resource.RLIMIT_NOFILE))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, preexec_fn=limit)
    assert out.stdout.split() == ["1200", "1200"], out  # was left at 256: accepts failed past ~250 connections
