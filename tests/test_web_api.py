"""The web server's JSON API (catena_zero/web), over real HTTP to uvicorn in a thread.

Every endpoint; whole games of every game type against the real exported bot, checked against
the reference engine replaying the same events; bad input of every kind (each a 4xx JSON error
naming the problem, with the game unchanged); isolation, bounds and expiry of sessions; path
traversal; and a slow bot on one game while another game is served.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import httpx
import pytest

from catena_zero.bot import Bot
from catena_zero.cli import main
from catena_zero.game import GameConfig
from catena_zero.game.match import Match
from catena_zero.game.records import parse_record
from catena_zero.game.render import BoardView, hex_centre
from catena_zero.game.rules import Game
from catena_zero.web.app import create_app
from catena_zero.web.bots import BotPool
from catena_zero.web.sessions import ServerConfig
from web_helpers import JSON, BadBot, GatedBot, LiveServer, QuickBot, make_bot_file, raw_get
from events import ev, evs, texts  # noqa: F401


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory):
    return make_bot_file(tmp_path_factory.mktemp("bot"))


@pytest.fixture(scope="module")
def server(bot_file):
    pool = BotPool.of(lambda i: Bot.load(bot_file, simulations=2, device="cpu", seed=i), 2)
    with LiveServer(create_app(pool, ServerConfig(max_games=16, max_games_per_client=16))) as live:
        yield live


@pytest.fixture
def client(server):
    with httpx.Client(headers=JSON, base_url=server.url, timeout=120) as c:
        yield c


def new_game(client, **options) -> dict:
    response = client.post("/api/games", json=options)
    assert response.status_code == 201, response.text
    return response.json()


def error_of(response, status: int) -> str:
    """The one-line error of a refused request (asserting its status and JSON form)."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"] and "\n" not in body["error"], body
    assert "Traceback" not in body["error"]
    return body["error"]


def play_out(client, state: dict, choose=lambda s: s["legal"][0], komi: int = 3, colour: str = "white") -> dict:
    """Drive a game to its end: the bot through POST /bot, the person by ``choose``."""
    gid = state["id"]
    for _ in range(200):
        if state["phase"] == "over":
            return state
        if state["to_act_is"] == "bot":
            response = client.post(f"/api/games/{gid}/bot")
        elif state["phase"] == "komi":
            response = client.post(f"/api/games/{gid}/komi", json={"komi": komi})
        elif state["phase"] == "colour":
            response = client.post(f"/api/games/{gid}/colour", json={"colour": colour})
        else:
            response = client.post(f"/api/games/{gid}/move", json={"move": choose(state)})
        assert response.status_code == 200, response.text
        state = response.json()
    raise AssertionError("the game did not end")


def check_against_engine(state: dict) -> None:
    """The result the server reports is the engine's for the same events (R6, R7)."""
    o = state["options"]
    events = [e["event"] for e in state["events"]]
    match = Match.replay(GameConfig(side=o["side"], game_type=o["game_type"], scoring=o["scoring"]), evs(events))
    assert match.phase == "over"
    game = match.game
    scores = game.scores()
    assert state["result"]["winner"] == game.winner
    assert state["result"]["black"] == scores["black"] and state["result"]["white"] == scores["white"]
    assert state["scores"] == scores
    assert state["result"]["winner_seat"] == match.winning_player
    human_won = None if game.winner is None else match.winning_player == state["human"]
    assert state["result"]["human_won"] == human_won
    assert state["colours"] == {"first": match.colour_of("first"), "second": match.colour_of("second")}
    # Who acted: the seat of every event follows the R7 protocol.
    replay = Match(match.config)
    for e in state["events"]:
        assert e["seat"] == replay.player_to_act
        assert e["by"] == ("human" if e["seat"] == state["human"] else "bot")
        replay.apply(ev(e["event"]))


def unchanged(client, gid: str, before: dict) -> None:
    assert client.get(f"/api/games/{gid}").json() == before


# ------------------------------------------------------------------------------ page and files


def test_page_and_its_files_are_served_from_the_package_with_nothing_from_elsewhere(client):
    folder = resources.files("catena_zero.web") / "static"
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.content == (folder / "index.html").read_bytes()
    assert "default-src 'self'" in page.headers["content-security-policy"]
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith((".js", ".css")))
    assert "app.js" in files and "style.css" in files and len(files) > 3
    for name in files:
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and response.headers["content-type"].startswith(kind)
        assert response.content == (folder / name).read_bytes()
    # Offline: no file of the page names another host (the SVG namespace is an identifier).
    for name in ["index.html", *files]:
        text = (folder / name).read_text().replace("http://www.w3.org/2000/svg", "")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, name
    assert '<script type="module" src="/static/app.js">' in page.text and 'href="/static/style.css"' in page.text


IMPORT = re.compile(r'^import (?:\{[^}]*\}|[\w$]+|\* as [\w$]+) from "\./([\w-]+\.js)";$', re.M)


def test_every_module_the_page_imports_is_served_as_javascript_under_the_pages_policy(client):
    """The page is ES modules (no build step): index.html loads app.js, which imports the rest by
    relative path. A browser refuses a module served with a non-JavaScript type (nosniff makes
    that strict), so each one reached from app.js must be served, as JavaScript, with the CSP."""
    page = client.get("/")
    entry = re.findall(r'<script type="module" src="/static/([\w-]+\.js)"></script>', page.text)
    assert entry == ["app.js"] and "<script src" not in page.text  # one entry point, a module
    assert "script-src 'self'" in page.headers["content-security-policy"]
    seen, todo = set(), list(entry)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert response.headers["content-type"] == "text/javascript; charset=utf-8", name
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "script-src 'self'" in response.headers["content-security-policy"]
        text = response.text
        statements = re.findall(r"^import\b[^;]*;", text, re.M)
        assert all(IMPORT.fullmatch(s) for s in statements), (name, statements)  # relative, within static/
        assert "import(" not in text and "require(" not in text, name
        todo += IMPORT.findall(text)
    shipped = {f.name for f in (resources.files("catena_zero.web") / "static").iterdir() if f.name.endswith(".js")}
    assert seen == shipped, shipped ^ seen  # every module is used, and every one used is shipped
    assert {"state.js", "board.js", "api.js", "game.js"} <= seen


def test_the_pages_state_is_one_sealed_object_owned_by_state_js():
    """app.js once kept eleven mutable globals; now no module has a variable of its own (no
    top-level ``let`` or ``var``), and the state is one sealed object that only state.js makes."""
    folder = resources.files("catena_zero.web") / "static"
    for module in folder.iterdir():
        if not module.name.endswith(".js"):
            continue
        text = module.read_text()
        assert not re.search(r"^(let|var) ", text, re.M), module.name
        assert ("Object.seal(" in text) == (module.name == "state.js"), module.name
    state = (folder / "state.js").read_text()
    fields = re.search(r"export const page = Object\.seal\(\{(.*?)\n\}\);", state, re.S).group(1)
    assert {"info", "game", "busy", "reviewAt", "analysis"} <= set(re.findall(r"^  (\w+):", fields, re.M))


def test_the_handlers_are_module_level_functions_over_one_state_record_and_create_app_only_wires():
    import dataclasses
    import types

    from catena_zero.web import app as web_app

    app = create_app(BotPool([QuickBot()]))
    handlers = [route.endpoint for route in app.routes] + list(app.exception_handlers.values())
    assert len(handlers) >= 20
    for handler in handlers:  # a closure's qualified name is "create_app.<locals>.name"
        assert handler.__qualname__ == handler.__name__ and getattr(web_app, handler.__name__) is handler, handler
    nested = [c.co_name for c in web_app.create_app.__code__.co_consts if isinstance(c, types.CodeType)]
    assert all(name.startswith("<") for name in nested), nested  # comprehensions only, no def inside
    state = app.state.web
    assert isinstance(state, web_app.AppState) and dataclasses.is_dataclass(state)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.store = None


@pytest.mark.parametrize("target", [
    "/static/../app.py", "/static/..%2Fapp.py", "/static/%2e%2e%2fapp.py", "/static/..%2F..%2Fpyproject.toml",
    "/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/../../etc/passwd",
    "/static//etc/passwd", "/static/", "/static/index.html/..", "/static/app.py", "/static/__init__.py",
    "/etc/passwd", "/api/games/..%2F..%2F..%2Fetc%2Fpasswd/record", "/api/games/../../etc/passwd",
    "/static/app.js%00.py", "/%2e%2e/catena_zero/web/app.py", "/static/.%2e/sessions.py",
])
def test_no_request_reads_a_file_outside_the_pages_own(server, target):
    status, body = raw_get(server.port, target)
    assert status in (400, 404), (target, status)
    assert b"root:" not in body and b"import" not in body and b"[build-system]" not in body
    if status == 404:
        assert "error" in json.loads(body)


def test_unknown_routes_and_methods_are_json_errors(client):
    assert "no such page" in error_of(client.get("/nope"), 404)
    assert "allowed: POST" in error_of(client.put("/api/games"), 405)
    assert "allowed" in error_of(client.get("/api/games/" + "a" * 22 + "/move"), 405)


# ------------------------------------------------------------------------------ info and new games


def test_info_names_the_bots_default_and_every_supported_option_set(client, bot_file):
    info = client.get("/api/info").json()
    bot = Bot.load(bot_file, simulations=1, device="cpu")
    assert info["default"] == {"side": 3, "game_type": "komi", "scoring": "standard"}
    expected = [{"side": s, "game_type": t, "scoring": c} for s in range(2, 11) for t in ("komi", "no_komi", "double")
                for c in ("standard", "longest", "quadratic") if bot.capabilities.plays(GameConfig(s, t, c))]
    assert info["supported"] == expected and len(expected) == 9
    assert info["seats"] == ["first", "second"]
    assert info["komi_ranges"] == {"standard": [0, 15], "longest": [0, 15], "quadratic": [0, 1000]}


def test_new_game_defaults_to_the_bots_options_with_the_person_first(client):
    state = new_game(client)
    assert state["options"] == {"side": 3, "game_type": "komi", "scoring": "standard"}
    assert (state["human"], state["bot"], state["phase"], state["to_act_is"]) == ("first", "second", "komi", "human")
    assert state["choice"] == {"kind": "komi", "komi_min": 0, "komi_max": 15, "colours": []}
    assert len(state["cells"]) == 19 and state["cells"][0] == {"name": "A1", "col": 0, "row": 0, "stone": None,
                                                               "claimed": False, "unplayable": False,
                                                               "move": None, "placed": None, "x": 0.0, "y": -0.0}
    assert state["chains"] == [] and len(state["labels"]) == 2 * (2 * 3 - 1)
    assert state["legal"] == [] and state["scores"] is None and state["komi"] is None
    assert state["button"] == {"exists": True, "holder": None, "can_take": False}
    assert len(state["id"]) == 22 and new_game(client)["id"] != state["id"]
    assert client.get(f"/api/games/{state['id']}").json() == state


def test_the_page_gets_every_position_from_the_servers_board_view(client):
    """The page draws cells, bands and labels where the state says, only scaling them: the cell
    centres are BoardView's (render.py's one layout, the SVG's and the figure's too), and they,
    the labels and the bands are where the page used to compute them itself (its old formulas,
    written out here), so the page looks as it did."""
    gid = new_game(client)["id"]
    client.post(f"/api/games/{gid}/komi", json={"komi": 3})
    client.post(f"/api/games/{gid}/colour", json={"colour": "black"})
    for k in range(40):  # play until a ribbon is claimed (the bot answers; the person plays first legal)
        state = client.get(f"/api/games/{gid}").json()
        if state["chains"] or state["phase"] == "over":
            break
        if state["to_act_is"] == "bot":
            client.post(f"/api/games/{gid}/bot", json={})
        else:
            client.post(f"/api/games/{gid}/move", json={"move": state["legal"][0]})
    old_centre = lambda c, r: (math.sqrt(3) * (c - r / 2), -1.5 * r)  # app.js's old geometry of its own
    game = Game.replay(GameConfig(3, "komi", "standard", komi=3),
                       [e["event"] for e in state["events"] if not e["event"].startswith(("komi", "colour", "swap"))])
    view = BoardView.of(game)
    for i, cell in enumerate(state["cells"]):
        assert (cell["x"], cell["y"]) == view.centres[i] == hex_centre(cell["col"], cell["row"])
        assert (cell["x"], cell["y"]) == pytest.approx(old_centre(cell["col"], cell["row"]), abs=1e-12)
    side = state["options"]["side"]
    expected = [(str(r + 1), "row", old_centre(max(0, r - (side - 1)) - 1, r)) for r in range(2 * side - 1)] + \
               [("ABCDE"[c], "column", old_centre(c, -1 if c < side else c - side)) for c in range(2 * side - 1)]
    assert [(lb["text"], lb["kind"], pytest.approx((lb["x"], lb["y"]), abs=1e-12)) for lb in state["labels"]] == expected
    # The bands: what app.js drew from the ribbons (claimed or limited, two stones or more).
    bands = [{"cells": r["cells"], "owner": r["owner"] or "black"} for r in state["ribbons"]
             if (r["claimed"] or r["limited"]) and len(r["cells"]) > 1]
    assert state["chains"] == bands and bands, state["ribbons"]
    assert client.get(f"/api/games/{gid}/review/{state['move_number']}").json()["chains"] == bands


@pytest.mark.parametrize("body, status, fragment", [
    ({"side": 11}, 400, "side must be in 2..10"),
    ({"side": 4}, 400, "the bot does not play side 4"),
    ({"side": "3"}, 400, "side must be a whole number"),
    ({"side": True}, 400, "side must be a whole number"),
    ({"side": 3.0}, 400, "side must be a whole number"),
    ({"game_type": "go"}, 400, "game_type must be one of komi, no_komi, double"),
    ({"scoring": "area"}, 400, "scoring must be one of standard, longest, quadratic"),
    ({"scoring": 7}, 400, "scoring must be a string"),
    ({"seat": "third"}, 400, "seat must be 'first' or 'second'"),
    ({"komi": 3}, 400, "unknown field 'komi'"),
    ({"seat": "x" * 100}, 400, "seat is too long"),
])
def test_new_game_with_bad_options_is_refused_naming_the_problem(client, body, status, fragment):
    assert fragment in error_of(client.post("/api/games", json=body), status)


@pytest.mark.parametrize("content, ctype, status, fragment", [
    (b"{not json", "application/json", 400, "not valid JSON"),
    (b"[1, 2]", "application/json", 400, "must be a JSON object"),
    (b"\xff\xfe", "application/json", 400, "not valid JSON"),
    (b'{"side": 3}', "text/plain", 415, "Content-Type: application/json"),
    (b'{"side": 3}', "application/x-www-form-urlencoded", 415, "Content-Type: application/json"),
    (b'{"side": ' + b" " * 20000 + b"3}", "application/json", 413, "too large"),
])
def test_malformed_bodies_are_refused(client, content, ctype, status, fragment):
    assert fragment in error_of(client.post("/api/games", content=content, headers={"content-type": ctype}), status)


# ------------------------------------------------------------------------------ whole games


@pytest.mark.parametrize("game_type, seat, colour", [
    ("komi", "first", "white"),      # the person chooses the komi, the bot its colour
    ("komi", "second", "black"),     # the bot chooses the komi, the person a colour
    ("no_komi", "first", "white"),   # the person places Black's stone, the bot keeps White or swaps
    ("no_komi", "second", "black"),  # the bot places Black's stone, the person swaps
    ("double", "first", "white"),
    ("double", "second", "white"),
])
def test_whole_game_against_the_real_bot_matches_the_engine(client, game_type, seat, colour):
    state = new_game(client, game_type=game_type, seat=seat)
    state = play_out(client, state, choose=lambda s: s["legal"][len(s["legal"]) // 2], komi=2, colour=colour)
    check_against_engine(state)
    events = [e["event"] for e in state["events"]]
    if game_type == "komi":
        assert events[0].startswith("komi ") and events[1].startswith("colour ")
        assert state["komi"] == int(events[0].split()[1])
        if seat == "first":
            assert events[0] == "komi 2"
        else:
            assert events[1] == "colour black" and state["colours"]["second"] == "black"
    if game_type == "no_komi":
        assert events[1] in ("swap", "colour white") and state["komi"] == 0
        if seat == "second":
            assert events[1] == "swap" and state["colours"] == {"first": "white", "second": "black"}
    if game_type == "double":
        assert state["button"]["exists"] is False and "button" not in events
        assert state["colours"] == {"first": "black", "second": "white"}
    # The record download replays to the same game.
    record = client.get(f"/api/games/{state['id']}/record")
    assert record.status_code == 200 and record.headers["content-type"].startswith("text/plain")
    assert "attachment" in record.headers["content-disposition"]
    parsed = parse_record(record.text)
    assert texts(parsed.events) == events and parsed.result.winner == state["result"]["winner"]


def test_record_download_is_loadable_by_catena_zero_show(client, tmp_path, capsys):
    state = new_game(client, game_type="no_komi")
    state = play_out(client, state)
    path = tmp_path / "game.txt"
    path.write_bytes(client.get(f"/api/games/{state['id']}/record").content)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    winner = state["result"]["winner"]
    assert (f"{winner} " in out and "wins" in out) if winner else "draw" in out, out
    # A record of a game in progress is valid too (no result yet).
    fresh = new_game(client)
    assert parse_record(client.get(f"/api/games/{fresh['id']}/record").text).events == ()


def test_the_button_can_be_taken_by_the_person_and_shows_in_the_state(client):
    state = new_game(client, seat="second")
    gid = state["id"]
    state = client.post(f"/api/games/{gid}/bot").json()  # the bot's komi
    state = client.post(f"/api/games/{gid}/colour", json={"colour": "black"}).json()  # the person moves first
    assert state["button"]["can_take"] is True and "button" in state["legal"]
    mover = state["to_move"]
    state = client.post(f"/api/games/{gid}/move", json={"move": "Button"}).json()  # any case (R10 UIs)
    assert state["button"] == {"exists": True, "holder": mover, "can_take": False}
    assert state["last_move"] == "button" and state["scores"][mover] >= 0.5
    state = client.post(f"/api/games/{gid}/bot").json()
    assert "button" not in state["legal"]
    assert "already taken" in error_of(client.post(f"/api/games/{gid}/move", json={"move": "button"}), 400)


# ------------------------------------------------------------------------------ refusals leave the game unchanged


def test_events_out_of_turn_or_phase_are_conflicts_and_change_nothing(client):
    state = new_game(client, seat="first")
    gid = state["id"]
    for path, body, fragment in [
        ("/move", {"move": "A1"}, "expects you to choose the komi"),
        ("/colour", {"colour": "black"}, "expects you to choose the komi"),
        ("/bot", None, "it is your turn, not the bot's"),
        ("/undo", None, "nothing to undo"),
    ]:
        assert fragment in error_of(client.post(f"/api/games/{gid}{path}", json=body), 409)
        unchanged(client, gid, state)
    state = client.post(f"/api/games/{gid}/komi", json={"komi": 1}).json()  # now the bot chooses a colour
    for path, body in [("/move", {"move": "A1"}), ("/komi", {"komi": 2}), ("/colour", {"colour": "white"})]:
        assert "it is the bot's turn" in error_of(client.post(f"/api/games/{gid}{path}", json=body), 409)
        unchanged(client, gid, state)


def test_bad_moves_and_choices_are_refused_naming_the_problem_and_change_nothing(client):
    state = new_game(client, seat="first")
    gid = state["id"]
    for body, fragment in [({"komi": 16}, "komi must be a whole number in 0..15"), ({"komi": -1}, "0..15"),
                           ({"komi": "3"}, "komi must be a whole number"), ({"komi": 2.5}, "whole number"),
                           ({}, "missing field 'komi'"), ({"komi": 3, "x": 1}, "unknown field 'x'")]:
        assert fragment in error_of(client.post(f"/api/games/{gid}/komi", json=body), 400)
        unchanged(client, gid, state)
    client.post(f"/api/games/{gid}/komi", json={"komi": 3})
    state = client.post(f"/api/games/{gid}/bot").json()
    if state["to_act_is"] == "bot":
        state = client.post(f"/api/games/{gid}/bot").json()
    occupied = next((c["name"] for c in state["cells"] if c["stone"]), None)  # the bot may have taken the button
    bad = [({"move": "Z9"}, "is not a cell of the side-3 board"), ({"move": "D05"}, "leading zeros"),
           ({"move": ""}, "is not a move"), ({"move": "komi 3"}, "set-up choice"), ({"move": 4}, "must be a string"),
           ({"move": None}, "must be a string"), ({"mvoe": "A1"}, "unknown field 'mvoe'"), ({}, "missing field 'move'")]
    if occupied:
        bad.append(({"move": occupied}, "is occupied"))
    for body, fragment in bad:
        assert fragment in error_of(client.post(f"/api/games/{gid}/move", json=body), 400)
        unchanged(client, gid, state)
    # An R3-illegal cell: play until one exists, then try it.
    for _ in range(10):
        empty_illegal = [c["name"] for c in state["cells"] if not c["stone"] and c["name"] not in state["legal"]]
        if empty_illegal or state["phase"] == "over":
            break
        state = client.post(f"/api/games/{gid}/move", json={"move": state["legal"][0]}).json()
        while state["to_act_is"] == "bot":
            state = client.post(f"/api/games/{gid}/bot").json()
    if state["phase"] != "over":
        assert "illegal" in error_of(client.post(f"/api/games/{gid}/move", json={"move": empty_illegal[0]}), 400)
        unchanged(client, gid, state)


def test_colour_choice_refusals(client):
    state = new_game(client, seat="second")
    gid = state["id"]
    state = client.post(f"/api/games/{gid}/bot").json()  # the bot's komi
    assert state["phase"] == "colour" and state["choice"]["colours"] == ["colour black", "colour white"]
    for body, fragment in [({"colour": "red"}, "colour must be 'black' or 'white'"), ({"colour": 1}, "string")]:
        assert fragment in error_of(client.post(f"/api/games/{gid}/colour", json=body), 400)
        unchanged(client, gid, state)
    state = new_game(client, seat="first", game_type="no_komi")
    assert "button" not in state["legal"]  # R7: not before Black's opening stone
    assert "before Black's first stone" in error_of(
        client.post(f"/api/games/{state['id']}/move", json={"move": "button"}), 400)
    unchanged(client, state["id"], state)


def test_unknown_games_are_404_and_delete_frees_the_slot(client):
    for gid in ("a" * 22, "short", "x" * 300, "%2e%2e"):
        assert "no game with id" in error_of(client.get(f"/api/games/{gid}"), 404)
        assert "no game with id" in error_of(client.post(f"/api/games/{gid}/move", json={"move": "A1"}), 404)
    state = new_game(client)
    assert client.delete(f"/api/games/{state['id']}").json() == {"deleted": state["id"]}
    assert "no game with id" in error_of(client.get(f"/api/games/{state['id']}"), 404)
    assert "no game with id" in error_of(client.delete(f"/api/games/{state['id']}"), 404)


# ------------------------------------------------------------------------------ undo and analysis


def test_undo_takes_back_the_persons_last_event_and_the_bots_replies(client):
    state = new_game(client, seat="first")
    gid = state["id"]
    after_komi = client.post(f"/api/games/{gid}/komi", json={"komi": 3}).json()
    state = client.post(f"/api/games/{gid}/bot").json()
    if state["to_act_is"] == "bot":  # the bot chose Black: it moves first
        state = client.post(f"/api/games/{gid}/bot").json()
    before_move = state
    move = state["legal"][0]
    state = client.post(f"/api/games/{gid}/move", json={"move": move}).json()
    state = client.post(f"/api/games/{gid}/bot").json()
    assert len(state["events"]) == len(before_move["events"]) + 2 and state["can_undo"]
    undone = client.post(f"/api/games/{gid}/undo").json()
    assert undone["events"] == before_move["events"] and undone["cells"] == before_move["cells"]
    assert undone["legal"] == before_move["legal"] and undone["to_act_is"] == "human"
    assert undone["version"] > state["version"]
    # Undo again: back before the komi choice (the person's previous event).
    again = client.post(f"/api/games/{gid}/undo").json()
    assert again["phase"] == "komi" and again["events"] == [] and not again["can_undo"]
    assert "nothing to undo" in error_of(client.post(f"/api/games/{gid}/undo"), 409)
    assert after_komi["komi"] == 3


def test_analysis_gives_the_bots_value_score_and_top_moves(client):
    state = new_game(client, seat="first")
    gid = state["id"]
    assert "komi has not been chosen" in error_of(client.get(f"/api/games/{gid}/analysis"), 409)
    client.post(f"/api/games/{gid}/komi", json={"komi": 3})
    state = client.post(f"/api/games/{gid}/bot").json()
    response = client.get(f"/api/games/{gid}/analysis")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["version"] == state["version"] and body["move_number"] == state["move_number"]
    a = body["analysis"]
    assert -1 <= a["value"] <= 1 and isinstance(a["score"], float) and a["to_move"] == state["to_move"]
    legal = set(client.get(f"/api/games/{gid}").json()["legal"] or Match.replay(
        GameConfig(side=3), evs([e["event"] for e in state["events"]])).game.legal_moves())
    assert a["best"] in legal and a["moves"] and all(m["move"] in legal and m["visits"] >= 1 for m in a["moves"])
    unchanged(client, gid, client.get(f"/api/games/{gid}").json())
    over = play_out(client, state)
    assert "the game is over" in error_of(client.get(f"/api/games/{over['id']}/analysis"), 409)


def test_any_position_of_a_game_is_analysed_after_it_ended_with_ownership_and_the_moves_that_lost(client):
    """Issue 28: Evaluate while reviewing and after the game (``?move=k``), the whole-game analysis
    that fills the graph for both players, each move's loss, and the ownership map."""
    state = new_game(client, seat="second")
    gid = state["id"]
    over = play_out(client, client.post(f"/api/games/{gid}/bot").json())
    n = over["move_number"]
    assert n >= 2
    for bad in ("-1", str(n + 1), "x", "1.5"):
        assert "whole number in 0.." in error_of(client.get(f"/api/games/{gid}/analysis", params={"move": bad}), 400)
    names = [c["name"] for c in over["cells"]]
    for k in range(n + 1):
        body = client.get(f"/api/games/{gid}/analysis", params={"move": k}).json()
        assert body["move_number"] == k
        position = client.get(f"/api/games/{gid}/review/{k}").json()
        assert body["to_move"] == position["to_move"]
        owned = body["ownership"]
        assert list(owned) == names and all(-1 <= v <= 1 for v in owned.values())
        if k < n:
            assert not body["analysis"]["over"] and body["analysis"]["simulations"] >= 1
    # The last position is the result: no search, the exact margin, and the board as its ownership.
    final = body["analysis"]
    assert final["over"] and final["best"] is None and final["simulations"] == 0
    black, white = over["result"]["black"], over["result"]["white"]
    margin = (black - white) if body["to_move"] == "black" else (white - black)
    assert final["score"] == pytest.approx(margin)
    assert final["value"] == (0.0 if over["result"]["winner"] is None else
                              (1.0 if over["result"]["winner"] == body["to_move"] else -1.0))
    stones = {c["name"]: c["stone"] for c in over["cells"]}
    assert owned == {name: (0.0 if stones[name] is None else (1.0 if stones[name] == "black" else -1.0)) for name in names}
    # Every position is on the graph, every move has its loss, by the review's definition.
    after = client.get(f"/api/games/{gid}").json()
    values = {p["move"]: (p["black_value"], p["black_score"]) for p in after["values"]}
    assert sorted(values) == list(range(n + 1))
    assert [loss["move"] for loss in after["losses"]] == list(range(1, n + 1))
    for loss in after["losses"]:
        sign = 1 if loss["colour"] == "black" else -1
        k = loss["move"]
        assert loss["value_loss"] == pytest.approx(max(0, sign * (values[k - 1][0] - values[k][0])))  # never < 0
        assert loss["score_loss"] == pytest.approx(max(0, sign * (values[k - 1][1] - values[k][1])))
    assert values[n][1] == pytest.approx(black - white)  # the graph ends at the result, for Black
    # Without ?move the finished game is still refused: nothing there to search.
    assert "the game is over" in error_of(client.get(f"/api/games/{gid}/analysis"), 409)


# ------------------------------------------------------------------------------ several games at once


def test_concurrent_games_are_isolated_and_each_matches_the_engine(server):
    def one_game(k: int) -> dict:
        with httpx.Client(headers=JSON, base_url=server.url, timeout=120) as c:
            game_type = ("komi", "no_komi", "double")[k % 3]
            state = new_game(c, game_type=game_type, seat=("first", "second")[k % 2])
            return play_out(c, state, choose=lambda s: s["legal"][(k * 7) % len(s["legal"])], komi=k)

    with ThreadPoolExecutor(4) as pool:
        finished = list(pool.map(one_game, range(4)))
    assert len({s["id"] for s in finished}) == 4
    for state in finished:
        check_against_engine(state)


def test_a_slow_bot_on_one_game_does_not_block_another(tmp_path):
    gate, group = threading.Event(), {"calls": 0, "lock": threading.Lock(), "waiting": threading.Event()}
    pool = BotPool([GatedBot(gate, group, seed=0), GatedBot(gate, group, seed=1)])
    with LiveServer(create_app(pool)) as live, httpx.Client(headers=JSON, base_url=live.url, timeout=30) as c:
        slow = new_game(c, game_type="double", seat="second")  # the bot opens: its first move waits
        replies = {}
        thinker = threading.Thread(target=lambda: replies.update(slow=c.post(f"/api/games/{slow['id']}/bot")))
        thinker.start()
        assert group["waiting"].wait(timeout=30)
        started = time.monotonic()
        thinking = c.get(f"/api/games/{slow['id']}").json()
        assert thinking["thinking"] is True and thinking["legal"] == []
        for path, body in [("/move", {"move": "A1"}), ("/undo", None), ("/bot", None)]:
            assert "the bot is thinking" in error_of(c.post(f"/api/games/{slow['id']}{path}", json=body), 409)
        assert "thinking" in error_of(c.get(f"/api/games/{slow['id']}/analysis"), 409)
        # Meanwhile a second game is played to its end, bot moves included, on the other worker.
        other = play_out(c, new_game(c, game_type="komi", seat="first"))
        assert other["phase"] == "over" and c.get("/").status_code == 200
        assert thinker.is_alive() and time.monotonic() - started < 25  # game 1 still thinking
        gate.set()
        thinker.join(timeout=30)
        done = replies["slow"]
        assert done.status_code == 200, done.text
        state = done.json()
        assert state["thinking"] is False and state["move_number"] == 1 and state["events"][0]["by"] == "bot"


def test_the_bots_answer_is_applied_even_if_the_client_went_away(tmp_path):
    gate, group = threading.Event(), {"calls": 0, "lock": threading.Lock(), "waiting": threading.Event()}
    with LiveServer(create_app(BotPool([GatedBot(gate, group)]))) as live, \
            httpx.Client(headers=JSON, base_url=live.url, timeout=30) as c:
        state = new_game(c, game_type="double", seat="second")
        with pytest.raises(httpx.ReadTimeout):
            c.post(f"/api/games/{state['id']}/bot", timeout=0.5)
        assert group["waiting"].wait(timeout=30)
        gate.set()
        for _ in range(200):
            state = c.get(f"/api/games/{state['id']}").json()
            if not state["thinking"]:
                break
            time.sleep(0.05)
        assert state["thinking"] is False and state["move_number"] == 1 and state["to_act_is"] == "human"


@pytest.mark.parametrize("answer, fragment", [("Z9", "which the rules refuse"), (None, "the network exploded")])
def test_a_failing_bot_is_a_500_error_and_the_game_is_unchanged(answer, fragment):
    with LiveServer(create_app(BotPool([BadBot(answer)]))) as live, httpx.Client(headers=JSON, base_url=live.url) as c:
        state = new_game(c, game_type="double", seat="second")
        assert fragment in error_of(c.post(f"/api/games/{state['id']}/bot"), 500)
        unchanged(c, state["id"], state)


def test_live_games_are_bounded_and_expire():
    now = [1000.0]
    app = create_app(BotPool([QuickBot()]), ServerConfig(max_games=3, expire_s=60, abandon_s=30),
                     clock=lambda: now[0])
    with LiveServer(app) as live, httpx.Client(headers=JSON, base_url=live.url) as c:
        ids = []
        for _ in range(3):
            ids.append(new_game(c)["id"])
            now[0] += 1
        c.get(f"/api/games/{ids[0]}")  # seen: now the second game is the one idle longest
        now[0] += 1
        assert "hold games in play" in error_of(c.post("/api/games", json={}), 503)  # none abandoned yet
        now[0] += 30  # all three left 30 s: abandoned, the one idle longest makes room
        fourth = new_game(c)["id"]
        assert len(app.state.web.store) == 3
        assert "no game with id" in error_of(c.get(f"/api/games/{ids[1]}"), 404)
        for gid in (ids[0], ids[2], fourth):
            assert c.get(f"/api/games/{gid}").status_code == 200
        now[0] += 59
        assert c.get(f"/api/games/{fourth}").status_code == 200  # within the hour... of 60 s
        now[0] += 61
        assert c.get(f"/api/games/{fourth}").status_code == 404 and len(app.state.web.store) == 0


def test_a_full_store_of_thinking_games_refuses_new_ones_with_503():
    gate, group = threading.Event(), {"calls": 0, "lock": threading.Lock(), "waiting": threading.Event()}
    app = create_app(BotPool([GatedBot(gate, group)]), ServerConfig(max_games=1, abandon_s=0.001))
    with LiveServer(app) as live, httpx.Client(headers=JSON, base_url=live.url, timeout=30) as c:
        state = new_game(c, game_type="double", seat="second")
        thinker = threading.Thread(target=lambda: c.post(f"/api/games/{state['id']}/bot"))
        thinker.start()
        assert group["waiting"].wait(timeout=30)
        time.sleep(0.01)  # abandoned by the clock, but its bot is thinking: it stays
        assert "hold games in play" in error_of(c.post("/api/games", json={}), 503)
        gate.set()
        thinker.join(timeout=30)
        time.sleep(0.01)
        assert new_game(c)["id"] != state["id"]  # now the abandoned game makes room


# ------------------------------------------------------------------------------ the serve command


@pytest.mark.parametrize("argv, fragment", [
    (["serve", "--side", "9"], "no shipped bot for side 9 komi standard"),  # without --bot: the shipped one
    (["serve", "--bot", "/nonexistent/bot.file"], "does not exist"),
    (["serve", "--bot", "x", "--simulations", "0"], "--simulations must be >= 1"),
    (["serve", "--bot", "x", "--seconds", "-1"], "argument --seconds: must be a time in seconds above 0"),
    (["serve", "--bot", "x", "--simulations", "3", "--seconds", "1"], "not allowed with argument"),
    (["serve", "--bot", "x", "--workers", "0"], "--workers must be >= 1"),
    (["serve", "--bot", "x", "--max-games", "0"], "--max-games must be >= 1"),
    (["serve", "--bot", "x", "--expire-minutes", "0"], "--expire-minutes must be > 0"),
    (["serve", "--bot", "x", "--threads", "0"], "argument --threads: must be in 1..256"),
    (["serve", "--bot", "x", "--max-simulations", "0"], "--max-simulations must be >= 1"),
    (["serve", "--bot", "x", "--max-seconds", "0"], "--max-seconds must be > 0"),
    (["serve", "--bot", "x", "--allow-host", "evil.example/x"], "--allow-host takes a host name"),
])
def test_serve_command_errors_are_one_line(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and fragment in err, err


def test_serve_refuses_a_file_that_is_not_a_bot_and_a_bad_port(tmp_path, capsys, bot_file):
    junk = tmp_path / "junk.bot"
    junk.write_bytes(b"not a bot")
    assert main(["serve", "--bot", str(junk), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "junk.bot" in err, err
    assert main(["serve", "--bot", str(bot_file), "--workers", "1", "--port", "70000"]) == 2
    assert "port must be in 0..65535" in capsys.readouterr().err


def test_server_config_validates_its_fields():
    for bad in ({"max_games": 0}, {"workers": True}, {"expire_s": 0}, {"max_body": -1}, {"max_simulations": 0},
                {"max_seconds": 0}, {"max_seconds": "10"}):
        with pytest.raises(ValueError):
            ServerConfig(**bad)


def test_the_address_printed_is_the_one_listening():
    from catena_zero.web.server import address_to_open, bind

    sock = bind("127.0.0.1", 0)
    try:
        url, reachable = address_to_open(sock)
        assert url == f"http://127.0.0.1:{sock.getsockname()[1]}/" and reachable is False
        assert httpx_free_port_is_listening(sock.getsockname()[1])
    finally:
        sock.close()
    everywhere = bind("0.0.0.0", 0)
    try:
        url, reachable = address_to_open(everywhere)
        assert url.startswith("http://127.0.0.1:") and reachable is True  # serve prints a warning
    finally:
        everywhere.close()
    with pytest.raises(OSError, match="cannot resolve host"):
        bind("no-such-host.invalid", 0)


def httpx_free_port_is_listening(port: int) -> bool:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=5):
        return True


# ----------------------------------------------------------------- for players


def test_finished_game_explains_the_result_as_the_terminal_does(client):
    from catena_zero.game.render import status_lines

    state = play_out(client, new_game(client))
    match = Match.replay(GameConfig(side=3), evs([e["event"] for e in state["events"]]))
    assert state["result"]["lines"] == status_lines(match.game, match)
    assert state["result"]["lines"][1].startswith("standard scoring (R6): black ")


def test_cells_say_who_placed_each_stone_when_and_where_nobody_can_play(client):
    from catena_zero.game.rules import Game

    state = play_out(client, new_game(client, game_type="no_komi"))
    moves = [e["event"] for e in state["events"] if e["event"] not in ("swap", "colour white")]
    replay, placed = Game(GameConfig(side=3, game_type="no_komi")), {}
    for k, move in enumerate(moves, start=1):
        if move != "button":
            placed[move] = (k, replay.to_move)
        replay.play(move)
    for cell in state["cells"]:
        if cell["stone"] is None:
            assert cell["move"] is None and cell["placed"] is None and cell["unplayable"]  # over: all
        else:
            assert (cell["move"], cell["placed"]) == placed[cell["name"]] and not cell["unplayable"]
    # in a running game an empty cell is unplayable exactly where R3 forbids it for good
    gid = new_game(client, game_type="double")["id"]
    state = client.post(f"/api/games/{gid}/move", json={"move": "C3"}).json()
    state = client.post(f"/api/games/{gid}/bot").json()
    game = Game.replay(GameConfig(side=3, game_type="double"), [e["event"] for e in state["events"]])
    dead = {game.spec.names[i] for i in game.unplayable_cells()}
    assert {c["name"] for c in state["cells"] if c["unplayable"]} == dead


def test_review_gives_the_position_after_each_move(client):
    from catena_zero.game.rules import Game

    state = play_out(client, new_game(client))
    gid, moves = state["id"], [e["event"] for e in state["events"]][2:]
    config = GameConfig(side=3, komi=state["komi"])
    for k in (0, 1, len(moves) // 2, len(moves)):
        view = client.get(f"/api/games/{gid}/review/{k}").json()
        game = Game.replay(config, moves[:k])
        assert view["move"] == k and view["moves"] == len(moves)
        assert [c["stone"] for c in view["cells"]] == [game.stone_at(n) for n in game.spec.names]
        assert view["last_move"] == game.last_move and view["scores"] == game.scores()
    assert f"0..{len(moves)}" in error_of(client.get(f"/api/games/{gid}/review/{len(moves) + 1}"), 400)
    assert f"0..{len(moves)}" in error_of(client.get(f"/api/games/{gid}/review/-1"), 400)
    assert f"0..{len(moves)}" in error_of(client.get(f"/api/games/{gid}/review/x"), 400)


def test_komi_advice_is_the_bots_fair_komi(client, bot_file):
    bot = Bot.load(bot_file, simulations=1, device="cpu")
    gid = new_game(client)["id"]
    advice = client.get(f"/api/games/{gid}/komi-advice").json()
    assert advice["komi"] == bot.komi_curve(GameConfig(side=3)).komi
    assert (advice["komi_min"], advice["komi_max"]) == (0, 15)
    assert client.get(f"/api/games/{gid}").json()["komi_advice"] == advice["komi"]
    gid = new_game(client, game_type="no_komi")["id"]
    assert client.get(f"/api/games/{gid}/komi-advice").json()["komi"] is None  # no komi to choose


def test_komi_advice_is_none_for_a_bot_without_a_komi_curve():
    with LiveServer(create_app(BotPool([QuickBot()]))) as live, httpx.Client(headers=JSON, base_url=live.url, timeout=60) as c:
        gid = new_game(c)["id"]
        assert c.get(f"/api/games/{gid}/komi-advice").json()["komi"] is None


def test_strength_is_chosen_within_the_servers_limits(client):
    info = client.get("/api/info").json()
    assert info["strength"] == {"simulations": 2, "seconds": None, "max_simulations": 2000, "max_seconds": 10.0}
    state = new_game(client, simulations=5)
    assert (state["simulations"], state["seconds"]) == (5, None)
    state = client.post(f"/api/games/{state['id']}/komi", json={"komi": 3}).json()
    state = client.post(f"/api/games/{state['id']}/bot").json()  # the colour
    if state["to_act_is"] == "bot":
        state = client.post(f"/api/games/{state['id']}/bot").json()
    analysis = client.get(f"/api/games/{state['id']}/analysis").json()["analysis"]
    assert analysis["simulations"] == 5  # the game's budget, not the server's 2
    assert (new_game(client, seconds=0.5)["seconds"]) == 0.5
    for body, fragment in (({"simulations": 2001}, "simulations must be in 1..2000"),
                           ({"simulations": 0}, "simulations must be in 1..2000"),
                           ({"seconds": 11}, "at most 10"), ({"seconds": "fast"}, "seconds must be a number"),
                           ({"simulations": 3, "seconds": 1}, "not both")):
        assert fragment in error_of(client.post("/api/games", json=body), 400)


def test_the_value_graph_fills_from_the_bots_moves_and_evaluations(client):
    state = new_game(client, game_type="double", seat="second")  # the bot is Black and moves first
    gid = state["id"]
    state = client.post(f"/api/games/{gid}/bot").json()
    assert [p["move"] for p in state["values"]] == [0]  # the bot's search of the empty board
    state = client.post(f"/api/games/{gid}/move", json={"move": state["legal"][0]}).json()
    analysis = client.get(f"/api/games/{gid}/analysis").json()["analysis"]
    state = client.get(f"/api/games/{gid}").json()
    point = [p for p in state["values"] if p["move"] == 2][0]
    # White to move after Black's stone and White's first: the analysis is White's, the graph Black's
    assert point["black_value"] == pytest.approx(-analysis["value"]) and point["black_score"] == pytest.approx(-analysis["score"])
    state = client.post(f"/api/games/{gid}/undo").json()
    assert all(p["move"] <= state["move_number"] for p in state["values"])


def test_one_server_plays_every_bot_it_serves_each_game_by_the_bot_for_its_rules():
    """Issue 28: one serve for every shipped bot. Two bots (side 3 and side 4 stand-ins, each
    counting its moves): the dialog offers both rule sets, the first bot's game is the default,
    and each game's moves come from the bot for its side; at most `workers` think at once."""
    from catena_zero.web.bots import BotPools

    side3, side4 = QuickBot(seed=1, side=3), QuickBot(seed=2, side=4)
    pools = BotPools.of([lambda i: side3, lambda i: side4], 1)
    assert pools.pools[0]._executor is pools.pools[1]._executor  # one set of worker threads
    with LiveServer(create_app(pools, ServerConfig(max_games=8, max_games_per_client=8))) as live, \
            httpx.Client(headers=JSON, base_url=live.url, timeout=60) as client:
        info = client.get("/api/info").json()
        assert info["default"]["side"] == 3
        assert {o["side"] for o in info["supported"]} == {3, 4} and len(info["supported"]) == 18
        for side, bot, other in ((3, side3, side4), (4, side4, side3)):
            before, other_before = bot.calls, other.calls
            state = new_game(client, side=side, game_type="double", seat="second")  # the bot is Black
            assert state["options"]["side"] == side and state["to_act_is"] == "bot"
            state = client.post(f"/api/games/{state['id']}/bot").json()
            assert state["move_number"] == 1 and bot.calls == before + 1 and other.calls == other_before
        assert "the bot does not play side 5" in error_of(client.post("/api/games", json={"side": 5}), 400)


@pytest.mark.parametrize("game_type", ["komi", "no_komi"])
def test_a_variation_branches_from_a_reviewed_position_and_leaves_the_game_as_it_was(bot_file, game_type):
    """Issue 28: play from a reviewed position into a branch. The variation holds the game's
    events up to that move (the set-up choices made before it too), the same seats and budget;
    moves in it never touch the game, which the page returns to. (A server of its own: each
    variation takes a game slot, and the module's server is full of other tests' games.)"""
    pool = BotPool.of(lambda i: Bot.load(bot_file, simulations=2, device="cpu", seed=i), 1)
    with LiveServer(create_app(pool, ServerConfig(max_games=16, max_games_per_client=16))) as live, \
            httpx.Client(headers=JSON, base_url=live.url, timeout=120) as client:
        _variations(client, game_type)


def _variations(client, game_type: str) -> None:
    state = play_out(client, new_game(client, game_type=game_type))
    gid, n = state["id"], state["move_number"]
    before = client.get(f"/api/games/{gid}").json()
    events = [e["event"] for e in state["events"]]
    for k in (0, 1, n // 2, n):
        response = client.post(f"/api/games/{gid}/variation", json={"move": k})
        assert response.status_code == 201, response.text
        branch = response.json()
        assert branch["id"] != gid and branch["variation_of"] == {"game": gid, "move": k}
        assert branch["move_number"] == k and branch["human"] == state["human"]
        # The engine's own count of the events that lead to move k (set-up choices included).
        expected, seen = [], 0
        for event in events:
            is_move = not (event == "swap" or event.startswith(("komi ", "colour ")))
            if is_move and seen == k:
                break
            seen += is_move
            expected.append(event)
        assert [e["event"] for e in branch["events"]] == expected
        assert branch["cells"] == client.get(f"/api/games/{gid}/review/{k}").json()["cells"]
        if branch["phase"] == "play" and branch["to_act_is"] == "human":
            moved = client.post(f"/api/games/{branch['id']}/move", json={"move": branch["legal"][0]})
            assert moved.status_code == 200 and moved.json()["move_number"] == k + 1
        elif branch["phase"] == "play":
            assert client.post(f"/api/games/{branch['id']}/bot").json()["move_number"] == k + 1
    unchanged(client, gid, before)
    assert new_game(client)["variation_of"] is None
    assert f"move must be a whole number in 0..{n}" in error_of(
        client.post(f"/api/games/{gid}/variation", json={"move": n + 1}), 400)
    assert "move must be a whole number" in error_of(client.post(f"/api/games/{gid}/variation", json={"move": "2"}), 400)
    assert "missing field 'move'" in error_of(client.post(f"/api/games/{gid}/variation", json={}), 400)
    assert "no game with id" in error_of(client.post("/api/games/" + "x" * 22 + "/variation", json={"move": 0}), 404)


def engine_answer(bot, match: Match) -> str:
    """What ``catena-zero engine`` answers for ``bot`` at ``match``'s position (its options, komi and
    moves given by commands), as the R10 event the page would record."""
    from catena_zero.bot.engine import Engine
    from catena_zero.game.match import Phase

    engine = Engine(bot)

    def ok(line: str) -> str:
        reply = engine.handle(line)
        assert reply.ok, (line, reply.text)
        return reply.text

    config = match.config
    ok(f"options side {config.side} type {config.game_type} scoring {config.scoring}")
    if match.phase is Phase.KOMI:
        return f"komi {ok('genkomi')}"
    if config.game_type_rule.has_komi:
        ok(f"komi {match.game.config.komi}")
    replay = Game(match.game.config)
    for move in match.game.history:
        ok(f"play {replay.to_move} {move}")
        replay.play(move)
    if match.phase is Phase.COLOUR:
        colour = ok("gencolour")
        return "swap" if colour == "swap" else f"colour {colour}"
    return ok(f"genmove {match.game.to_move}")


def test_the_page_and_the_engine_play_the_bots_next_turn(bot_file):
    """One way a bot acts: at every turn of the bot in a game on the page, its event is what
    ``players.next_turn`` gives the same bot file (the position's generator, its own budget), and
    what the engine answers in that position (genkomi, gencolour, genmove)."""
    from catena_zero.bot.players import next_turn

    bot = Bot.load(bot_file, simulations=2, device="cpu")
    pool = BotPool([Bot.load(bot_file, simulations=2, device="cpu")])
    asked = set()
    with LiveServer(create_app(pool)) as live, httpx.Client(headers=JSON, base_url=live.url, timeout=60) as c:
        for game_type in ("komi", "no_komi", "double"):
            for seat in ("first", "second"):
                state = new_game(c, game_type=game_type, seat=seat)
                config, gid = GameConfig(side=3, game_type=game_type), state["id"]
                while state["phase"] != "over":
                    if state["to_act_is"] == "bot":
                        match = Match.replay(config, evs(e["event"] for e in state["events"]))
                        expected = str(next_turn(bot, match).event)
                        assert engine_answer(bot, match) == expected, (game_type, texts(match.events))
                        response = c.post(f"/api/games/{gid}/bot")
                        asked.add((game_type, str(match.phase)))
                    elif state["phase"] == "komi":
                        response = c.post(f"/api/games/{gid}/komi", json={"komi": 3})
                    elif state["phase"] == "colour":
                        response = c.post(f"/api/games/{gid}/colour", json={"colour": "white"})
                    else:
                        response = c.post(f"/api/games/{gid}/move", json={"move": state["legal"][-1]})
                    assert response.status_code == 200, response.text
                    if state["to_act_is"] == "bot":
                        assert response.json()["events"][-1]["event"] == expected
                    state = response.json()
    # Every kind of turn was asked: the komi, a colour, a swap or keep, moves under every game type.
    assert asked >= {("komi", "komi"), ("komi", "colour"), ("no_komi", "colour"), ("komi", "play"),
                     ("no_komi", "play"), ("double", "play")}, asked
