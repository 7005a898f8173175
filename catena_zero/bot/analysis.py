"""The JSON-lines analysis engine (``catena-zero analysis``): KataGo's analysis engine, for Catena.

Programs that analyse many games (a collection's review, a test of a new network) speak KataGo's
analysis-engine protocol (lightvector/KataGo, docs/Analysis_Engine.md): one JSON query a line on
stdin, naming a game and the turns of it to analyse, and one JSON answer a line per turn on
stdout. This engine takes the same queries and gives the same answers, with the differences a
hex board and Catena's rules force (docs/ENGINES.md lists them). Queries are answered in order;
the turns of one query are searched as ONE batch (``Bot.analyze_many``: one network call per
simulation serves them all).

Query (one JSON object a line; KataGo's fields, and ``side``):
    id                 a string, echoed in every answer to the query (required)
    moves              the game's moves from the empty board: [["B", "D4"], ["W", "C3"], ...] as
                       KataGo's, cells in R10 notation or "button" (R4); the colour must be the one
                       to move (Catena has no pass, and under game type double a colour moves
                       twice, R8); a bare "D4" is accepted too. The set-up events (komi, colour,
                       swap, R7) are not moves: the stones' colours and the komi say all a search needs
    rules              "TYPE-SCORING" (game type komi/no_komi/double, R7/R8; scoring standard/
                       longest/quadratic, R6), e.g. "komi-standard", or {"gameType": T,
                       "scoring": S}; a Go rule name ("chinese", "tromp-taylor", ...) is answered
                       with a warning and the bot's rules; default: the bot's game
    boardXSize, boardYSize   the board's grid, 2 side - 1 columns and rows (R1); or ``side``
    komi               White's komi, a whole number in the scoring's range (R6; 8.0 is 8, 7.5 is
                       refused); without it, the bot's fair komi under game type komi (R7: what it
                       would name as first player), 0 under no_komi and double
    analyzeTurns       the turns to analyse, 0 .. len(moves) (default: the last)
    maxVisits          simulations per position (default: the bot's; at most --max-simulations)
    includeOwnership   true: add ``ownership``
    reportDuringSearchEvery   seconds: also answer with ``isDuringSearch`` true while searching
    action             "query_version", "clear_cache", "terminate": answered as KataGo does
KataGo's fields that only tune its own search or outputs it has and this engine lacks (priority,
overrideSettings, includePolicy, ...) and fields it does not know are answered with a warning,
{"warning", "field", "id"}, and the query goes on; those that would change the position
(initialStones, avoidMoves, ...) are refused.

Answer, one per turn in the order asked, values from Black's side (KataGo's
``reportAnalysisWinratesAs = BLACK``; ``--report-as`` changes it):
    {"id", "isDuringSearch", "turnNumber", "moveInfos": [{"move", "visits", "winrate",
     "scoreLead", "scoreMean", "prior", "order", "pv"}, ...], "rootInfo": {"winrate",
     "scoreLead", "scoreMean", "visits", "currentPlayer", "rawWinrate", "rawLead", "komi"}
     [, "ownership"]}
``winrate`` is P(win), a draw counting half; ``scoreLead`` (and ``scoreMean``, its KataGo alias)
the expected final margin (R6), komi and button included; ``order`` 0 is the move the bot plays,
and rootInfo's values are that move's (``Bot.Analysis``); ``ownership`` is the board's grid row
by row from the top row (KataGo's order), 0 off the hexagon. A finished position (no move to
search) answers ``moveInfos`` [], the exact result in ``rootInfo`` (visits 0) and
``"gameOver": true``. A bad query answers one line {"error", "field", "id"} naming the problem
(just {"error"} when it has no id), and the engine goes on with the next query. Blank lines are
ignored; the engine ends at the end of its input.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TextIO

from .. import __version__
from ..errors import UserError
from ..fileio import MAX_LINE_CHARS, bounded_lines
from ..game.options import GAME_TYPES, SCORINGS, GameConfig, RuleSet, komi_range
from ..game.rules import Game
from ..messages import one_line

if TYPE_CHECKING:
    from .bot import Analysis, Bot

MAX_TURNS = 1000  # positions one query may ask for (a side-10 game has at most 272 moves)
DEFAULT_MAX_SIMULATIONS = 10_000
REPORT_FIRST_SIMULATIONS = 16  # the first during-search report's search; each next one doubles
REPORT_AS = ("BLACK", "WHITE", "SIDETOMOVE")  # KataGo's reportAnalysisWinratesAs
_FIELDS = ("id", "moves", "rules", "boardXSize", "boardYSize", "side", "komi", "analyzeTurns", "maxVisits",
           "includeOwnership", "reportDuringSearchEvery", "action", "terminateId", "turnNumbers")
# KataGo's fields that tune its own search or ask for outputs this engine lacks: a warning, not an error.
_IGNORED = ("priority", "priorities", "overrideSettings", "rootPolicyTemperature", "rootFpuReductionMax",
            "includePolicy", "includePVVisits", "includeMovesOwnership", "includeOwnershipStdev",
            "includeMovesOwnershipStdev", "includeNoResultValue")
# KataGo's fields that would change the position or the moves searched: refused, never ignored.
_REFUSED = {"initialStones": "a Catena position is its moves from the empty board (give them in moves)",
            "avoidMoves": "the search considers every legal move", "allowMoves": "the search considers every legal move",
            "whiteHandicapBonus": "Catena has no handicap stones"}
_GO_RULES = ("tromp-taylor", "chinese", "chinese-ogs", "chinese-kgs", "japanese", "korean", "stone-scoring", "aga",
             "bga", "new-zealand", "aga-button")
_COLOUR_LETTERS = {"B": "black", "W": "white"}
_ACTIONS = ("query_version", "clear_cache", "terminate")


class QueryError(UserError):
    """A query that cannot be answered (one line naming the problem, and the field)."""

    def __init__(self, message: str, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Query:
    """A checked query: the game, the turns to analyse, the options, what to warn about."""

    id: str
    game: GameConfig
    moves: tuple[str, ...]
    turns: tuple[int, ...]
    simulations: Optional[int]
    ownership: bool
    report_every: Optional[float]  # reportDuringSearchEvery, seconds
    warnings: tuple[tuple[str, str], ...] = ()  # (field, message)


def _dump(value: Any) -> str:
    return json.dumps(value)[:80]


def _whole(data: dict, key: str, lo: int, hi: int) -> Optional[int]:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise QueryError(f"{key} must be a whole number in {lo}..{hi}, got {_dump(value)}", key)
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


def _rules(data: dict, default: GameConfig, warnings: list) -> tuple[str, str]:
    """(game type, scoring) of ``rules``."""
    rules = data.get("rules")
    if rules is None:
        return default.game_type, default.scoring
    if isinstance(rules, dict):
        game_type, scoring = rules.get("gameType", default.game_type), rules.get("scoring", default.scoring)
    elif isinstance(rules, str) and rules.lower() in _GO_RULES:
        warnings.append(("rules", f"{rules[:40]!r} are Go's rules: analysed under the bot's "
                                  f"{default.game_type}-{default.scoring} (Catena's: TYPE-SCORING, e.g. komi-standard)"))
        return default.game_type, default.scoring
    elif isinstance(rules, str) and "-" in rules:
        game_type, scoring = rules.rsplit("-", 1)
    else:
        raise QueryError(f"rules must be \"TYPE-SCORING\" (e.g. komi-standard) or {{\"gameType\", \"scoring\"}}, "
                         f"got {_dump(rules)}", "rules")
    if game_type not in GAME_TYPES or scoring not in SCORINGS:
        raise QueryError(f"rules: game type must be one of {', '.join(GAME_TYPES)} and scoring one of "
                         f"{', '.join(SCORINGS)}, got {_dump(rules)}", "rules")
    return game_type, scoring


def _side(data: dict, default: int) -> int:
    """The board side of ``side`` or ``boardXSize``/``boardYSize`` (a grid of 2 side - 1)."""
    side = _whole(data, "side", 2, 10)
    sizes = [data[k] for k in ("boardXSize", "boardYSize") if k in data]
    if sizes:
        x = _whole(data, "boardXSize", 3, 19) if "boardXSize" in data else None
        y = _whole(data, "boardYSize", 3, 19) if "boardYSize" in data else None
        grid = {v for v in (x, y) if v is not None}
        if len(grid) != 1 or next(iter(grid)) % 2 == 0:
            raise QueryError(f"boardXSize and boardYSize: a hex board of side n is a grid of 2n - 1 columns and "
                             f"rows (R1), an odd number, the same for both; got {_dump(sizes)}", "boardXSize")
        from_grid = (next(iter(grid)) + 1) // 2
        if side is not None and side != from_grid:
            raise QueryError(f"side {side} and a grid of {2 * from_grid - 1} (side {from_grid}) disagree", "side")
        side = from_grid
    return default if side is None else side


def _komi(data: dict, lo: int, hi: int) -> Optional[int]:
    """``komi`` as a whole number (8 or 8.0), None if absent; QueryError for 7.5, -1, 2000."""
    komi = data.get("komi")
    if komi is None:
        return None
    if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not math.isfinite(komi):
        raise QueryError(f"komi must be a number, got {_dump(komi)}", "komi")
    if komi < 0:
        raise QueryError(f"komi {komi:g} is negative: R6's komi is White's, at least 0", "komi")
    if komi != int(komi):
        raise QueryError(f"komi {komi:g} is not a whole number: R6's komi is a whole number of points "
                         "(the button's half point breaks ties)", "komi")
    if not lo <= komi <= hi:
        raise QueryError(f"komi must be in {lo}..{hi} for this scoring (R6), got {komi:g}", "komi")
    return int(komi)


def _moves(data: dict) -> tuple[list[str], list[Optional[str]]]:
    """The moves' cells and the colours named with them (None for a bare move)."""
    moves = data.get("moves", [])
    bad = QueryError("moves must be a list of [\"B\" or \"W\", move] pairs (moves in R10 notation: cells such as "
                     "\"D4\", or \"button\")", "moves")
    if not isinstance(moves, list):
        raise bad
    cells, colours = [], []
    for move in moves:
        colour = None
        if isinstance(move, list) and len(move) == 2 and all(isinstance(m, str) for m in move):
            colour = _COLOUR_LETTERS.get(move[0].upper())
            if colour is None:
                raise QueryError(f"a move's player must be \"B\" or \"W\", got {_dump(move[0])}", "moves")
            move = move[1]
        if not isinstance(move, str) or len(move) > 10:
            raise bad
        if move.lower() == "pass":
            raise QueryError(f"move {len(cells) + 1}: there is no pass in Catena: a turn places a stone or takes "
                             "the button (R4)", "moves")
        cells.append(move)
        colours.append(colour)
    return cells, colours


def parse_query(data: dict, bot_for: "Callable[[GameConfig], Bot]", max_simulations: int,
                fair_komi: "Callable[[Bot, GameConfig], int]") -> tuple[Query, "Bot"]:
    """The ``Query`` of a query's JSON object (``query_object``) and the bot for its rules
    (``bot_for``: QueryError if none plays them); ``QueryError`` (one line, the field) if anything
    is wrong with it. ``fair_komi``: the komi of a query without one, under game type komi."""
    query_id = data.get("id")
    if not isinstance(query_id, str) or not query_id or len(query_id) > 200:
        raise QueryError("id must be a non-empty string of at most 200 characters", "id")
    warnings = _field_warnings(data)
    default = bot_for(None).game_config
    game_type, scoring = _rules(data, default, warnings)
    side = _side(data, default.side)
    try:
        rules = GameConfig(side=side, game_type=game_type, scoring=scoring)
    except UserError as exc:
        raise QueryError(f"bad rules: {exc}", "rules") from None
    bot = bot_for(rules)
    komi = _komi(data, *komi_range(scoring))
    has_komi = rules.game_type_rule.has_komi
    if not has_komi and komi:
        raise QueryError(f"game type {game_type} has no komi (R7, R8): only komi 0", "komi")
    if komi is None:
        komi = fair_komi(bot, rules) if has_komi else 0
    game = GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi)
    cells, colours = _moves(data)
    turns = _turns(data, len(cells))
    ownership = data.get("includeOwnership", False)
    if not isinstance(ownership, bool):
        raise QueryError(f"includeOwnership must be true or false, got {_dump(ownership)}", "includeOwnership")
    every = data.get("reportDuringSearchEvery")
    if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float))
                              or not 0 < every < math.inf):
        raise QueryError(f"reportDuringSearchEvery must be a positive number of seconds, got {_dump(every)}",
                         "reportDuringSearchEvery")
    query = Query(id=query_id, game=game, moves=tuple(cells), turns=turns,
                  simulations=_whole(data, "maxVisits", 1, max_simulations), ownership=ownership,
                  report_every=None if every is None else float(every), warnings=tuple(warnings))
    _check_colours(query, colours)
    return query, bot


def _field_warnings(data: dict) -> list[tuple[str, str]]:
    """(field, warning) for each field the engine does not use; QueryError for a refused one."""
    warnings: list[tuple[str, str]] = []
    for key in data:
        if key in _REFUSED:
            if data[key] not in (None, [], 0, "0"):
                raise QueryError(f"{key} is not supported: {_REFUSED[key]}", key)
        elif key in _IGNORED:
            warnings.append((key, f"{key} is not used by this engine (docs/ENGINES.md)"))
        elif key == "initialPlayer":
            if data[key] != "B":
                raise QueryError("initialPlayer must be \"B\": Black moves first (R4)", key)
        elif key not in _FIELDS:
            warnings.append((key[:80], "unexpected or unused field"))
    return warnings


def _turns(data: dict, moves: int) -> tuple[int, ...]:
    """The query's ``analyzeTurns`` (by default the position after every move given)."""
    turns = data.get("analyzeTurns", [moves])
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_TURNS:
        raise QueryError(f"analyzeTurns must be a list of 1..{MAX_TURNS} turn numbers", "analyzeTurns")
    for turn in turns:
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= moves:
            raise QueryError(f"analyzeTurns must be turn numbers in 0..{moves} (the moves given), "
                             f"got {_dump(turn)}", "analyzeTurns")
    return tuple(turns)


def _check_colours(query: Query, colours: Sequence[Optional[str]]) -> None:
    """QueryError unless every move's named colour is the one to move then."""
    game = Game(query.game)
    for number, (move, colour) in enumerate(zip(query.moves, colours), start=1):
        if colour is not None and not game.is_over and colour != game.to_move:
            raise QueryError(f"move {number} ({move[:10]!r}) is given to {colour}, but {game.to_move} is to move "
                             f"(R4; under game type double a colour places two stones, R8)", "moves")
        try:
            game.play(move)
        except UserError as exc:  # IllegalMove and notation errors name the move
            raise QueryError(f"move {number} ({move[:10]!r}): {one_line(exc)}", "moves") from None


def ownership_grid(game: Game, black_view: Sequence[float], view: str) -> list[float]:
    """[G * G] ownership on the board's grid (G = 2 side - 1 columns and rows, R1) in KataGo's
    order, row by row from the top row, each left to right; 0 off the hexagon. ``black_view``:
    per cell in notation order, +1 Black's (``Bot.ownership``); ``view``: whose side it is told from."""
    spec = game.spec
    g = 2 * game.config.side - 1
    sign = 1.0 if view == "black" else -1.0
    grid = [0.0] * (g * g)
    for (column, row), value in zip(spec.coords, black_view):
        grid[(g - 1 - int(row)) * g + int(column)] = round(sign * float(value), 4) + 0.0
    return grid


def _view(report_as: str, to_move: str) -> str:
    return to_move if report_as == "SIDETOMOVE" else report_as.lower()


def _answer(query: Query, turn: int, position: Game, analysis: "Optional[Analysis]", bot: "Bot", report_as: str,
            during: bool) -> dict[str, Any]:
    """One turn's answer (module docstring)."""
    head: dict[str, Any] = {"id": query.id, "isDuringSearch": during, "turnNumber": turn}
    view = _view(report_as, position.to_move)
    if analysis is None:  # the game is over: the exact result
        scores = position.scores()
        margin = float(scores["black"] - scores["white"])
        winrate = 0.5 if position.winner is None else float(position.winner == "black")
        if view == "white":
            winrate, margin = 1 - winrate, -margin
        return {**head, "moveInfos": [], "gameOver": True,
                "rootInfo": {"winrate": winrate, "scoreLead": margin, "scoreMean": margin, "visits": 0,
                             "currentPlayer": position.to_move[0].upper(), "komi": query.game.komi}}
    flip = view != analysis.to_move

    def winrate(value: float) -> float:
        w = (value + 1) / 2
        return round(1 - w if flip else w, 4)

    def lead(score: float) -> float:
        return round(-score if flip else score, 3)

    infos = [{"move": m.move, "visits": m.visits, "winrate": winrate(m.value), "scoreLead": lead(m.score),
              "scoreMean": lead(m.score), "prior": round(m.prior, 4), "order": order, "pv": list(m.pv or (m.move,))}
             for order, m in enumerate(analysis.moves)]
    answer = {**head, "moveInfos": infos,
              "rootInfo": {"winrate": winrate(analysis.value), "scoreLead": lead(analysis.score),
                           "scoreMean": lead(analysis.score), "visits": analysis.simulations,
                           "currentPlayer": analysis.to_move[0].upper(), "rawWinrate": winrate(analysis.net_value),
                           "rawLead": lead(analysis.net_score), "komi": query.game.komi}}
    if query.ownership:
        answer["ownership"] = ownership_grid(position, bot.ownership(position), view)
    return answer


def answer_query(query: Query, bot: "Bot", report_as: str = "BLACK",
                 emit: Optional[Callable[[dict], None]] = None) -> list[dict[str, Any]]:
    """One final answer per turn of ``query`` (module docstring), the open positions in one batch.
    With ``reportDuringSearchEvery`` and ``emit``, searches of 16, 32, ... simulations come first
    (each batched, each below the query's budget), and their answers, ``isDuringSearch`` true,
    go to ``emit`` once that many seconds have passed since the query began or the last report:
    the bot's search keeps no tree between calls, so a report is a smaller search of its own."""
    import time

    game = Game(query.game)
    positions: dict[int, Game] = {0: game.copy()}
    for number, move in enumerate(query.moves, start=1):
        game.play(move)  # checked by parse_query
        positions[number] = game.copy()
    open_turns = sorted({t for t in query.turns if not positions[t].is_over})
    budget = query.simulations or bot.simulations or bot.header.search.num_simulations
    top = positions[0].spec.num_actions

    def search(simulations: int) -> dict[int, "Analysis"]:
        found = bot.analyze_many([positions[t] for t in open_turns], top, simulations=simulations) if open_turns else []
        return dict(zip(open_turns, found))

    if query.report_every is not None and emit is not None and open_turns:
        last, simulations = time.monotonic(), REPORT_FIRST_SIMULATIONS
        while simulations < budget:
            partial = search(simulations)
            if time.monotonic() - last >= query.report_every:
                for turn in query.turns:
                    if turn in partial:
                        emit(_answer(query, turn, positions[turn], partial[turn], bot, report_as, during=True))
                last = time.monotonic()
            simulations *= 2
    analyses = search(budget)
    return [_answer(query, turn, positions[turn], analyses.get(turn), bot, report_as, during=False)
            for turn in query.turns]


def _action(data: dict) -> dict[str, Any]:
    """KataGo's special action queries: the query echoed (and the version for query_version)."""
    action = data.get("action")
    if action not in _ACTIONS:
        raise QueryError(f"action must be one of {', '.join(_ACTIONS)}, got {_dump(action)}", "action")
    if action == "query_version":
        return {**data, "version": __version__, "git_hash": "<omitted>"}
    # clear_cache: the bot keeps no cache; terminate: every earlier query is answered already
    # (queries are answered in order, each before the next is read).
    return dict(data)


class BotChooser:
    """The bot for a query's rules: the engine's own when it plays them, else ``bot_for``'s (the
    shipped bot for them, when no bot file was named), as ``engine`` switches on ``boardsize``;
    and each bot's fair komi per rule set, found once."""

    def __init__(self, bot: "Bot", bot_for: "Optional[Callable[[GameConfig], Optional[Bot]]]" = None) -> None:
        self.bot = bot
        self._bot_for = bot_for
        self._komi: dict[tuple[int, RuleSet], int] = {}

    def __call__(self, config: Optional[GameConfig]) -> "Bot":
        if config is None or self.bot.capabilities.plays(config):
            return self.bot
        other = self._bot_for(config) if self._bot_for is not None else None
        if other is None or not other.capabilities.plays(config):
            plays = ", ".join(str(r) for r in self.bot.trained_for)
            raise QueryError(f"the bot does not play side {config.side} {config.game_type} {config.scoring} "
                             f"(it plays: {plays}{'' if self._bot_for is None else '; no shipped bot does'})", "rules")
        return other

    def fair_komi(self, bot: "Bot", config: GameConfig) -> int:
        key = (id(bot), RuleSet.of(config))
        if key not in self._komi:
            self._komi[key] = bot.choose_komi(config)
        return self._komi[key]


def run_analysis(bot: "Bot", stdin: TextIO, stdout: TextIO, max_simulations: int = DEFAULT_MAX_SIMULATIONS,
                 bot_for: "Optional[Callable[[GameConfig], Optional[Bot]]]" = None, report_as: str = "BLACK") -> int:
    """Answer every query of ``stdin`` on ``stdout`` until the input ends; returns 0."""
    if report_as not in REPORT_AS:
        raise ValueError(f"report_as must be one of {REPORT_AS}, got {report_as!r}")
    chooser = BotChooser(bot, bot_for)

    def emit(answer: dict) -> None:
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()

    for line in bounded_lines(stdin, MAX_LINE_CHARS):
        if line is not None and not line.strip():
            continue
        query_id = None
        try:
            if line is None:
                raise QueryError(f"a query line longer than {MAX_LINE_CHARS:,} characters")
            data = query_object(line)
            given = data.get("id")
            query_id = given[:200] if isinstance(given, str) and given else None  # for an error answer's id
            if "action" in data:
                answers = [_action(data)]
            else:
                query, chosen = parse_query(data, chooser, max_simulations, chooser.fair_komi)
                for field, message in query.warnings:
                    emit({"warning": message, "field": field, "id": query.id})
                answers = answer_query(query, chosen, report_as, emit)
        except (UserError, ValueError) as exc:
            error: dict[str, Any] = {"error": one_line(exc) or type(exc).__name__}
            field = getattr(exc, "field", None)
            if field is not None:
                error["field"] = field
            if query_id is not None:
                error["id"] = query_id
            answers = [error]
        for answer in answers:
            emit(answer)
    return 0
