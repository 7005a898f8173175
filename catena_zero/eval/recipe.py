"""A recipe's end: what turns the last network of a staged run into a shippable bot (``finish:`` in
its config, ``config.FinishConfig``), run by ``catena-zero train`` after the last stage.

1. the bot: the run's newest checkpoint exported into the run folder (``recipe.bot``) with the
   search it is measured and shipped at (``finish.simulations``, ``finish.search``);
2. the fair komi: the komi the recipe names (``finish.komi``; else the bot's own estimate) checked by
   self-play at it and two either side, Black's share with its interval (``eval/fairness.py``);
3. the book: the rule set's opening book rebalanced by the bot at that komi (``eval/book.py``),
   written into the run folder;
4. the panel: the bot against each opponent (``finish.panel``) over the book's first
   ``finish.pairs`` openings, each with both colours: the pair score with its 95% interval;
5. one summary, ``recipe-result.json`` in the run folder (``RecipeResult``), which ``ship RUN NAME``
   takes with the bot: how it was trained (the recipe, its stages, CPU-hours from nothing) and how
   strong it measured, one line each.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, TextIO

import numpy as np

from ..artifacts.layout import RECIPE_BOT, RECIPE_RESULT
from ..config import Config
from ..errors import UserError
from ..fileio import MAX_CONFIG_BYTES, read_json, write_text_atomic
from ..game.options import RuleSet

if TYPE_CHECKING:
    from ..config.sections import FinishConfig
    from ..game.options import GameConfig
    from .agents import Agent
    from .book import Book

KOMI_CHECK_SIMULATIONS = 64  # the self-play of the komi check (catena-zero komi-check's default)
BOOK_OPENINGS = 150  # openings of a rebalanced book (catena-zero book's default)


@dataclass(frozen=True)
class PanelResult:
    """The bot against one opponent of the panel, over the book."""

    opponent: str
    pairs: int
    score: float  # the bot's pair score, 0..1
    low: float  # its 95% interval
    high: float
    pentanomial: tuple[int, ...]  # pairs scoring 0, 0.5, 1, 1.5, 2 points for the bot
    minutes: float

    def line(self) -> str:
        """``92.5% [88.0, 97.0] vs mcts:2000 over 40 book pairs (0/0/6/0/34)``."""
        counts = "/".join(str(c) for c in self.pentanomial)
        return (f"{self.score:.1%} [{self.low:.1%}, {self.high:.1%}] vs {self.opponent} over {self.pairs} "
                f"book pairs ({counts})")


@dataclass(frozen=True)
class RecipeResult:
    """What a recipe's end measured (``recipe-result.json``)."""

    recipe: str  # the recipe file the run was started with
    rules: str  # the rule set's key, e.g. side6-komi-standard
    checkpoint: str  # the checkpoint the bot is
    step: int
    positions: int
    cpu_hours: float  # of the whole run, every stage, from nothing (or from what its first stage started from)
    cpu_hours_complete: bool  # False: the run started from a network whose CPU is not known (a bot file)
    stages: tuple[str, ...]  # "name (bound)" of each
    simulations: int  # the bot's search a move
    komi: Optional[int]  # the komi of the book and the panel (None: a game type without komi)
    komi_estimate: Optional[int]  # the bot's own estimate
    black_shares: tuple[tuple[int, float, float, float], ...]  # (komi, Black's share, low, high) of the check
    komi_games: int
    book: str  # the rebalanced book's file (in the run folder), "" when not asked for
    panel: tuple[PanelResult, ...]
    init_from: str = ""  # what the run's first stage started from ("" for random weights)

    def trained_line(self) -> str:
        """How it was trained, for the shipped bots' index."""
        origin = "" if self.cpu_hours_complete else " beyond the network its first stage started from"
        return (f"{self.recipe}: {len(self.stages)} stages ({', '.join(self.stages)}), {self.cpu_hours:.2f} "
                f"CPU-hours{origin}; {self.step:,} steps, {self.positions:,} self-play positions")

    def strength_line(self) -> str:
        """How strong it measured, for the shipped bots' index: the panel at its komi."""
        komi = f" at komi {self.komi}" if self.komi is not None else ""
        measured = "; ".join(p.line() for p in self.panel) or "no panel played"
        return f"{measured}; {self.simulations} sims{komi}"

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"


def komi_line(komi: Optional[int], estimate: Optional[int], shares, games: int) -> str:
    """The komi check in one line: the komi played, the bot's own, Black's share at each komi checked."""
    if komi is None:
        return "no komi (game type without one)"
    text = ", ".join(f"{share:.0%} [{low:.0%}, {high:.0%}] at {k}" for k, share, low, high in shares)
    return (f"komi {komi} (the bot names {estimate}); Black wins {text or 'unchecked'}"
            + (f" ({games} self-play games each)" if text else ""))


class RecipeResultError(UserError):
    """A run folder's ``recipe-result.json`` that is missing or does not read."""


def read_result(run_dir: Path) -> RecipeResult:
    """The summary a recipe's end wrote into ``run_dir``; ``RecipeResultError`` (one line) otherwise."""
    path = run_dir / RECIPE_RESULT
    if not path.exists():
        raise RecipeResultError(f"{run_dir} has no {RECIPE_RESULT}: its recipe has not ended (catena-zero train "
                                f"--config RECIPE --run-name {run_dir.name} --resume runs what is left)")
    data = read_json(path, "recipe result", MAX_CONFIG_BYTES, RecipeResultError)
    try:
        panel = tuple(PanelResult(**{**p, "pentanomial": tuple(p["pentanomial"])}) for p in data.pop("panel"))
        shares = tuple(tuple(s) for s in data.pop("black_shares"))
        result = RecipeResult(**{**data, "stages": tuple(data["stages"])}, panel=panel, black_shares=shares)
    except (TypeError, KeyError, AttributeError):
        raise RecipeResultError(f"{path}: not a recipe result written by catena-zero") from None
    return result


def finish_recipe(recipe: Config, recipe_file: str, run_dir: Path, out: Optional[TextIO] = None) -> RecipeResult:
    """Steps 1-5 of the module docstring for the run in ``run_dir``; a line for each as it ends
    (to ``out``, default standard output)."""
    from ..artifacts.export import PlaySettings, write_bot_of
    from ..artifacts.provenance import training_cpu_seconds
    from ..config.loading import search_settings_of
    from .book import reference_book, save_book
    from .specs import build_agent

    out = sys.stdout if out is None else out
    finish = recipe.finish
    bot_path = run_dir / RECIPE_BOT
    written = write_bot_of(run_dir, bot_path, PlaySettings(finish.simulations, search_settings_of(finish.search)))
    checkpoint, header = written.checkpoint, written.header
    assert checkpoint is not None  # a run folder holds checkpoints, not a bot file
    print(f"recipe: the bot {bot_path}: {header.describe()}", file=out, flush=True)
    bot = build_agent(str(bot_path))
    game = header.game
    rng = np.random.default_rng(recipe.seed)
    komi, estimate, shares = _komi_check(bot, str(bot_path), game, finish, rng)
    print(f"recipe: {komi_line(komi, estimate, shares, finish.komi_games)}", file=out, flush=True)
    book = None
    book_file = ""
    if finish.book or finish.panel:
        book = reference_book(game, max(BOOK_OPENINGS, finish.pairs), komi, reference=str(bot_path))
        if finish.book:
            book_file = str(save_book(run_dir / f"{RuleSet.of(game).key}.book", book))
            print(f"recipe: book {book.describe()}; written to {book_file}", file=out, flush=True)
    panel = [] if book is None else _panel(bot, game, book, finish, rng, out)
    cpu = training_cpu_seconds(checkpoint.counters, checkpoint.config)
    result = RecipeResult(
        recipe=recipe_file, rules=RuleSet.of(game).key, checkpoint=str(written.source), step=checkpoint.step,
        positions=int(checkpoint.counters.get("positions", 0)),
        cpu_hours=round((cpu.seconds if cpu else 0.0) / 3600, 2), cpu_hours_complete=bool(cpu and cpu.complete),
        stages=tuple(f"{s.name} {s.describe()}" for s in recipe.stages), simulations=finish.simulations, komi=komi,
        komi_estimate=estimate, black_shares=tuple(shares), komi_games=finish.komi_games, book=book_file,
        panel=tuple(panel), init_from=checkpoint.config.train.init_from)
    write_text_atomic(run_dir / RECIPE_RESULT, result.to_json())
    print(f"recipe: trained {result.trained_line()}", file=out)
    print(f"recipe: strength {result.strength_line()}", file=out)
    print(f"recipe: summary written to {run_dir / RECIPE_RESULT}; ship it with: catena-zero ship {run_dir} NAME",
          file=out)
    return result


def _komi_check(bot: "Agent", bot_path: str, game: "GameConfig", finish: "FinishConfig",
                rng: np.random.Generator) -> tuple[Optional[int], Optional[int], list[tuple[int, float, float, float]]]:
    """Step 2: (the komi, the bot's own estimate, Black's share with its interval at that komi and
    two either side); Nones and no shares for a game type without komi."""
    from .fairness import black_share
    from .specs import build_agent, parse_agent_spec

    shares: list[tuple[int, float, float, float]] = []
    if not game.game_type_rule.has_komi:
        return None, None, shares
    estimate = bot.komi_curve(game).komi
    komi = finish.komi if finish.komi is not None else estimate
    if finish.komi is not None:
        checker = build_agent(parse_agent_spec(bot_path, simulations=KOMI_CHECK_SIMULATIONS))
        for k in (komi - 2, komi, komi + 2):
            share = black_share(checker, game, k, finish.komi_games, rng, 2)
            shares.append((k, share.share, *share.interval))
    return komi, estimate, shares


def _panel(bot: "Agent", game: "GameConfig", book: "Book", finish: "FinishConfig", rng: np.random.Generator,
           out: TextIO) -> list[PanelResult]:
    """Step 4: the bot against each opponent of the panel over the book's first pairs."""
    from .arena import play_match
    from .specs import build_agent, parse_agent_spec

    panel = []
    for opponent in finish.panel:
        started = time.perf_counter()
        rival = build_agent(parse_agent_spec(opponent))
        match = play_match(bot, rival, game, 2 * finish.pairs, book.komi, rng, book=book.first(finish.pairs))
        p = match.pentanomial
        low, high = p.score_interval()
        panel.append(PanelResult(opponent=opponent, pairs=p.pairs, score=p.score, low=low, high=high,
                                 pentanomial=tuple(int(c) for c in p.counts),
                                 minutes=(time.perf_counter() - started) / 60))
        print(f"recipe: {panel[-1].line()}, {panel[-1].minutes:.0f} min", file=out, flush=True)
    return panel
