"""Games served by the web server: one ``GameSession`` per game, kept in a bounded ``SessionStore``.

A session is a ``Match`` (R7 pre-game protocol around a ``Game``, which records who made each
event, so undo knows what to take back) between a person and the bot. Sessions are isolated: each
has its own match, they share nothing but the bot pool, and a session is reached only through
its id, a random secret (``secrets.token_urlsafe``), so one visitor cannot find another's game.

Every change goes through a method that checks it first and raises ``ApiError`` (an HTTP status
and a one-line message) before touching anything, so a refused request leaves the game as it
was. All methods run on the event loop; only the bot's think runs in a worker thread, on a
copy of the match (``Match.copy``), and its answer is applied back here (``apply_bot``).

Bounded and expiring (``ServerConfig``): at most ``max_games`` live sessions; one idle for
``expire_s`` seconds is dropped. When the store is full, a new game takes the slot of a finished
or abandoned one (idle ``abandon_s``), never of a game in play: with none to drop it is refused
(503), since a person losing the game under their hands is worse than one waiting to start.

Shared fairly between clients (a client is an address, ``guard.client_key``): one holds at most
``max_games_per_client`` games (its own finished or abandoned one makes room, else 429), and when
the store is full a client holding fewer than its fair share (``max_games`` over the clients
holding games) takes the slot of the game seen least recently of the client holding most, if that
one holds more than its share and at least two more games: so one client (or a few) keeping every
slot alive with a request each cannot lock everyone else out, while one game each is never undone.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Optional

from ..errors import UserError
from ..game.match import Match, Phase
from ..game.notation import Event, parse_move
from ..game.options import GameConfig, komi_range
from ..game.records import events_through_move
from ..game.rules import IllegalMove

SEATS = ("first", "second")
_ID_FORM = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)


class ApiError(Exception):
    """A refused request: an HTTP status (4xx for the client's mistakes) and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class ServerConfig:
    """Limits of the web server (``catena-zero serve`` flags); each field says why its default."""

    # Live games; when all are taken a finished game, or one untouched for abandon_s, makes room
    # (idle longest first), never a game in play: else a new game is refused (503).
    max_games: int = 64
    expire_s: float = 3600.0  # an untouched game is dropped: an hour away from the page
    # May make room when all slots are taken: ten minutes without a request is most likely a person
    # gone (at most expire_s; with free slots the game lives until expire_s).
    abandon_s: float = 600.0
    workers: int = 2  # bots thinking at once, a thread each: a second game's move need not wait
    max_body: int = 16384  # bytes of a request body (real requests are < 100 B)
    # The strongest search a person may ask for a move: one think must not hold a worker for minutes.
    max_simulations: int = 2000
    max_seconds: float = 10.0
    # Requests answered at once (``guard.Guard``; 503 beyond): a page has at most two in flight, and
    # an idle connection holds no slot, so idle sockets cannot lock people out.
    max_requests: int = 64
    # The first byte of a request within this of opening or of the previous answer (a browser sends
    # at once), the whole request within request_timeout_s (a real one takes ms), else the
    # connection is closed: slow or stalled clients cannot hold connections.
    idle_timeout_s: float = 5.0
    request_timeout_s: float = 10.0
    # One client (an address): games (a person plays one and keeps a few variations; its own finished
    # or abandoned game makes room, else 429; ``SessionStore`` for the fair share), requests at once
    # (429 beyond), evaluations (analysis, komi advice) searched or waiting at once, one a game (429
    # beyond; moves come first, ``bots.WorkQueue``, and with several workers one is kept for moves).
    max_games_per_client: int = 8
    max_requests_per_client: int = 16
    max_analyses_per_client: int = 2
    # A full send buffer must drain within this, else the connection is dropped: a client that does
    # not read loses its own connection, nothing else.
    send_timeout_s: float = 10.0
    # Open connections (``serve`` lowers it to what the file-descriptor limit leaves): beyond, the one
    # waiting on its client longest is closed; a client's (a browser opens about 6): beyond, its own
    # longest-waiting one, else the new one.
    max_connections: int = 1000
    max_connections_per_client: int = 32
    # The names answered for (the Host header, port aside): a page on another name pointed at this
    # machine (DNS rebinding) cannot talk to it. ``serve`` adds its address and --allow-host names;
    # any_ip_host answers any IP address too (on 0.0.0.0 or ::; an address cannot be re-pointed).
    hosts: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")
    any_ip_host: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.max_seconds, bool) or not isinstance(self.max_seconds, (int, float)) \
                or not 0 < self.max_seconds < float("inf"):
            raise UserError(f"max_seconds must be a number of seconds > 0, got {self.max_seconds!r}")
        for name in ("max_games", "workers", "max_body", "max_requests", "max_simulations", "max_games_per_client",
                     "max_requests_per_client", "max_analyses_per_client", "max_connections",
                     "max_connections_per_client"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UserError(f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("expire_s", "abandon_s", "idle_timeout_s", "request_timeout_s", "send_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise UserError(f"{name} must be a number of seconds > 0, got {value!r}")
        if not isinstance(self.hosts, tuple) or not all(isinstance(h, str) and h.strip() for h in self.hosts):
            raise UserError(f"hosts must be a tuple of host names, got {self.hosts!r}")


def check_strength(simulations: Optional[int], seconds: Optional[float], config: ServerConfig) -> None:
    """ApiError unless (simulations, seconds) is a budget per move within the server's limits."""
    if simulations is not None and seconds is not None:
        raise ApiError(400, "give simulations or seconds per move, not both")
    if simulations is not None and not 1 <= simulations <= config.max_simulations:
        raise ApiError(400, f"simulations must be in 1..{config.max_simulations} (the server's limit), got {simulations}")
    if seconds is not None and not (math.isfinite(seconds) and 0 < seconds <= config.max_seconds):
        raise ApiError(400, f"seconds must be more than 0 and at most {config.max_seconds:g} (the server's limit), "
                            f"got {seconds:g}")


class GameSession:
    """One person's game against the bot. ``human`` is the person's seat, "first" or "second"."""

    def __init__(self, game_id: str, config: GameConfig, human: str, now: float, client: str = "") -> None:
        if human not in SEATS:
            raise ApiError(400, f"seat must be 'first' or 'second', got {human!r}")
        self.id = game_id
        self.client = client  # who made it (``guard.client_key``): the slots one client holds are counted
        self.config = config  # komi 0; under game type komi the match chooses it (R7)
        self.human = human
        self.bot = "second" if human == "first" else "first"
        self.match = Match(config)
        self.thinking = False  # the bot is choosing this game's next event
        self.version = 0  # bumped by every change: a bot answer for an older version is stale
        self.last_seen = now
        # The bot's budget per move for this game (the person's choice), None: the bot's own.
        self.simulations: Optional[int] = None
        self.seconds: Optional[float] = None
        self.komi_advice: Optional[int] = None  # the bot's fair komi, once asked (R7)
        # Move number k -> (Black's value, Black's score margin) of the position after k moves,
        # from the bot's searches (its moves and the evaluations asked for): the page's graph.
        self.values: dict[int, tuple[float, float]] = {}
        # A variation (``SessionStore.fork``): (the game it branches from, the move it leaves it
        # after); None for a game started afresh.
        self.variation_of: Optional[tuple[str, int]] = None

    def set_strength(self, simulations: Optional[int], seconds: Optional[float], config: "ServerConfig") -> None:
        """The person's choice of the bot's budget per move, within the server's limits."""
        check_strength(simulations, seconds, config)
        self.simulations, self.seconds = simulations, None if seconds is None else float(seconds)

    def record_value(self, move_number: int, to_move: str, value: float, score: float) -> None:
        """Keep the bot's value and score of the position after ``move_number`` moves, turned
        to Black's side (the analysis gives them for the player to move)."""
        sign = 1.0 if to_move == "black" else -1.0
        self.values[move_number] = (sign * float(value), sign * float(score))

    # ------------------------------------------------------------------ who acts
    @property
    def to_act(self) -> Optional[str]:
        """The seat that must act now (R7 set-up or play), None once over."""
        return self.match.player_to_act

    @property
    def bot_to_act(self) -> bool:
        return self.to_act == self.bot

    @property
    def actors(self) -> list[str]:
        """Per event of ``match.events``: "first" or "second"."""
        return self.match.actors

    @property
    def can_undo(self) -> bool:
        return not self.thinking and self.human in self.actors

    # ------------------------------------------------------------------ the person's events
    def choose_komi(self, komi: int) -> None:
        """R7 (komi): the person, as first player, chooses the komi."""
        self._check_human_turn(Phase.KOMI, "choose the komi")
        lo, hi = komi_range(self.config.scoring)
        if not lo <= komi <= hi:
            raise ApiError(400, f"komi must be a whole number in {lo}..{hi} for {self.config.scoring} scoring (R6), got {komi}")
        self._apply(Event.komi_choice(komi), self.human)

    def choose_colour(self, colour: str) -> None:
        """R7: the person, as second player, chooses a colour; in no_komi "black" is the swap."""
        self._check_human_turn(Phase.COLOUR, "choose a colour")
        if colour not in ("black", "white"):
            raise ApiError(400, f"colour must be 'black' or 'white', got {colour!r}")
        swap = self.config.game_type_rule.has_swap and colour == "black"
        self._apply(Event.swap() if swap else Event.colour_choice(colour), self.human)

    def play(self, text: str) -> None:
        """A move by the person: a cell ("D5", lower case accepted) or "button" (R4, R10)."""
        self._check_human_turn(Phase.PLAY, "play a move")
        try:
            move = parse_move(text, self.config.side)
        except UserError as exc:
            raise ApiError(400, str(exc)) from None
        self._apply(Event.move(move), self.human)

    def _check_human_turn(self, phase: Phase, what: str) -> None:
        self._check_not_thinking()
        current = self.match.phase
        if current is Phase.OVER:
            raise ApiError(409, f"cannot {what}: the game is over")
        if self.to_act != self.human:
            raise ApiError(409, f"cannot {what}: it is the bot's turn ({self._expected()}); "
                                f"ask for its move with POST /api/games/{{id}}/bot")
        if current != phase:
            raise ApiError(409, f"cannot {what} now: the game expects you to {self._expected()}")

    def _expected(self) -> str:
        """What the player to act must do, in words (R7)."""
        phase = self.match.phase
        if phase is Phase.KOMI:
            return "choose the komi"
        if phase is Phase.COLOUR:
            return "choose a colour" + (" (keep White or swap)" if self.config.game_type_rule.has_swap else "")
        game = self.match.game
        if self.match.colour_of("first") is None:
            return "place Black's opening stone"
        return f"play a move for {game.to_move}" + (" (second stone of the turn)" if game.pending_second else "")

    # ------------------------------------------------------------------ the bot's events
    def begin_bot_turn(self) -> int:
        """Check that the bot is to act and mark it thinking; returns the version it thinks on."""
        self._check_not_thinking()
        if self.match.phase is Phase.OVER:
            raise ApiError(409, "the bot has nothing to do: the game is over")
        if not self.bot_to_act:
            raise ApiError(409, f"it is your turn, not the bot's: {self._expected()}")
        self.thinking = True
        return self.version

    def end_bot_turn(self) -> None:
        self.thinking = False

    def apply_bot(self, event: Event, version: int) -> None:
        """Apply the bot's answer computed on ``version``; RuntimeError if it is not a legal event."""
        if version != self.version:
            raise RuntimeError("the game changed while the bot was thinking")  # cannot happen: changes are refused while thinking
        try:
            self._apply(event, self.bot)
        except ApiError as exc:
            raise RuntimeError(f"the bot answered {str(event)!r}, which the rules refuse: {exc.message}") from None

    # ------------------------------------------------------------------ undo
    def undo(self) -> None:
        """Take back the person's last event and everything after it (the bot's replies), so
        it is the person's turn again as it was before that event."""
        self._check_not_thinking()
        if self.human not in self.actors:
            raise ApiError(409, "nothing to undo: you have not played yet")
        actors = self.actors
        self.match.rewind(len(actors) - 1 - actors[::-1].index(self.human))
        played = 0 if self.match.game is None else self.match.game.move_number
        self.values = {k: v for k, v in self.values.items() if k <= played}  # earlier positions stand
        self.version += 1

    # ------------------------------------------------------------------ internals
    def _check_not_thinking(self) -> None:
        if self.thinking:
            raise ApiError(409, "the bot is thinking about this game; wait for its move")

    def _apply(self, event: Event, actor: str) -> None:
        try:
            self.match.apply(event)  # IllegalMove leaves the match unchanged
        except IllegalMove as exc:
            raise ApiError(400, str(exc)) from None
        assert self.match.actors[-1] == actor, (self.match.actors[-1], actor)  # the turn checks said so
        self.version += 1


class SessionStore:
    """The live sessions, bounded by ``config.max_games`` and expiring after ``config.expire_s``."""

    def __init__(self, config: ServerConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._clock = clock
        self._sessions: dict[str, GameSession] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def now(self) -> float:
        """The store's clock (monotonic seconds)."""
        return self._clock()

    def create(self, config: GameConfig, human: str, client: str = "") -> GameSession:
        """A new game of ``client`` (``guard.client_key``), within its share of the slots."""
        now = self._clock()
        self._expire(now)
        idle_s = min(self.config.abandon_s, self.config.expire_s)

        def spare(s: GameSession) -> bool:  # may make room: finished, or left idle_s
            return not s.thinking and (s.match.phase is Phase.OVER or now - s.last_seen >= idle_s)

        mine = [s for s in self._sessions.values() if s.client == client]
        if len(mine) >= self.config.max_games_per_client:
            own = [s for s in mine if spare(s)]
            if not own:
                raise ApiError(429, f"you have {len(mine)} games in play, the most one address may have; finish or "
                                    f"delete one (a game left {idle_s / 60:g} minutes makes room too)")
            del self._sessions[min(own, key=lambda s: s.last_seen).id]
        elif len(self._sessions) >= self.config.max_games:
            victim = min((s for s in self._sessions.values() if spare(s)), key=lambda s: s.last_seen, default=None)
            victim = victim or self._over_share(client, len(mine))
            if victim is None:
                raise ApiError(503, f"all {self.config.max_games} game slots hold games in play; try again later "
                                    f"(a slot frees when a game ends, is deleted, or is left {idle_s / 60:g} minutes)")
            del self._sessions[victim.id]
        game_id = secrets.token_urlsafe(16)
        session = GameSession(game_id, config, human, now, client)
        self._sessions[game_id] = session
        return session

    def _over_share(self, client: str, held: int) -> Optional[GameSession]:
        """The game that makes room for a game of ``client`` (holding ``held``) in a full store:
        the one seen least recently (and not being thought about) of the client holding most,
        if that client holds more than its fair share and at least two games more; else None."""
        counts = Counter(s.client for s in self._sessions.values())
        share = self.config.max_games / len(set(counts) | {client})
        heavy = [c for c, n in counts.items() if n > share and n >= held + 2]
        games = [s for s in self._sessions.values() if not s.thinking and s.client in heavy]
        if not games:
            return None
        most = max(counts[s.client] for s in games)
        return min((s for s in games if counts[s.client] == most), key=lambda s: s.last_seen)

    def fork(self, parent: GameSession, move: int, client: str = "") -> GameSession:
        """A variation: a new game with ``parent``'s rules, seats and bot budget, at its position
        after ``move`` moves (the set-up choices made before that move kept), to play on into a
        branch while ``parent`` stays as it is. It takes a game slot of ``client`` as a new game does."""
        game = parent.match.game
        moves = 0 if game is None else game.move_number
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move <= moves:
            raise ApiError(400, f"move must be a whole number in 0..{moves} (the moves played), got {move!r}")
        events = parent.match.events[:events_through_move(parent.match.events, move)]
        session = self.create(parent.config, parent.human, client)
        session.match = Match.replay(parent.config, events)
        session.simulations, session.seconds = parent.simulations, parent.seconds
        session.komi_advice = parent.komi_advice
        session.values = {k: v for k, v in parent.values.items() if k <= move}  # the positions they share
        session.variation_of = (parent.id, move)
        return session

    def get(self, game_id: str) -> GameSession:
        """The session with this id, marked as seen now; 404 if unknown or expired."""
        now = self._clock()
        self._expire(now)
        session = self._sessions.get(game_id) if _ID_FORM.fullmatch(game_id) else None
        if session is None:
            raise ApiError(404, f"no game with id {game_id[:40]!r}: it never existed or has expired (start a new game)")
        session.last_seen = now
        return session

    def delete(self, game_id: str) -> None:
        self.get(game_id)
        del self._sessions[game_id]

    def _expire(self, now: float) -> None:
        for game_id, session in list(self._sessions.items()):
            if not session.thinking and now - session.last_seen > self.config.expire_s:
                del self._sessions[game_id]
