"""Reviewing a game with a bot, as KataGo's review in Sabaki and OGS's AI review give it: every
position before a move is searched, and each move is judged by how much it changed its player's
value and score lead (the position before it against the position after it).

Numbering: move k is the game's k-th move (a stone or the button), as the stones' numbers, the
result and ``show`` count them; the set-up choices of R7 (komi, colour, swap) are listed apart
and not numbered. Values and leads are Black's: +1 / +N points when Black wins / leads by N.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

from ..game.match import Match, Phase
from ..game.options import GameConfig
from ..game.records import Record
from ..game.rules import Game
from .bot import Bot
from .players import check_plays


@dataclass(frozen=True)
class Judged:
    """One position as the review sees it, in Black's view."""

    value: float  # P(Black wins) - P(White wins), [-1, 1]: the search's, or the result once over
    lead: float  # Black's expected final score margin (R6), points
    best: Optional[str]  # the bot's move there (None once the game is over)


@dataclass(frozen=True)
class MoveReview:
    """One move of the game and what it did to its player's prospects."""

    number: int  # 1 for the game's first move (set-up choices are not counted)
    colour: str  # "black" or "white": who played it
    played: str  # the move, in R10 notation ("D5", "button")
    before: Judged  # the position it was played in
    after: Judged  # the position it made

    @property
    def sign(self) -> int:
        return 1 if self.colour == "black" else -1

    # A move cannot gain on the best play the search found before it: where the position after it
    # looks better, that is the search seeing further, not a gain, so losses stop at 0 (as OGS's and
    # KaTrain's reviews report them), never "-0" or a negative "lost".
    @property
    def value_loss(self) -> float:
        """How much of its player's value the move gave away, >= 0."""
        return max(0.0, self.sign * (self.before.value - self.after.value))

    @property
    def lead_loss(self) -> float:
        """How many points of its player's lead the move gave away, >= 0."""
        return max(0.0, self.sign * (self.before.lead - self.after.lead))


@dataclass(frozen=True)
class GameReview:
    """A whole game reviewed: the set-up apart, then every move."""

    config: GameConfig  # the game's rules (with the komi chosen in the set-up)
    setup: tuple[str, ...]  # the R7 set-up events ("komi 9", "colour white", "swap")
    moves: tuple[MoveReview, ...]
    budget: str  # each position's search: "400 simulations" or "1.5 s"
    over: bool  # whether the game reached its end (the last position's value is the result)

    def worst(self, count: int = 3, by: str = "value") -> list[MoveReview]:
        """The ``count`` moves that lost most (by ``value`` or ``lead``), worst first; only losses."""
        key = (lambda m: m.value_loss) if by == "value" else (lambda m: m.lead_loss)
        return [m for m in sorted(self.moves, key=key, reverse=True) if key(m) > 0][:count]


def _positions(record: Record) -> tuple[list[str], list[tuple[Game, str, str]], Game]:
    """The set-up events, each move with the game before it and who played it, and the final game."""
    state: Union[Match, Game] = Match(record.config) if record.start == "setup" else Game(record.config)
    setup: list[str] = []
    moves: list[tuple[Game, str, str]] = []
    for event in record.events:
        if isinstance(state, Game):
            moves.append((state.copy(), state.to_move, str(event)))
            state.play(event.as_move)
        elif state.phase is Phase.PLAY:
            moves.append((state.game.copy(), state.game.to_move, str(event)))
            state.apply(event)
        else:
            setup.append(str(event))
            state.apply(event)
    final = state.game if isinstance(state, Match) else state
    return setup, moves, final if final is not None else Game(record.config)


def judge(bot: Bot, game: Game, simulations: Optional[int] = None, seconds: Optional[float] = None) -> Judged:
    """A position in Black's view: the bot's search, or the result of a finished game."""
    if game.is_over:
        scores = game.scores()
        winner = game.winner
        return Judged(value=0.0 if winner is None else (1.0 if winner == "black" else -1.0),
                      lead=float(scores["black"] - scores["white"]), best=None)
    analysis = bot.analyze(game, top=1, simulations=simulations, seconds=seconds)
    sign = 1.0 if analysis.to_move == "black" else -1.0
    return Judged(value=sign * analysis.value, lead=sign * analysis.score, best=analysis.best)


def review_game(bot: Bot, record: Record, simulations: Optional[int] = None, seconds: Optional[float] = None,
                progress: Callable[[int, int], None] = lambda done, total: None) -> GameReview:
    """Search every position of ``record`` before a move, and the last one, with the bot's budget
    or ``simulations`` / ``seconds`` each (``progress(done, total)`` after each position).
    ``UnsupportedGame`` (one line) when the bot does not play the record's rules."""
    setup, moves, final = _positions(record)
    games = [game for game, _, _ in moves] + [final]
    check_plays(bot, final.config, "this bot")
    judged = []
    for game in games:
        judged.append(judge(bot, game, simulations, seconds))
        progress(len(judged), len(games))
    reviewed = tuple(MoveReview(number=i + 1, colour=colour, played=event, before=judged[i], after=judged[i + 1])
                     for i, (_, colour, event) in enumerate(moves))
    if simulations is None and seconds is None:
        simulations, seconds = bot.simulations, bot.seconds
    budget = f"{seconds:g} s" if seconds is not None else f"{simulations} simulations"
    return GameReview(config=final.config, setup=tuple(setup), moves=reviewed, budget=budget, over=final.is_over)
