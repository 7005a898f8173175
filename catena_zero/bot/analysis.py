"""The JSON-lines analysis engine (``catena-zero analysis``): positions in, the bot's view out.

Programs that analyse many games (a collection's review, a test of a new network) want what
KataGo's analysis engine gives them: one JSON query a line on stdin, naming a game and the
positions of it to analyse, and one JSON answer a line per position on stdout, with the value,
the score, the top moves and, if asked, the ownership map. Queries are answered in order; the
positions of one query are searched as ONE batch (``Bot.analyze_many``: one network call per
simulation serves them all), so a whole game costs about what one position does times its
length divided by the batch's speed-up, not a search per position called one after another.

Query (a JSON object on one line; only ``id`` is required):
    id            a string, echoed in every answer to the query
    side, game_type, scoring   the rules (R1, R7/R8, R6); default: the bot's game
    komi          a whole number in the scoring's range (R6), game type komi only; default 0
    moves         the game's moves from the empty board in R10 notation (cells, "button"), as a
                  record's move list has them; the set-up events (komi, colour, swap) are not
                  moves: the colours of the stones and the komi say all the search needs
    turns         the move numbers after which to analyse (0 .. len(moves)); default: the last
    simulations   per position (default: the bot's; at most the engine's --max-simulations)
    top           moves reported per position (default 10, at most 50)
    ownership     true: add the ownership map, Black's view, cell -> [-1, 1] (default false)

Answer per turn, in the order the query asked (values for the player to move, as ``analyze``; a
position's "value" and "score" are those of the move it plays, "best": ``Bot.Analysis``):
    {"id", "turn", "to_move", "value", "score", "best", "moves": [{"move", "visits", "value",
     "score", "prior"}, ...], "net_value", "net_score", "simulations", "seconds"[, "ownership"]}
A finished position (no move to search) answers {"id", "turn", "over": true, "winner",
"scores"}. A bad query (not JSON, an unknown field, an illegal move, rules the bot does not
play) answers one line {"id": ID or null, "error": "..."} naming the problem, and the engine goes
on with the next query. Blank lines are ignored; the engine ends at the end of its input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, TextIO

from ..errors import UserError
from ..fileio import MAX_LINE_CHARS, bounded_lines
from ..game.options import GameConfig
from ..game.rules import Game
from ..messages import one_line

if TYPE_CHECKING:
    from .bot import Bot

MAX_TOP = 50  # moves reported per position
MAX_TURNS = 1000  # positions one query may ask for (a side-10 game has at most 272 moves)
DEFAULT_MAX_SIMULATIONS = 10_000
_FIELDS = ("id", "side", "game_type", "scoring", "komi", "moves", "turns", "simulations", "top", "ownership")


class QueryError(UserError):
    """A query that cannot be answered (one line naming the problem)."""


@dataclass(frozen=True)
class Query:
    """A checked query: the game, the turns to analyse, the options."""

    id: str
    game: GameConfig
    moves: tuple[str, ...]
    turns: tuple[int, ...]
    simulations: Optional[int]
    top: int
    ownership: bool


def _whole(data: dict, key: str, default: Optional[int], lo: int, hi: int) -> Optional[int]:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise QueryError(f"{key} must be a whole number in {lo}..{hi}, got {json.dumps(value)[:80]}")
    return value


def query_object(line: str) -> dict:
    """The JSON object of one input line; ``QueryError`` (one line) if it is not one."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise QueryError(f"not a JSON object: {one_line(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise QueryError(f"a query is a JSON object, got {type(data).__name__}")
    return data


def parse_query(data: dict, bot: "Bot", max_simulations: int) -> Query:
    """The ``Query`` of a query's JSON object (``query_object``); ``QueryError`` (one line) if
    anything is wrong with it."""
    query_id = data.get("id")
    if not isinstance(query_id, str) or not query_id or len(query_id) > 200:
        raise QueryError("id must be a non-empty string of at most 200 characters")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise QueryError(f"unknown field {unknown[0][:80]!r} (known: {', '.join(_FIELDS)})")
    default = bot.game_config
    try:
        game = GameConfig(side=data.get("side", default.side), game_type=data.get("game_type", default.game_type),
                          scoring=data.get("scoring", default.scoring), komi=data.get("komi", 0))
    except UserError as exc:
        raise QueryError(f"bad rules: {exc}") from None
    if not bot.supports(game):
        plays = ", ".join(str(r) for r in bot.trained_for)
        raise QueryError(f"the bot does not play side {game.side} {game.game_type} {game.scoring} (it plays: {plays})")
    moves = data.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) and len(m) <= 10 for m in moves):
        raise QueryError("moves must be a list of moves in R10 notation (cells such as \"D4\", or \"button\")")
    turns = data.get("turns", [len(moves)])
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_TURNS:
        raise QueryError(f"turns must be a list of 1..{MAX_TURNS} move numbers")
    for turn in turns:
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= len(moves):
            raise QueryError(f"turns must be move numbers in 0..{len(moves)} (the moves given), "
                             f"got {json.dumps(turn)[:80]}")
    ownership = data.get("ownership", False)
    if not isinstance(ownership, bool):
        raise QueryError(f"ownership must be true or false, got {json.dumps(ownership)[:80]}")
    return Query(id=query_id, game=game, moves=tuple(moves), turns=tuple(turns),
                 simulations=_whole(data, "simulations", None, 1, max_simulations),
                 top=_whole(data, "top", 10, 1, MAX_TOP), ownership=ownership)


def answer_query(query: Query, bot: "Bot") -> list[dict[str, Any]]:
    """One answer per turn of ``query`` (module docstring); the open positions in one batch."""
    game = Game(query.game)
    positions: dict[int, Game] = {0: game.copy()}
    for number, move in enumerate(query.moves, start=1):
        try:
            game.play(move)
        except UserError as exc:  # IllegalMove and notation errors name the move
            raise QueryError(f"move {number} ({move[:10]!r}): {one_line(exc)}") from None
        positions[number] = game.copy()
    wanted = sorted(set(query.turns))
    open_turns = [t for t in wanted if not positions[t].is_over]
    analyses = dict(zip(open_turns, bot.analyze_many([positions[t] for t in open_turns], query.top,
                                                     simulations=query.simulations))) if open_turns else {}
    answers = []
    for turn in query.turns:
        position = positions[turn]
        if position.is_over:
            answers.append({"id": query.id, "turn": turn, "over": True, "winner": position.winner,
                            "scores": {k: float(v) for k, v in position.scores().items()}})
            continue
        a = analyses[turn]
        answer: dict[str, Any] = {
            "id": query.id, "turn": turn, "to_move": a.to_move, "value": round(a.value, 4),
            "score": round(a.score, 3), "best": a.best,
            "moves": [{"move": m.move, "visits": m.visits, "value": round(m.value, 4), "score": round(m.score, 3),
                       "prior": round(m.prior, 4)} for m in a.moves],
            "net_value": round(a.net_value, 4), "net_score": round(a.net_score, 3),
            "simulations": a.simulations, "seconds": round(a.seconds, 3)}
        if query.ownership:
            answer["ownership"] = {name: round(v, 3) for name, v in zip(position.spec.names, bot.ownership(position))}
        answers.append(answer)
    return answers


def run_analysis(bot: "Bot", stdin: TextIO, stdout: TextIO, max_simulations: int = DEFAULT_MAX_SIMULATIONS) -> int:
    """Answer every query of ``stdin`` on ``stdout`` until the input ends; returns 0."""
    for line in bounded_lines(stdin, MAX_LINE_CHARS):
        if line is not None and not line.strip():
            continue
        query_id = None
        try:
            if line is None:
                raise QueryError(f"a query line longer than {MAX_LINE_CHARS:,} characters")
            data = query_object(line)
            given = data.get("id")
            query_id = given[:200] if isinstance(given, str) else None  # for an error answer's id
            query = parse_query(data, bot, max_simulations)
            answers = answer_query(query, bot)
        except (UserError, ValueError) as exc:
            answers = [{"id": query_id, "error": one_line(exc) or type(exc).__name__}]
        for answer in answers:
            stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()
    return 0

