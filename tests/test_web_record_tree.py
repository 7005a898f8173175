"""The page's record download carries the game's variations as a tree (``GET .../record?variations=``,
catena-record 2): each variation after the line it branches from, replayed from its branch point."""

from __future__ import annotations

import httpx

from catena_zero.bot import Bot
from catena_zero.game.records import parse_record
from catena_zero.web.app import create_app
from catena_zero.web.bots import BotPool
from catena_zero.web.sessions import ServerConfig
from test_web_api import bot_file, error_of, new_game, play_out  # noqa: F401 (bot_file: a fixture)
from web_helpers import JSON, LiveServer


def branch(client, gid: str, move: int) -> dict:
    """A variation of ``gid`` after ``move`` with one more move played in it: the bot's (asked for,
    as the page does) when it is the bot's turn, else the person's."""
    response = client.post(f"/api/games/{gid}/variation", json={"move": move})
    assert response.status_code == 201, response.text
    state = response.json()
    if state["phase"] == "play":
        if state["to_act_is"] == "bot":
            response = client.post(f"/api/games/{state['id']}/bot")
        else:
            response = client.post(f"/api/games/{state['id']}/move", json={"move": state["legal"][0]})
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def test_the_record_saves_a_tree_of_variations_and_refuses_a_stranger(bot_file):
    pool = BotPool.of(lambda i: Bot.load(bot_file, simulations=2, device="cpu", seed=i), 1)
    with LiveServer(create_app(pool, ServerConfig(max_games=16, max_games_per_client=16))) as live, \
            httpx.Client(headers=JSON, base_url=live.url, timeout=120) as client:
        game = play_out(client, new_game(client, game_type="komi"))
        gid = game["id"]
        one = branch(client, gid, 2)  # from the game after move 2, one move played in it
        two = branch(client, one["id"], 3)  # from variation 1 after its move 3
        plain = client.get(f"/api/games/{gid}/record").text
        assert plain.startswith("catena-record 1\n") and "variation" not in plain
        text = client.get(f"/api/games/{gid}/record", params={"variations": f"{one['id']},{two['id']}"}).text
        record = parse_record(text)
        assert text.startswith("catena-record 2\n")
        assert [(v.parent, v.move) for v in record.variations] == [(0, 2), (1, 3)]
        assert [str(e) for e in record.line_events(1)] == [e["event"] for e in client.get(f"/api/games/{one['id']}").json()["events"]]
        assert [str(e) for e in record.line_events(2)] == [e["event"] for e in client.get(f"/api/games/{two['id']}").json()["events"]]
        # A child before its parent, or another game, is not this game's variation: one line, 409.
        assert "is not a variation of this game" in error_of(
            client.get(f"/api/games/{gid}/record", params={"variations": f"{two['id']},{one['id']}"}), 409)
        other = new_game(client)
        assert "is not a variation of this game" in error_of(
            client.get(f"/api/games/{gid}/record", params={"variations": other["id"]}), 409)
        assert "no game with id" in error_of(client.get(f"/api/games/{gid}/record", params={"variations": "x" * 22}), 404)
