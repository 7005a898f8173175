"""What the API sends: frozen records of a session's state, turned into JSON by ``to_json``.

``GameView.of(session)`` reads everything the page shows from the session once (the board after
claims, legal moves, ribbons with their claimed status, scores, button, result, who acts), so
the HTTP layer never reaches into the rules. The records are plain data: ``to_json`` is
``dataclasses.asdict`` with tuples as lists.

Board geometry is sent, not recomputed by the page: each cell's 0-based (column, row) (spec.py,
R1) and its centre (x, y) in cell radii, from ``BoardView`` (``render.hex_centre``, the layout
the SVG and the matplotlib figure draw too: rows horizontal, row 1 at the bottom, each row half
a cell left of the one below); the claimed chains the page links, from ``BoardView.chains``;
and where the page writes the row numbers and column letters (``LabelView``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..bot.review import Judged, MoveReview
from ..game.match import Match, Phase
from ..game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, RuleSet, komi_range
from ..game.records import Record, Variation, events_through_move, record_of
from ..game.render import BoardView, hex_centre, status_lines
from ..game.rules import Game
from ..game.spec import COLUMN_LETTERS
from .sessions import ApiError, GameSession, ServerConfig


@dataclass(frozen=True)
class CellView:
    name: str  # "D5" (R10)
    col: int  # 0-based column (A = 0)
    row: int  # 0-based row (1 = 0)
    stone: Optional[str]  # "black", "white" or None
    claimed: bool  # the stone is in a claimed ribbon (R5; R8's end claim)
    unplayable: bool  # empty, and nobody can ever place here again (R3; every empty cell once over)
    move: Optional[int]  # the move number (1-based) that placed the stone; None when empty
    placed: Optional[str]  # the colour that placed it: differs from ``stone`` when a claim took it (R5)
    x: float  # the cell's centre in cell radii (centre to corner), y down: BoardView.centres
    y: float


@dataclass(frozen=True)
class ChainView:
    """A claimed ribbon of two or more stones (R5; R8's end claim), which the page links by a band."""

    cells: tuple[str, ...]  # in chain order
    owner: str  # its colour (a claimed ribbon is one colour)


@dataclass(frozen=True)
class LabelView:
    """A coordinate the page writes beside the board: a row number left of its row's first cell,
    a column letter below its column's lowest cell; (x, y) is that off-board place's centre, in
    cell radii as ``CellView``'s."""

    text: str  # "1", "A"
    kind: str  # "row" or "column"
    x: float
    y: float


@dataclass(frozen=True)
class RibbonView:
    cells: tuple[str, ...]  # in chain order
    length: int
    black: int
    white: int
    limited: bool
    claimed: bool
    owner: Optional[str]  # majority colour, None on a tie


@dataclass(frozen=True)
class ButtonView:
    exists: bool  # False in double (R8)
    holder: Optional[str]  # "black"/"white" once taken (after the end: R6's assignment)
    can_take: bool  # the person may take it now


@dataclass(frozen=True)
class ChoiceView:
    """The set-up choice the player to act must make (R7); None in play."""

    kind: str  # "komi" or "colour"
    komi_min: Optional[int]  # komi: the scoring's range (R6)
    komi_max: Optional[int]
    colours: tuple[str, ...]  # colour: the events open, e.g. ("colour black", "colour white") or ("colour white", "swap")


@dataclass(frozen=True)
class EventView:
    event: str  # R10 notation: "komi 7", "colour white", "swap", "D5", "button"
    seat: str  # "first" or "second"
    by: str  # "human" or "bot"


@dataclass(frozen=True)
class ResultView:
    winner: Optional[str]  # "black", "white", None for a draw (R8)
    winner_seat: Optional[str]  # "first"/"second", None for a draw
    black: float
    white: float
    human_won: Optional[bool]  # None for a draw
    lines: tuple[str, ...]  # how the result comes about, as the terminal prints it (render.status_lines)

    @classmethod
    def of(cls, match: Match, human: str) -> "ResultView":
        """The result of ``match``, which is over, as ``human``'s seat sees it."""
        game = match.game
        scores, winner = game.scores(), game.winner
        return cls(winner=winner, winner_seat=None if winner is None else match.player_of(winner),
                   black=float(scores["black"]), white=float(scores["white"]),
                   human_won=None if winner is None else match.player_of(winner) == human,
                   lines=tuple(status_lines(game, match)))


@dataclass(frozen=True)
class GameView:
    """The whole state of one game as the page sees it (``GET /api/games/{id}``)."""

    id: str
    options: RuleSet  # sent as {side, game_type, scoring}
    komi: Optional[int]  # None until chosen (game type komi, R7)
    human: str  # the person's seat
    bot: str  # the bot's seat
    colours: dict[str, Optional[str]]  # seat -> colour, None until chosen (R7)
    phase: Phase  # komi, colour, play, over (Match.phase; a word in JSON)
    to_act: Optional[str]  # seat that acts now, None once over
    to_act_is: Optional[str]  # "human", "bot", None once over
    to_move: Optional[str]  # colour to move once the game exists (R10: after the end, who would move next)
    second_stone: bool  # double (R8): the next stone is the second of a turn
    thinking: bool  # the bot is choosing its next event
    choice: Optional[ChoiceView]
    cells: tuple[CellView, ...]  # [N] in notation order
    chains: tuple[ChainView, ...]  # the claimed chains the board links
    labels: tuple[LabelView, ...]  # the row numbers and column letters around the board
    legal: tuple[str, ...]  # moves open to the person now (cells, then "button"); () when not their move
    ribbons: tuple[RibbonView, ...]
    button: ButtonView
    scores: Optional[dict[str, float]]  # R6 (current; final once over); None before the komi choice
    last_move: Optional[str]
    move_number: int  # moves of the game played (stones and the button)
    events: tuple[EventView, ...]
    result: Optional[ResultView]
    can_undo: bool
    version: int  # bumped by every change
    simulations: Optional[int]  # the bot's budget per move chosen for this game; both None: the bot's own
    seconds: Optional[float]
    komi_advice: Optional[int]  # the bot's fair komi (R7) once asked (GET .../komi-advice); None before
    values: tuple["ValuePoint", ...]  # the bot's value and score after k moves, k ascending (the graph)
    losses: tuple["MoveLoss", ...]  # each move whose positions before and after were both evaluated
    variation_of: Optional["VariationView"]  # the game this one branches from (POST .../variation), None if none

    @classmethod
    def of(cls, s: GameSession) -> "GameView":
        match, config = s.match, s.config
        game = match.game
        board = game if game is not None else Game(config)  # an empty board before the komi choice
        view = BoardView.of(board)
        phase = match.phase
        human_to_act = s.to_act == s.human and not s.thinking
        legal = tuple(game.legal_moves()) if phase is Phase.PLAY and human_to_act else ()
        return cls(
            id=s.id,
            options=RuleSet.of(config),
            komi=None if game is None else game.config.komi,
            human=s.human,
            bot=s.bot,
            colours={seat: match.colour_of(seat) for seat in ("first", "second")},
            phase=phase,
            to_act=s.to_act,
            to_act_is=None if s.to_act is None else ("human" if s.to_act == s.human else "bot"),
            to_move=None if game is None else game.to_move,
            second_stone=bool(game is not None and game.pending_second),
            thinking=s.thinking,
            choice=_choice(s),
            cells=cell_views(view),
            chains=chain_views(view),
            labels=edge_labels(config.side),
            legal=legal,
            ribbons=ribbon_views(board),
            button=ButtonView(
                exists=config.game_type_rule.has_button,
                holder=None if game is None else game.button_holder,
                can_take="button" in legal,
            ),
            scores=None if game is None else {k: float(v) for k, v in game.scores().items()},
            last_move=None if game is None else game.last_move,
            move_number=0 if game is None else game.move_number,
            events=tuple(
                EventView(event=str(e), seat=a, by="human" if a == s.human else "bot")
                for e, a in zip(match.events, s.actors)
            ),
            result=ResultView.of(match, s.human) if phase is Phase.OVER else None,
            can_undo=s.can_undo,
            version=s.version,
            simulations=s.simulations,
            seconds=s.seconds,
            komi_advice=s.komi_advice,
            values=tuple(ValuePoint(k, v, sc) for k, (v, sc) in sorted(s.values.items())),
            losses=move_losses(board, s.values),
            variation_of=None if s.variation_of is None else VariationView(*s.variation_of),
        )


@dataclass(frozen=True)
class VariationView:
    """Where a variation leaves its game: that game's id and the move after which it branches."""

    game: str
    move: int


@dataclass(frozen=True)
class ValuePoint:
    """The bot's view of the position after ``move`` moves, for Black (P(win) - P(loss), score margin)."""

    move: int
    black_value: float
    black_score: float


@dataclass(frozen=True)
class MoveLoss:
    """What move ``move`` did to its player's prospects, by the bot's evaluations of the positions
    before and after it (``bot.review.MoveReview``'s losses: positive = it gave that much away)."""

    move: int  # 1 for the game's first move
    colour: str  # who played it
    value_loss: float  # of its player's value (win - loss, [-2, 2])
    score_loss: float  # of its player's expected score margin, points


def move_losses(game: Game, values: dict[int, tuple[float, float]]) -> tuple[MoveLoss, ...]:
    """The losses of every move of ``game`` whose positions before and after are in ``values``
    (move number k -> Black's value and score after k moves)."""
    replay, found = Game(game.config), []
    for k, move in enumerate(game.history, start=1):
        mover = replay.to_move
        replay.play(move)
        if k - 1 in values and k in values:
            before, after = (Judged(value=values[i][0], lead=values[i][1], best=None) for i in (k - 1, k))
            review = MoveReview(number=k, colour=mover, played=move, before=before, after=after)
            found.append(MoveLoss(move=k, colour=mover, value_loss=review.value_loss, score_loss=review.lead_loss))
    return tuple(found)


MAX_VARIATIONS = 64  # variations one record download may carry


def record_with_variations(game: GameSession, variations: list[GameSession]) -> Record:
    """``game``'s record with ``variations`` (sessions made by "Play from here", from ``game`` or
    from one listed before them) as its tree (records.Variation). ApiError (409, one line) for a
    session that does not branch from the game or from an earlier one, or whose line before its
    branch point is no longer its parent's (moves taken back there since)."""
    record = record_of(game.match)
    lines = [game.id]  # line n of the record: the game (0), then each variation in order
    found: list[Variation] = []
    for v in variations:
        if v.variation_of is None or v.variation_of[0] not in lines:
            raise ApiError(409, f"game {v.id[:8]}… is not a variation of this game (or of one listed before it)")
        parent_id, move = v.variation_of
        parent = lines.index(parent_id)
        so_far = Record(config=record.config, start=record.start, events=record.events, variations=tuple(found))
        line = so_far.line_events(parent)
        prefix = line[:events_through_move(line, move)]
        if tuple(v.match.events[:len(prefix)]) != prefix:
            raise ApiError(409, f"variation {v.id[:8]}… no longer branches from its line after move {move}: "
                                f"moves were taken back there since")
        own = record_of(v.match)
        found.append(Variation(parent=parent, move=move, events=own.events[len(prefix):], result=own.result))
        lines.append(v.id)
    return dataclasses.replace(record, variations=tuple(found))


def ribbon_views(game: Game) -> tuple[RibbonView, ...]:
    """The ribbons of ``game``'s position (R2, R5), as the page lists them."""
    return tuple(RibbonView(cells=r.cells, length=r.length, black=r.black, white=r.white,
                            limited=r.limited, claimed=r.claimed, owner=r.owner) for r in game.ribbons())


def cell_views(view: BoardView) -> tuple[CellView, ...]:
    """[N] the cells as the page draws them: where, stone, claim, unplayable, who placed it and
    when (so stones a claim took over stay recognisable, R5), read from ``BoardView``, the one
    model of what a picture of a position shows."""
    spec = view.spec
    return tuple(
        CellView(name=spec.names[i], col=c, row=r, stone=view.stones[i], claimed=view.claimed[i],
                 unplayable=view.unplayable[i], move=view.move[i], placed=view.placed[i],
                 x=view.centres[i][0], y=view.centres[i][1])
        for i, (c, r) in enumerate(spec.coords.tolist())
    )


def chain_views(view: BoardView) -> tuple[ChainView, ...]:
    """The claimed chains of ``view`` by cell name, each with its colour."""
    names = view.spec.names
    return tuple(ChainView(cells=tuple(names[i] for i in chain), owner=view.stones[chain[0]])
                 for chain in view.chains)


def edge_labels(side: int) -> tuple[LabelView, ...]:
    """The page's coordinates for a board of ``side``: row k's number one cell left of the row's
    first cell (column max(0, k - side + 1) - 1), then column c's letter one cell below its
    lowest cell (row max(0, c - side + 1) - 1), as the terminal's board has them."""
    rows = [LabelView(str(r + 1), "row", *hex_centre(max(0, r - (side - 1)) - 1, r)) for r in range(2 * side - 1)]
    columns = [LabelView(COLUMN_LETTERS[c], "column", *hex_centre(c, max(0, c - (side - 1)) - 1))
               for c in range(2 * side - 1)]
    return tuple(rows + columns)


@dataclass(frozen=True)
class PositionView:
    """The position after the first ``move`` moves of a game, for review
    (``GET /api/games/{id}/review/{move}``): what the board shows then."""

    move: int  # moves played in this position
    moves: int  # moves in the whole game so far
    cells: tuple[CellView, ...]
    chains: tuple[ChainView, ...]
    ribbons: tuple[RibbonView, ...]
    last_move: Optional[str]
    to_move: str
    scores: dict[str, float]
    button_holder: Optional[str]
    status: tuple[str, ...]  # the terminal's lines for it (whose turn, or the result)

    @classmethod
    def of(cls, session: GameSession, move: int) -> "PositionView":
        match = session.match
        game = match.game if match.game is not None else Game(session.config)
        history = game.history
        position = Game.replay(game.config, history[:move])
        seats = match if move == len(history) else None  # the seats' names need the whole match
        view = BoardView.of(position)
        return cls(
            move=move,
            moves=len(history),
            cells=cell_views(view),
            chains=chain_views(view),
            ribbons=ribbon_views(position),
            last_move=position.last_move,
            to_move=position.to_move,
            scores={k: float(v) for k, v in position.scores().items()},
            button_holder=position.button_holder,
            status=tuple(status_lines(position, seats)),
        )


def _choice(s: GameSession) -> Optional[ChoiceView]:
    phase = s.match.phase
    if phase is Phase.KOMI:
        lo, hi = komi_range(s.config.scoring)
        return ChoiceView(kind="komi", komi_min=lo, komi_max=hi, colours=())
    if phase is Phase.COLOUR:
        colours = ("colour white", "swap") if s.config.game_type_rule.has_swap else ("colour black", "colour white")
        return ChoiceView(kind="colour", komi_min=None, komi_max=None, colours=colours)
    return None


@dataclass(frozen=True)
class InfoView:
    """What the server offers (``GET /api/info``): the bot's default options and what it supports."""

    default: RuleSet  # of the bot's game_config
    supported: tuple[RuleSet, ...]  # every rule set the bot plays
    seats: tuple[str, ...]
    komi_ranges: dict[str, tuple[int, int]]  # scoring -> (lo, hi) (R6)
    max_games: int
    expire_s: float
    strength: "StrengthView"


@dataclass(frozen=True)
class StrengthView:
    """The bot's budget per move: its own (one of simulations / seconds is None) and the most
    a person may ask for a game (``ServerConfig``)."""

    simulations: Optional[int]
    seconds: Optional[float]
    max_simulations: int
    max_seconds: float

    @classmethod
    def of(cls, bot, config: ServerConfig) -> "StrengthView":
        seconds, simulations = bot.seconds, bot.simulations  # a served bot: one of them is None
        return cls(simulations=simulations if isinstance(simulations, int) else None,
                   seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
                   max_simulations=config.max_simulations, max_seconds=float(config.max_seconds))


def supported_options(*bots) -> tuple[RuleSet, ...]:
    """Every rule set (R9, komi aside) one of the bots says it supports, in a fixed order."""
    out = []
    for side in range(MIN_SIDE, MAX_SIDE + 1):
        for game_type in GAME_TYPES:
            for scoring in SCORINGS:
                rules = RuleSet(side, game_type, scoring)
                if any(bot.capabilities.plays(rules.game()) for bot in bots):
                    out.append(rules)
    return tuple(out)


def to_json(obj: Any) -> Any:
    """Plain JSON values from records: dataclasses, tuples, numpy scalars and arrays; a
    non-finite float becomes None (JSON has no NaN)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_json(obj.tolist())
    if isinstance(obj, np.generic):
        return to_json(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot send a {type(obj).__name__} as JSON")
