"""The HTTP layer: a Starlette app serving the page and the JSON API over sessions and the bot pool.

Routes (every API answer is JSON; every refusal is ``{"error": "one line naming the problem"}``
with a 4xx status, or 503 when the server is full, and the game is unchanged):

    GET    /                           the page (static/index.html)
    GET    /static/{name}              the page's style and its script's ES modules (app.js imports the rest)
    GET    /docs/RULES.md              the full rules (a source checkout's docs/RULES.md), as plain text
    GET    /api/info                   the bot's default options and every option set it supports
    POST   /api/games                  new game {side, game_type, scoring, seat, simulations | seconds} -> 201
                                       (simulations or seconds: the bot's budget per move, within the limits of /api/info)
    GET    /api/games/{id}             the state (board, legal moves, ribbons, scores, button, result)
    DELETE /api/games/{id}             end the game, free its slot
    POST   /api/games/{id}/komi        {komi: K}           the person's komi choice (R7)
    POST   /api/games/{id}/colour      {colour: "black"|"white"}  the person's colour choice (no_komi: black = swap)
    POST   /api/games/{id}/move        {move: "D5"|"button"}      the person's move
    POST   /api/games/{id}/undo        take back the person's last event and the bot's replies
    POST   /api/games/{id}/bot         the bot acts once (komi, colour, swap or a move); the state after it
    GET    /api/games/{id}/analysis    the bot's evaluation of the position and its ownership map (kept
                                       for the value graph); ?move=k: of the position after k moves
                                       (0..moves), while reviewing and after the game too
    GET    /api/games/{id}/komi-advice the bot's fair komi for this game (R7): {komi: K or null, ...}
    GET    /api/games/{id}/review/{k}  the position after the first k moves (0..moves), for review
    GET    /api/games/{id}/record      the game record file, as a download; ?variations=ID,... saves those
                                       variations with it (catena-record 2, a tree)

Before any route, ``guard.Guard`` refuses requests for another ``Host`` (DNS rebinding), state-changing
requests that are not ``Content-Type: application/json`` or come from another site (CSRF), bodies over
the limit, and requests beyond the cap in flight: see guard.py.

Files: the page's files (``static/*.html``, ``*.css``, ``*.js``, as pyproject's package data ships
them) are read from the package once, when the app is built, and served from memory by name; no
request names a path on disk, so none can read or write a file (the server writes nothing at all).

Shape: ``create_app`` only wires; the handlers below are plain module-level functions of the
request, reading one frozen ``AppState`` record from ``request.app.state.web``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Optional

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..bot.players import Budget, next_turn, own_fair_komi
from ..errors import UserError
from ..game.match import Phase
from ..game.options import GAME_TYPES, SCORINGS, GameConfig, RuleSet, komi_range
from ..game.records import format_record
from ..game.rules import Game
from ..messages import one_line
from .bots import ANALYSIS, BotPool, BotPools
from .guard import Guard, scope_client
from .sessions import SEATS, ApiError, GameSession, ServerConfig, SessionStore, check_strength
from .views import (MAX_VARIATIONS, GameView, InfoView, PositionView, StrengthView,
                    record_with_variations, supported_options, to_json)

log = logging.getLogger(__name__)

# The page's files by suffix. Scripts are ES modules: browsers refuse a module served as anything
# but a JavaScript type (and ``nosniff`` makes every type strict).
STATIC_TYPES = {
    "html": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
}
# The page needs nothing from elsewhere; the policy makes the browser refuse it if it tried.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}
API_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
MAX_TEXT = 40  # longest string field accepted ("colour", "no_komi", "D10", ...)


@dataclass(frozen=True)
class Field:
    """One field of a request body: its JSON type and whether it may be left out."""

    kind: type  # int, float (a JSON number: whole or not) or str
    required: bool = True


def load_static() -> dict[str, bytes]:
    """The page's files (every ``.html``, ``.css`` and ``.js`` of the package's ``static`` folder:
    the page and the ES modules it imports), read once, never from a path a request names."""
    folder = resources.files(__package__) / "static"
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.is_file() and _suffix(entry.name) in STATIC_TYPES}


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ""


@dataclass(frozen=True)
class AppState:
    """What the handlers read, built once by ``create_app`` and kept on ``app.state.web``: the
    handlers are plain functions of (request, this record), so none closes over anything."""

    pools: BotPools  # every bot served; a game is played by the pool for its rules
    store: SessionStore  # the live games
    config: ServerConfig
    static: dict[str, bytes]  # file name -> bytes (``load_static``)
    info: InfoView  # GET /api/info; its ``default`` and ``supported`` also check new games


def create_app(pool: BotPool | BotPools, config: ServerConfig = ServerConfig(),
               clock: Optional[Callable[[], float]] = None) -> Starlette:
    """The app for one bot pool, or for several (``BotPools``: every rule set any of them plays,
    each game played by the pool for its rules); ``clock`` (monotonic seconds) lets tests drive expiry.
    It only wires: the state record, the routes to the module's handlers, the guard."""
    pools = pool if isinstance(pool, BotPools) else BotPools([pool])
    store = SessionStore(config, clock) if clock is not None else SessionStore(config)
    bot = pools.reference
    info = InfoView(default=RuleSet.of(bot.game_config),
                    supported=supported_options(*(p.reference for p in pools.pools)), seats=SEATS,
                    komi_ranges={s: komi_range(s) for s in SCORINGS},
                    max_games=config.max_games, expire_s=float(config.expire_s),
                    strength=StrengthView.of(bot, config))
    app = Starlette(routes=ROUTES, exception_handlers=EXCEPTION_HANDLERS, lifespan=_lifespan)
    app.add_middleware(Guard, config=config)  # Host, cross-site and content-type checks; requests in flight
    app.state.web = AppState(pools=pools, store=store, config=config, static=load_static(), info=info)
    return app


def _web(request: Request) -> AppState:
    return request.app.state.web


def _state(session: GameSession, status: int = 200) -> JSONResponse:
    return JSONResponse(to_json(GameView.of(session)), status_code=status, headers=API_HEADERS)


def _session(request: Request) -> GameSession:
    return _web(request).store.get(request.path_params["game_id"])


async def read_body(request: Request, fields: dict[str, Field]) -> dict[str, Any]:
    """The JSON object of the body, checked against ``fields``; an empty body is ``{}``. The
    guard has already checked the content type (JSON) and the size, and read the body whole."""
    body = await request.body()
    data: Any = {}
    if body.strip():
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ApiError(400, f"the body is not valid JSON: {one_line(exc)[:200]}") from None
        except RecursionError:  # 15 KB of "[": json recurses once per level
            raise ApiError(400, "the body is not valid JSON for this API: nested too deeply") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    for key, value in data.items():
        spec = fields.get(key)
        if spec is None:
            known = ", ".join(fields) if fields else "none: send an empty body or {}"
            raise ApiError(400, f"unknown field {key[:MAX_TEXT]!r} in the body (known fields: {known})")
        if spec.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ApiError(400, f"{key} must be a whole number, got {json.dumps(value)[:MAX_TEXT]}")
        if spec.kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ApiError(400, f"{key} must be a number, got {json.dumps(value)[:MAX_TEXT]}")
        if spec.kind is str:
            if not isinstance(value, str):
                raise ApiError(400, f"{key} must be a string, got {json.dumps(value)[:MAX_TEXT]}")
            if len(value) > MAX_TEXT:
                raise ApiError(400, f"{key} is too long ({len(value)} characters; at most {MAX_TEXT})")
    for key, spec in fields.items():
        if spec.required and key not in data:
            raise ApiError(400, f"missing field {key!r} in the body")
    return data


# ---------------------------------------------------------------------- page


async def page(request: Request) -> Response:
    return Response(_web(request).static["index.html"], media_type=STATIC_TYPES["html"], headers=PAGE_HEADERS)


# The full rules, which the page's Rules dialog links: read from a source checkout's docs/ (a fixed
# path, never one a request names); an installed package without it answers one line.
RULES_FILE = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"


async def rules(request: Request) -> Response:
    if not RULES_FILE.is_file():
        raise ApiError(404, "docs/RULES.md is not installed with this copy: read it in the catena-zero repository")
    return Response(RULES_FILE.read_bytes(), media_type="text/plain; charset=utf-8", headers=PAGE_HEADERS)


async def static_file(request: Request) -> Response:
    name, static = request.path_params["name"], _web(request).static
    if name not in static or name == "index.html":
        files = ", ".join(n for n in static if n != "index.html")
        raise ApiError(404, f"no such file: {name[:MAX_TEXT]!r} (the page's files are {files})")
    return Response(static[name], media_type=STATIC_TYPES[_suffix(name)], headers=PAGE_HEADERS)


# ---------------------------------------------------------------------- games


async def get_info(request: Request) -> JSONResponse:
    return JSONResponse(to_json(_web(request).info), headers=API_HEADERS)


async def new_game(request: Request) -> JSONResponse:
    web = _web(request)
    default, supported = web.info.default, web.info.supported
    data = await read_body(request, {"side": Field(int, False), "game_type": Field(str, False),
                                     "scoring": Field(str, False), "seat": Field(str, False),
                                     "simulations": Field(int, False), "seconds": Field(float, False)})
    simulations, seconds = data.get("simulations"), data.get("seconds")
    check_strength(simulations, seconds, web.config)
    seat = data.get("seat", "first")
    if seat not in SEATS:
        raise ApiError(400, f"seat must be 'first' or 'second', got {seat!r}")
    game_type = data.get("game_type", default.game_type)
    scoring = data.get("scoring", default.scoring)
    if game_type not in GAME_TYPES:
        raise ApiError(400, f"game_type must be one of {', '.join(GAME_TYPES)}; got {game_type!r}")
    if scoring not in SCORINGS:
        raise ApiError(400, f"scoring must be one of {', '.join(SCORINGS)}; got {scoring!r}")
    try:
        options = GameConfig(side=data.get("side", default.side), game_type=game_type, scoring=scoring)
    except UserError as exc:
        raise ApiError(400, f"bad options: {exc}") from None
    wanted = RuleSet.of(options)
    if wanted not in supported:
        plays = "; ".join(f"side {o.side} {o.game_type} {o.scoring}" for o in supported[:6])
        more = f" and {len(supported) - 6} more (GET /api/info)" if len(supported) > 6 else ""
        raise ApiError(400, f"the bot does not play side {options.side}, game type {options.game_type}, "
                            f"{options.scoring} scoring; it plays: {plays}{more}")
    session = web.store.create(options, seat, scope_client(request.scope))
    session.set_strength(simulations, seconds, web.config)
    return _state(session, status=201)


async def get_game(request: Request) -> JSONResponse:
    return _state(_session(request))


async def delete_game(request: Request) -> JSONResponse:
    _web(request).store.delete(request.path_params["game_id"])
    return JSONResponse({"deleted": request.path_params["game_id"]}, headers=API_HEADERS)


async def komi(request: Request) -> JSONResponse:
    session = _session(request)
    data = await read_body(request, {"komi": Field(int)})
    session.choose_komi(data["komi"])
    return _state(session)


async def colour(request: Request) -> JSONResponse:
    session = _session(request)
    data = await read_body(request, {"colour": Field(str)})
    session.choose_colour(data["colour"])
    return _state(session)


async def move(request: Request) -> JSONResponse:
    session = _session(request)
    data = await read_body(request, {"move": Field(str)})
    session.play(data["move"])
    return _state(session)


async def variation(request: Request) -> JSONResponse:
    """A new game from the position after ``move`` moves of this one (a branch to try a
    line in; this game is unchanged): 201 with the new game's state."""
    session = _session(request)
    data = await read_body(request, {"move": Field(int)})
    return _state(_web(request).store.fork(session, data["move"], scope_client(request.scope)), status=201)


async def undo(request: Request) -> JSONResponse:
    session = _session(request)
    await read_body(request, {})
    session.undo()
    return _state(session)


async def bot_turn(request: Request) -> JSONResponse:
    web, session = _web(request), _session(request)
    await read_body(request, {})
    version = session.begin_bot_turn()
    snap = session.match.copy()  # the worker's own: the event loop keeps the session's
    budget = Budget(session.simulations, session.seconds)

    async def think() -> None:
        try:
            answer = await web.pools.for_game(session.config).run(lambda b: next_turn(b, snap, budget=budget, analysis=True))
            session.apply_bot(answer.event, version)
            a = answer.analysis
            if a is not None and snap.game is not None:  # the graph: the bot's view where it moved
                session.record_value(snap.game.move_number, a.to_move, a.value, a.score)
        finally:
            session.end_bot_turn()
            session.last_seen = web.store.now()

    # The think belongs to the game, not to the request: if the client goes away, the
    # bot's answer is still applied (shield), so the game never stays half-done.
    task = asyncio.ensure_future(think())
    task.add_done_callback(_log_failure)
    try:
        await asyncio.shield(task)
    except Exception as exc:  # the bot failed or answered an illegal event: the game is unchanged
        return JSONResponse({"error": f"the bot failed: {one_line(exc) or type(exc).__name__}"},
                            status_code=500, headers=API_HEADERS)
    return _state(session)


async def analysis(request: Request) -> JSONResponse:
    web, session = _web(request), _session(request)
    match = session.match
    if session.thinking:
        raise ApiError(409, "the bot is thinking about this game; ask for its evaluation after its move")
    if match.game is None:
        raise ApiError(409, "nothing to evaluate yet: the komi has not been chosen (R7)")
    moves = match.game.move_number
    text = request.query_params.get("move")
    if text is None:
        if match.phase is Phase.OVER:
            raise ApiError(409, "the game is over: see the result (or ask for ?move=k, a position to review)")
        game = match.game.copy()
    else:
        if not (text.isascii() and text.isdigit()) or int(text) > moves:
            raise ApiError(400, f"the move to evaluate after must be a whole number in 0..{moves} "
                                f"(the moves played), got {text[:MAX_TEXT]!r}")
        game = Game.replay(match.game.config, match.game.history[:int(text)])
    version = session.version
    if game.is_over:
        result, owned = _final_analysis(game)
    elif not web.pools.for_game(session.config).reference.capabilities.analysis:
        raise ApiError(409, "this bot does not analyse positions")
    else:
        budget = Budget(session.simulations, session.seconds)
        try:
            analysed, owned = await web.pools.for_game(session.config).run(
                lambda b: (b.analyze(game, simulations=budget.simulations, seconds=budget.seconds),
                           b.ownership(game)), ANALYSIS)  # after the games' moves
        except Exception as exc:
            return JSONResponse({"error": f"the bot failed to evaluate: {one_line(exc) or type(exc).__name__}"},
                                status_code=500, headers=API_HEADERS)
        result = {**to_json(analysed), "over": False}
    if session.version == version:
        session.record_value(game.move_number, game.to_move, result["value"], result["score"])
    body = {"version": version, "move_number": game.move_number, "to_move": game.to_move,
            "analysis": result,
            # Black's view, cell name -> [-1, 1]: who the network expects to own each cell at the end
            "ownership": {name: round(float(v), 3) for name, v in zip(game.spec.names, owned)}}
    return JSONResponse(body, headers=API_HEADERS)


async def komi_advice(request: Request) -> JSONResponse:
    web, session = _web(request), _session(request)
    c = session.config
    lo, hi = komi_range(c.scoring)
    if c.game_type_rule.has_komi and session.komi_advice is None:
        options = GameConfig(side=c.side, game_type=c.game_type, scoring=c.scoring)
        try:
            session.komi_advice = await web.pools.for_game(options).run(lambda b: own_fair_komi(b, options), ANALYSIS)
        except Exception as exc:
            return JSONResponse({"error": f"the bot failed to estimate the komi: "
                                          f"{one_line(exc) or type(exc).__name__}"},
                                status_code=500, headers=API_HEADERS)
    return JSONResponse({"komi": session.komi_advice, "komi_min": lo, "komi_max": hi,
                         "game_type": c.game_type}, headers=API_HEADERS)


async def review(request: Request) -> JSONResponse:
    session = _session(request)
    text = request.path_params["move"]
    game = session.match.game
    moves = 0 if game is None else game.move_number
    if not (text.isascii() and text.isdigit()) or int(text) > moves:
        raise ApiError(400, f"the move to review must be a whole number in 0..{moves} "
                            f"(the moves played), got {text[:MAX_TEXT]!r}")
    return JSONResponse(to_json(PositionView.of(session, int(text))), headers=API_HEADERS)


async def record(request: Request) -> Response:
    """The game's record; ``?variations=ID,ID,...`` (its variations, each after the line it branches
    from) saves them with it as a tree (views.record_with_variations)."""
    web, session = _web(request), _session(request)
    c = session.config
    name = f"catena-side{c.side}-{c.game_type}-{c.scoring}-{session.id[:8]}.txt"
    ids = [i for i in request.query_params.get("variations", "").split(",") if i]
    if len(ids) > MAX_VARIATIONS:
        raise ApiError(400, f"at most {MAX_VARIATIONS} variations in one record, got {len(ids)}")
    tree = record_with_variations(session, [web.store.get(i) for i in ids])
    return Response(format_record(tree), media_type="text/plain; charset=utf-8",
                    headers={**API_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})


# ---------------------------------------------------------------------- errors


async def api_error(request: Request, exc: ApiError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status, headers=API_HEADERS)


async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
    if exc.status_code == 404:
        message = f"no such page or API route: {request.url.path[:80]!r} (the API is under /api/, see /api/info)"
    elif exc.status_code == 405:
        allowed = exc.headers.get("Allow", "") if exc.headers else ""
        message = f"method {request.method} is not allowed on {request.url.path[:80]!r} (allowed: {allowed})"
    else:
        message = str(exc.detail)
    return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)


async def client_gone(request: Request, exc: ClientDisconnect) -> Response:
    # The client left mid-request (a partial body, or the request deadline closed it): nobody
    # reads an answer, and it is no error of the server's, so nothing is logged.
    return Response(status_code=400)


async def server_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse({"error": f"internal server error: {type(exc).__name__}"}, status_code=500)


_GAME = "/api/games/{game_id}"
ROUTES = (  # every handler is a module-level function of (request); its state is request.app.state.web
    Route("/", page, methods=["GET"]),
    Route("/static/{name}", static_file, methods=["GET"]),
    Route("/docs/RULES.md", rules, methods=["GET"]),
    Route("/api/info", get_info, methods=["GET"]),
    Route("/api/games", new_game, methods=["POST"]),
    Route(_GAME, get_game, methods=["GET"]),
    Route(_GAME, delete_game, methods=["DELETE"]),
    Route(_GAME + "/komi", komi, methods=["POST"]),
    Route(_GAME + "/colour", colour, methods=["POST"]),
    Route(_GAME + "/move", move, methods=["POST"]),
    Route(_GAME + "/undo", undo, methods=["POST"]),
    Route(_GAME + "/variation", variation, methods=["POST"]),
    Route(_GAME + "/bot", bot_turn, methods=["POST"]),
    Route(_GAME + "/analysis", analysis, methods=["GET"]),
    Route(_GAME + "/record", record, methods=["GET"]),
    Route(_GAME + "/komi-advice", komi_advice, methods=["GET"]),
    Route(_GAME + "/review/{move}", review, methods=["GET"]),
)
EXCEPTION_HANDLERS = {ApiError: api_error, HTTPException: http_error, ClientDisconnect: client_gone,
                      Exception: server_error}


def _final_analysis(game: Game) -> tuple[dict[str, Any], list[float]]:
    """A finished game's "analysis" in the shape of the bot's: its result for the player who would
    move (R6: value +1 / -1 / 0, the score margin), no search; its ownership, the board itself."""
    scores = game.scores()
    other = "white" if game.to_move == "black" else "black"
    winner = game.winner
    value = 0.0 if winner is None else (1.0 if winner == game.to_move else -1.0)
    owned = [0.0 if stone is None else (1.0 if stone == "black" else -1.0)
             for stone in (game.stone_at(name) for name in game.spec.names)]
    return {"to_move": game.to_move, "value": value, "score": float(scores[game.to_move] - scores[other]),
            "best": None, "moves": [], "simulations": 0, "seconds": 0.0, "over": True}, owned


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette):
    """Stop the bot workers when the server stops."""
    try:
        yield
    finally:
        app.state.web.pools.close()


def _log_failure(task: "asyncio.Future[None]") -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("bot turn failed: %s", task.exception())
