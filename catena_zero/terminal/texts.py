"""What the terminal says: the help, the rules in brief, each phase's introduction and the advice
given where a set-up choice is made (R7), the answers to 'moves', 'pass' and 'resign'.

Every function here reads a ``Match`` and the seats' players and returns text; none reads input
or prints (``person.py`` and ``session.py`` do)."""

from __future__ import annotations

import textwrap
from typing import Optional

from ..bot.players import JUDGED, Player, SetupJudge, declared, own_fair_komi, setup_choices
from ..game.gametypes import GAME_TYPE_RULES, GameType
from ..game.match import PLAYERS, Match, Phase
from ..game.options import komi_range
from ..game.scoring import SCORING_RULES

HELP_TEXT = """\
Type a move as a cell (D5, lower case is fine) or 'button' to take the button (R4).
Before play (R7): the first player chooses the komi ('7' or 'komi 7'); then the second
player chooses a colour ('black' or 'white'). Under no_komi the second player keeps White
('white') or takes Black and its stone ('swap').
Commands: 'moves' lists what you may play now, 'board' shows the board, 'undo' takes back
your last move (and the program's reply), 'rules' the rules in brief, 'help' this text,
'quit' abandons the game (the record is still saved with --save). There is no pass or
resign: 'button' is the one move that places no stone. On a terminal the arrow keys edit the
line and recall earlier ones, and Tab completes a move or command."""


def _rule_line(label: str, name: str, summary: str) -> str:
    """One record's line of the rules in brief, under the rule's label ("R7  ", or blank)."""
    return textwrap.fill(f"{name}: {summary}", width=79, initial_indent=label, subsequent_indent="    ",
                         break_on_hyphens=False)


def _scoring_lines() -> str:
    """R6's line for each scoring type, from its record (game/scoring.py): the sums of points
    first (quadratic's "+ button, + komi" reads on from standard's), then longest, as in RULES.md."""
    return "\n".join(_rule_line("    ", rule.name, rule.summary)
                     for rule in sorted(SCORING_RULES, key=lambda rule: not rule.has_margin))


def _game_type_lines() -> str:
    """R7's line for each game type with a set-up choice, then R8's for those without (double),
    from their records (game/gametypes.py)."""
    lines = []
    for number, rules in (("R7", [r for r in GAME_TYPE_RULES if not r.fixed_colours]),
                          ("R8", [r for r in GAME_TYPE_RULES if r.fixed_colours])):
        lines += [_rule_line(f"{number}  " if i == 0 else "    ", rule.name, rule.summary) for i, rule in enumerate(rules)]
    return "\n".join(lines)


# One screen (at most 24 lines of at most 80 characters) restating docs/RULES.md.
RULES_TEXT = """\
Catena in brief (the full rules with examples: docs/RULES.md)
R1  A hexagon of hexagonal cells, drawn sheared: columns A, B, ... go up (letter
    above and below), rows 1, 2, ... across. Side 6 has 91 cells; sides 2-10.
R2  Stones that touch form a group, whatever their colours. A group must stay a
    ribbon: a chain where each stone touches at most two others, never a ring.
R3  Place on an empty cell only if every group is still a ribbon afterwards:
    the cell touches no stone, one ribbon end, or ends of two different ribbons.
R4  Black moves first. On your turn place a stone, or take the button (once per
    game, by either player). The game ends when no cell is legal.
R5  A ribbon that can no longer grow is limited and is claimed at once: the
    colour with more stones in it takes it all; a tie goes to the opponent of
    whoever limited it. Claimed ribbons never change again.
R6  Nobody took the button? It goes to the player who did not place last.
""" + _scoring_lines() + "\n" + _game_type_lines()


def _seat_duty(rule: GameType, person: str) -> str:
    """What ``person``'s seat does before play (R7; nothing under R8); the colour itself is
    announced once it is known."""
    first = person == "first"
    if rule.has_komi:
        return "you choose the komi" if first else "you choose the colours after the komi"
    if rule.has_swap:
        return "you place Black's first stone" if first else "you then keep White or swap"
    return ""


def seat_line(match: Match, person: str, opponent: str, komi_by_flag: bool) -> str:
    """Who the person is and what their seat does before play (R7), against ``opponent``."""
    program = "second" if person == "first" else "first"
    duty = _seat_duty(match.config.game_type_rule, person)
    if komi_by_flag and match.game is not None and match.config.game_type_rule.has_komi:
        komi = match.game.config.komi
        duty = ("the komi, " if person == "first" else "you choose the colours; the komi, ") + \
            f"{komi}, was set by --komi"
    return fill(f"You are the {person} player{f' ({duty})' if duty else ''}; {opponent} is the {program} player.")


def phase_intro(match: Match, komi_by_flag: bool = False) -> str:
    """What the coming phase expects (R7), printed once when it starts."""
    config = match.config
    if match.phase is Phase.KOMI:
        lo, hi = komi_range(config.scoring)
        return f"The first player chooses the komi White receives ({lo}..{hi}), e.g. '7' (R7)."
    if match.phase is Phase.COLOUR:
        if config.game_type_rule.has_swap:
            return "The second player keeps White ('white') or takes over Black and its stone ('swap') (R7)."
        komi = match.game.config.komi
        chosen = f"komi {komi}, set by --komi" if komi_by_flag else f"komi {komi}"
        return f"The second player chooses a colour, 'black' or 'white'; Black moves first (R7, {chosen})."
    first = match.colour_of("first")
    if first is None:  # no_komi opening (R7)
        return "The first player places Black's opening stone; then the second player chooses a colour."
    return f"Play: first player {first}, second player {match.colour_of('second')}, komi {match.game.config.komi}."


def setup_advice(match: Match, players: dict[str, Player], person: Optional[str]) -> Optional[str]:
    """The advice for the set-up choice the phase now starting asks for (R7), if any: the komi's
    for whoever chooses it; no_komi's swap and opening stone for a person making that choice."""
    if match.phase is Phase.KOMI:
        return komi_advice(match, players)
    if match.config.game_type_rule.has_swap and person in (None, match.player_to_act):
        if match.phase is Phase.COLOUR:
            return swap_advice(match, players)
        if match.colour_of("first") is None:
            return first_stone_advice(match, players)
    return None


KOMI_MATTERS = ("Why it matters: the second player then takes whichever colour is better at that komi, "
                "so the first player gets the worse side of an unfair komi.")


def komi_advice(match: Match, players: dict[str, Player]) -> str:
    """Said where the komi is chosen (R7): the network opponent's fair-komi estimate, if any,
    and why the choice matters."""
    fair = None
    for program in (players[s] for s in PLAYERS):
        fair = own_fair_komi(program, match.config)
        if fair is not None:
            break
    lines = [] if fair is None else [
        f"The bot's estimate of a fair komi: {fair} (by its value and score heads, as 'catena-zero komi' "
        f"computes it)."]
    return "\n".join(fill(line) for line in [*lines, KOMI_MATTERS])


SWAP_MATTERS = ("Why it matters: keeping White gives you the next move; swapping gives you Black and its "
                "stone, and the first player, now White, moves next.")
FIRST_STONE_MATTERS = ("Why it matters: the second player then keeps White or takes over Black and your "
                       "stone, whichever is better, so place a stone that is neither too good nor too bad.")


def _judges(players: dict[str, Player]) -> list[SetupJudge]:
    """The programs among ``players`` that make the set-up choices by their own heads (R7)."""
    judges = (declared(p, SetupJudge, p.capabilities.setup is JUDGED) for p in (players[s] for s in PLAYERS))
    return [judge for judge in judges if judge is not None]


def swap_advice(match: Match, players: dict[str, Player]) -> str:
    """Said where the second player keeps White or swaps (no_komi, R7), as the komi advice is
    where the komi is chosen: whether the first stone is worth taking, by the bot's own heads."""
    stone = match.events[0]
    lines = [f"Is Black's stone on {stone} worth taking? The bot's heads say "
             + ("yes: it would swap ('swap')." if judge.choose_swap(match.game)
                else "no: it would keep White ('white').") for judge in _judges(players)[:1]]
    return "\n".join(fill(line) for line in [*lines, SWAP_MATTERS])


def first_stone_advice(match: Match, players: dict[str, Player]) -> str:
    """Said where the first player places Black's opening stone (no_komi, R7): the stone the bot
    puts closest to even (not worth a swap, nor a gift), when the opponent is a bot file."""
    from ..bot.bot import Bot

    bots = [p for p in _judges(players) if isinstance(p, Bot)]
    lines = [] if not bots else [
        f"The bot's estimate of a fair opening stone: {bots[0].choose_first_stone(match.config)} (the one its "
        f"heads put closest to even, as 'catena-zero komi --table' computes it)."]
    return "\n".join(fill(line) for line in [*lines, FIRST_STONE_MATTERS])


def legal_summary(match: Match) -> str:
    """The answer to 'moves': what may be typed now."""
    if match.phase is Phase.KOMI:
        lo, hi = komi_range(match.config.scoring)
        return f"choose the komi: a whole number from {lo} to {hi} (e.g. 'komi 7' or '7')"
    if match.phase is Phase.PLAY:
        return "legal: " + " ".join(match.game.legal_moves())
    if match.config.game_type_rule.has_swap:  # one spelling: as the intro, the help and Tab say it
        return "choose: 'white' keeps White, 'swap' takes over Black and its stone"
    return "legal: " + ", ".join(map(str, setup_choices(match)))


NO_SUCH_MOVES = ("pass", "resign")


def no_such_move(command: str, match: Match) -> str:
    """Pass and resign do not exist in Catena (R4); say what comes closest."""
    game = match.game
    free = match.phase is Phase.PLAY and game is not None and game.can_take_button()
    button = ("'button' takes the button (R4) instead of placing a stone, once per game; it is free now"
              if free else "taking the button (R4) is the one move that places no stone, and it is not "
                           "open now")
    if command == "pass":
        return f"there is no pass in Catena: {button}. Type 'moves' for the legal moves."
    return f"there is no resign in Catena: 'quit' abandons the game (--save still writes the record); {button}."


def who(match: Match, seat: str) -> str:
    """A seat as the prompt and the event lines name it: "first player (black)"."""
    colour = match.colour_of(seat)
    return f"{seat} player ({colour})" if colour else f"{seat} player"


def fill(line: str) -> str:
    """A long message wrapped for an 80-column terminal (names like catena-zero kept whole)."""
    return textwrap.fill(line, 80, break_on_hyphens=False, break_long_words=False)
