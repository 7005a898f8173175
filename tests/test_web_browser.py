"""End to end in a real browser: ``catena-zero serve`` with an exported bot, and headless
Debian chromium driven by selenium through chromedriver.

Two whole games are played by clicking, as a person would: on a desktop window (game type komi:
the person chooses the komi, the bot its colour; hover, evaluation, undo and the record download
on the way) and on a phone-sized screen (390x844, touch; no_komi: the bot places Black's opening
stone, the person swaps). Each time the result the page shows is checked against the engine
replaying the moves the page lists. Screenshots at the start, mid-game and the end go to
``$CATENA_SCREENSHOTS`` if set (else the test's temporary folder).

Needs ``chromium`` and ``chromedriver`` on the PATH: ``make test`` installs Debian's packages
(``chromium``, ``chromium-driver``) when they are missing. Without them this test fails; it is
never skipped.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver import ActionChains
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from catena_zero.game import GameConfig
from catena_zero.game.match import Match
from catena_zero.game.records import parse_record
from web_helpers import ROOT, make_bot_file
from events import evs, texts

CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--no-first-run"]
PHONE = {"width": 390, "height": 844, "pixelRatio": 2.0, "touch": True}
WAIT_S = 120  # the machine may be busy: a bot move or a browser start can take a while


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("CATENA_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    """``catena-zero serve`` in a subprocess on a free port; its printed address."""
    bot = make_bot_file(tmp_path_factory.mktemp("bot"))
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "catena_zero.cli", "serve", "--bot", str(bot), "--port", "0",
         "--simulations", "2", "--device", "cpu", "--workers", "1", "--threads", "1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    url, seen, deadline = None, [], time.monotonic() + WAIT_S
    while url is None and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        seen.append(line)
        found = re.search(r"open (http://127\.0\.0\.1:\d+/) in a browser", line)
        url = found.group(1) if found else None
    if url is None:
        proc.kill()
        pytest.fail("catena-zero serve did not print its address:\n" + "".join(seen))
    yield url
    proc.send_signal(signal.SIGINT)  # Ctrl-C: uvicorn shuts down cleanly
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def browser(tmp_path: Path, phone: bool) -> webdriver.Chrome:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("the browser test needs Debian's chromium and chromium-driver: `make test` installs them "
                    "(or: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROME_FLAGS + [f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
    else:
        options.add_argument("--window-size=1280,900")
    return webdriver.Chrome(service=Service(driver), options=options)


# ------------------------------------------------------------------------------ page helpers


def wait_for_person(d) -> str:
    """Wait until the person is to act (or the game is over); returns body[data-turn]."""
    body = d.find_element(By.TAG_NAME, "body")
    WebDriverWait(d, WAIT_S).until(
        lambda _: body.get_attribute("data-busy") == "0" and body.get_attribute("data-turn") in ("human", "over"))
    return body.get_attribute("data-turn")


def visible(d, css: str) -> bool:
    return any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, css))


def start_game(d, url: str, game_type: str, seat: str) -> None:
    d.get(url)
    dialog = d.find_element(By.ID, "new-game")
    WebDriverWait(d, WAIT_S).until(lambda _: dialog.get_attribute("open") is not None)
    # Every game type and scoring the bot supports is offered.
    assert [o.get_attribute("value") for o in Select(d.find_element(By.ID, "opt-type")).options] == \
        ["komi", "no_komi", "double"]
    assert [o.get_attribute("value") for o in Select(d.find_element(By.ID, "opt-scoring")).options] == \
        ["standard", "longest", "quadratic"]
    Select(d.find_element(By.ID, "opt-side")).select_by_value("3")
    Select(d.find_element(By.ID, "opt-type")).select_by_value(game_type)
    Select(d.find_element(By.ID, "opt-scoring")).select_by_value("standard")
    d.find_element(By.CSS_SELECTOR, f"input[name=seat][value={seat}]").click()
    d.find_element(By.ID, "start").click()
    WebDriverWait(d, WAIT_S).until(lambda _: dialog.get_attribute("open") is None)


def click_a_legal_cell(d, k: int) -> str:
    cells = d.find_elements(By.CSS_SELECTOR, "#board .cell.legal")
    assert cells, "the person is to move but no cell is marked legal"
    cell = cells[(7 * k) % len(cells)]
    name = cell.get_attribute("data-cell")
    cell.click()
    return name


def page_events(d) -> list[str]:
    return [li.get_attribute("data-event") for li in d.find_elements(By.CSS_SELECTOR, "#moves li")]


def check_result_against_engine(d, url: str, game_type: str) -> None:
    """The result the page shows is the engine's for the events the page lists (R6, R7)."""
    result = d.find_element(By.ID, "result")
    assert result.is_displayed()
    events = page_events(d)
    match = Match.replay(GameConfig(side=3, game_type=game_type, scoring="standard"), evs(events))
    assert match.phase == "over", events
    game = match.game
    scores = game.scores()
    assert result.get_attribute("data-winner") == (game.winner or "draw")
    assert float(result.get_attribute("data-black")) == scores["black"]
    assert float(result.get_attribute("data-white")) == scores["white"]
    shown = {e.get_attribute("class").split()[1]: float(e.get_attribute("data-score"))
             for e in d.find_elements(By.CSS_SELECTOR, "#score .score-item")}
    assert shown == scores
    human_seat = "first" if d.find_elements(By.CSS_SELECTOR, "#moves li")[0].get_attribute("data-by") == "human" \
        else "second"
    headline = result.find_element(By.TAG_NAME, "strong").text
    if game.winner is None:
        assert headline == "Draw"
    else:
        assert headline == ("You win!" if match.winning_player == human_seat else "The bot wins")
    assert "Game over" in d.find_element(By.ID, "turn").text
    # The record behind the download link replays to the same game.
    href = d.find_element(By.ID, "download").get_attribute("href")
    record = parse_record(httpx.get(href, timeout=30).text)
    assert texts(record.events) == events and record.result.winner == game.winner


def play_to_the_end(d, shots: Path, name: str, komi: str = "2", colour: str = "black") -> int:
    """Answer set-up choices and click legal cells until the game is over; returns moves clicked."""
    clicks = 0
    for _ in range(100):
        if wait_for_person(d) == "over":
            return clicks
        if visible(d, "#komi-choice"):
            box = d.find_element(By.ID, "komi-input")
            box.clear()
            box.send_keys(komi)
            d.find_element(By.ID, "komi-ok").click()
        elif visible(d, "#colour-choice"):
            d.find_element(By.CSS_SELECTOR, f"#colour-buttons button[data-colour={colour}]").click()
        else:
            click_a_legal_cell(d, clicks)
            clicks += 1
            if clicks == 3:
                wait_for_person(d)
                d.save_screenshot(str(shots / f"{name}-mid.png"))
    raise AssertionError("the game did not end")


# ------------------------------------------------------------------------------ the tests


def test_desktop_whole_game_with_komi_choice_hover_evaluation_undo(server_url, shots, tmp_path):
    d = browser(tmp_path, phone=False)
    try:
        start_game(d, server_url, "komi", "first")
        wait_for_person(d)
        assert visible(d, "#komi-choice") and not visible(d, "#colour-choice")
        assert "choose the komi" in d.find_element(By.ID, "turn").text
        assert len(d.find_elements(By.CSS_SELECTOR, "#board .cell")) == 19
        labels = {t.text for t in d.find_elements(By.CSS_SELECTOR, "#board .cell .label")}
        assert labels == {"A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "C5",
                          "D2", "D3", "D4", "D5", "E3", "E4", "E5"}  # every cell names itself
        d.save_screenshot(str(shots / "desktop-start.png"))
        box = d.find_element(By.ID, "komi-input")
        box.clear()
        box.send_keys("2")
        d.find_element(By.ID, "komi-ok").click()
        wait_for_person(d)  # the bot chooses its colour (and moves first if it took Black)
        events = page_events(d)
        assert events[0] == "komi 2" and events[1] in ("colour black", "colour white")
        assert "komi 2" in d.find_element(By.ID, "score").text

        # Hover tells legal from illegal; the status bar says whose move it is.
        legal = d.find_elements(By.CSS_SELECTOR, "#board .cell.legal")
        ActionChains(d).move_to_element(legal[0]).perform()
        assert "you may place" in d.find_element(By.ID, "hover").text
        assert d.find_element(By.ID, "turn").text.startswith("Your move")
        first = click_a_legal_cell(d, 0)
        wait_for_person(d)
        assert first in page_events(d)
        # The bot's reply is ringed; an untrained bot may take the button instead, which has no cell.
        rings = d.find_elements(By.CSS_SELECTOR, "#board .last-move")
        assert bool(rings) == (page_events(d)[-1] != "button"), page_events(d)
        occupied = d.find_element(By.CSS_SELECTOR, f"#board .stone[data-cell={first}]")
        ActionChains(d).move_to_element(occupied).perform()
        assert d.find_element(By.ID, "hover").text.startswith(f"{first}: ")

        # The bot's evaluation on request.
        d.find_element(By.ID, "btn-eval").click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#analysis"))
        text = d.find_element(By.ID, "analysis").text
        assert "Value" in text and "Score" in text and "Best move" in text and "% to win" in text
        assert d.find_elements(By.CSS_SELECTOR, "#board .suggested")

        # Undo takes back the person's move and the bot's reply.
        before = page_events(d)
        d.find_element(By.ID, "btn-undo").click()
        wait_for_person(d)
        after = page_events(d)
        assert after == before[:before.index(first)] and not visible(d, "#analysis")

        clicks = play_to_the_end(d, shots, "desktop")
        assert clicks >= 1
        d.save_screenshot(str(shots / "desktop-end.png"))
        check_result_against_engine(d, server_url, "komi")
    finally:
        d.quit()


def test_phone_whole_game_no_komi_swap_by_tapping(server_url, shots, tmp_path):
    d = browser(tmp_path, phone=True)
    try:
        start_game(d, server_url, "no_komi", "second")
        wait_for_person(d)  # the bot has placed Black's opening stone
        assert visible(d, "#colour-choice")
        assert "opening stone" in d.find_element(By.ID, "colour-text").text
        assert len(d.find_elements(By.CSS_SELECTOR, "#board .stone")) == 1
        d.save_screenshot(str(shots / "phone-start.png"))

        # The page fits the phone: no sideways scrolling, the board fills the width, the cell
        # names are large enough to read, the bar stays on screen when the page scrolls.
        width = d.execute_script("return window.innerWidth")
        assert width == 390
        assert d.execute_script("return document.documentElement.scrollWidth") <= width
        board = d.find_element(By.ID, "board").rect
        assert 340 <= board["width"] <= width
        label = d.find_element(By.CSS_SELECTOR, "#board .cell .label")
        assert label.rect["height"] >= 9, label.rect
        d.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        assert d.find_element(By.ID, "bar").rect["y"] <= d.execute_script("return window.scrollY") + 1
        d.execute_script("window.scrollTo(0, 0)")

        d.find_element(By.CSS_SELECTOR, "#colour-buttons button[data-colour=black]").click()  # swap
        wait_for_person(d)
        events = page_events(d)
        assert events[1] == "swap"
        assert "you" in d.find_element(By.CSS_SELECTOR, "#score .score-item.black").text
        play_to_the_end(d, shots, "phone")
        d.save_screenshot(str(shots / "phone-end.png"))
        check_result_against_engine(d, server_url, "no_komi")
    finally:
        d.quit()


def test_double_game_has_no_button_control_and_the_bot_places_two_stones(server_url, shots, tmp_path):
    d = browser(tmp_path, phone=False)
    try:
        start_game(d, server_url, "double", "first")
        wait_for_person(d)
        assert not d.find_element(By.ID, "btn-button").is_displayed()  # no button in double (R8)
        assert "button" not in d.find_element(By.ID, "score").text
        click_a_legal_cell(d, 0)  # Black's single opening stone
        wait_for_person(d)
        events = page_events(d)
        assert [li.get_attribute("data-by") for li in d.find_elements(By.CSS_SELECTOR, "#moves li")] == \
            ["human", "bot", "bot"], events
        click_a_legal_cell(d, 1)
        wait_for_person(d)
        assert d.find_element(By.ID, "turn").text == "Your move (Black, second stone)"
        d.save_screenshot(str(shots / "desktop-double.png"))
    finally:
        d.quit()


def test_komi_advice_rules_strength_review_numbers_graph_and_result_explanation(server_url, shots, tmp_path):
    """The players' items: the bot's fair komi where the komi is chosen (the box starts at it),
    the rules panel from the header, a strength chosen at the start, the result explained as
    the terminal does, review with buttons and arrow keys, move numbers, the value graph."""
    d = browser(tmp_path, phone=False)
    try:
        d.get(server_url)
        dialog = d.find_element(By.ID, "new-game")
        WebDriverWait(d, WAIT_S).until(lambda _: dialog.get_attribute("open") is not None)
        Select(d.find_element(By.ID, "opt-side")).select_by_value("3")
        Select(d.find_element(By.ID, "opt-type")).select_by_value("komi")
        Select(d.find_element(By.ID, "opt-budget-kind")).select_by_value("simulations")
        amount = d.find_element(By.ID, "opt-budget")
        assert amount.is_displayed() and amount.get_attribute("max") == "2000"
        amount.clear()
        amount.send_keys("3")
        d.find_element(By.ID, "start").click()
        WebDriverWait(d, WAIT_S).until(lambda _: dialog.get_attribute("open") is None)
        wait_for_person(d)
        assert "bot: 3 simulations a move" in d.find_element(By.ID, "options-line").text

        # The komi box starts at the bot's fair komi, said in words, with why it matters.
        advice = d.find_element(By.ID, "komi-advice")
        WebDriverWait(d, WAIT_S).until(lambda _: advice.get_attribute("data-komi"))
        gid = d.execute_script("return location.hash.slice(1)")
        fair = httpx.get(f"{server_url}api/games/{gid}/komi-advice", timeout=30).json()["komi"]
        assert advice.get_attribute("data-komi") == str(fair)
        assert d.find_element(By.ID, "komi-input").get_attribute("value") == str(fair)
        assert f"fair komi: {fair}" in advice.text and "Why it matters" in d.find_element(By.ID, "komi-why").text

        # The rules panel opens from the header.
        d.find_element(By.ID, "btn-rules").click()
        rules = d.find_element(By.ID, "rules")
        assert rules.get_attribute("open") is not None
        text = rules.text
        for word in ("ribbon", "claimed", "button", "ends when no cell is legal"):
            assert word in text, word
        d.find_element(By.ID, "rules-close").click()
        assert rules.get_attribute("open") is None

        play_to_the_end(d, shots, "players", komi=str(fair))
        state = httpx.get(f"{server_url}api/games/{gid}", timeout=30).json()
        # The result is explained: the terminal's lines, the button, stones taken over marked.
        why = d.find_element(By.CSS_SELECTOR, "#result .why").text
        assert "Standard scoring (R6): black " in why and "Button: " in why
        taken = {c["name"] for c in state["cells"] if c["stone"] and c["placed"] != c["stone"]}
        marked = {e.get_attribute("data-cell") for e in d.find_elements(By.CSS_SELECTOR, "#board .stone.converted")}
        assert marked == taken and len(d.find_elements(By.CSS_SELECTOR, "#board .stone .was")) == len(taken)
        dead = {c["name"] for c in state["cells"] if c["unplayable"]}
        assert dead == {c["name"] for c in state["cells"] if not c["stone"]}  # over: every empty cell
        assert {e.get_attribute("data-cell") for e in d.find_elements(By.CSS_SELECTOR, "#board .cell.dead")} == dead
        # Hovering a stone is information, not a refusal: not red.
        stone = d.find_elements(By.CSS_SELECTOR, "#board .stone")[0]
        ActionChains(d).move_to_element(stone).perform()
        assert d.find_element(By.ID, "hover").get_attribute("class") == "hint neutral"

        # The graph has a point for each position the bot searched.
        points = int(d.find_element(By.ID, "graph").get_attribute("data-points"))
        assert points == len(state["values"]) and points >= 1
        assert len(d.find_elements(By.CSS_SELECTOR, "#graph .value-dot")) == points
        d.save_screenshot(str(shots / "players-end.png"))

        # Review: Home shows the empty board, Right one move, the buttons step and return.
        n = state["move_number"]
        body = d.find_element(By.TAG_NAME, "body")
        body.send_keys("\ue011")  # Home
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move 0 of {n}")
        assert not d.find_elements(By.CSS_SELECTOR, "#board .stone") and visible(d, "#review-note")
        body.send_keys("\ue014")  # Right arrow
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move 1 of {n}")
        first = [e for e in state["events"] if not e["event"].startswith(("komi", "colour"))][0]["event"]
        stones = d.find_elements(By.CSS_SELECTOR, "#board .stone")
        assert [s.get_attribute("data-cell") for s in stones] == ([] if first == "button" else [first])
        # The hover line while reviewing describes the position shown, and is said again after a
        # step (the pointer stays put, so no new hover event comes): never the position before.
        empty = [c["name"] for c in state["cells"] if c["name"] not in {first}][-1]
        ActionChains(d).move_to_element(d.find_element(By.CSS_SELECTOR, f"#board .cell[data-cell={empty}]")).perform()
        hover = d.find_element(By.ID, "hover")
        WebDriverWait(d, WAIT_S).until(lambda _: hover.text.startswith(f"{empty}: reviewing move 1:"))
        assert "Play from here" in hover.text
        body.send_keys("\ue014")  # Right arrow, the pointer still on the cell
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move 2 of {n}")
        WebDriverWait(d, WAIT_S).until(lambda _: hover.text.startswith(f"{empty}: ")
                                       and any(said in hover.text for said in ("reviewing move 2:", "stone, move 2", "nobody can ever")))
        body.send_keys("\ue012")  # Left arrow: back to move 1
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move 1 of {n}")
        d.find_element(By.ID, "opt-numbers").click()  # move numbers on the stones
        if first != "button":  # an untrained bot may open by taking the button
            assert d.find_element(By.CSS_SELECTOR, f"#board .stone[data-cell={first}] .label").text == "1"
        d.save_screenshot(str(shots / "players-review.png"))
        d.find_element(By.ID, "rv-forward").click()
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move 2 of {n}")
        d.find_element(By.ID, "rv-last").click()
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move {n} of {n}")
        assert not visible(d, "#review-note")
        labels = {e.text for e in d.find_elements(By.CSS_SELECTOR, "#board .stone .label")}
        assert labels == {str(c["move"]) for c in state["cells"] if c["stone"]}
        body.send_keys("\ue012")  # Left arrow
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move {n - 1} of {n}")
        # The bar's score is the reviewed position's (the server's R6 scores after n - 1 moves).
        shown = httpx.get(f"{server_url}api/games/{gid}/review/{n - 1}", timeout=30).json()
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "score").get_attribute("data-move") == str(n - 1))
        bar = {e.get_attribute("class").split()[1]: float(e.get_attribute("data-score"))
               for e in d.find_elements(By.CSS_SELECTOR, "#score .score-item")}
        assert bar == shown["scores"], (bar, shown["scores"])

        # Issue 28, after the game: Evaluate the reviewed position, with its ownership map.
        evaluate = d.find_element(By.ID, "btn-eval")
        assert evaluate.is_enabled()
        evaluate.click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#analysis"))
        assert f"after move {n - 1}, reviewed" in d.find_element(By.ID, "analysis").text
        assert d.find_element(By.ID, "rv-where").text == f"move {n - 1} of {n}"  # still reviewing
        assert not d.find_elements(By.CSS_SELECTOR, "#board .owner")
        d.find_element(By.ID, "opt-ownership").click()
        shaded = d.find_elements(By.CSS_SELECTOR, "#board .owner")
        assert len(shaded) == len(state["cells"])
        analysed = httpx.get(f"{server_url}api/games/{gid}/analysis", params={"move": n - 1}, timeout=60).json()
        for e in shaded[:5]:
            v = analysed["ownership"][e.get_attribute("data-cell")]
            assert ("black" if v >= 0 else "white") in e.get_attribute("class")
        d.save_screenshot(str(shots / "players-ownership.png"))
        # Stepping away hides what described another position.
        body.send_keys("\ue012")
        WebDriverWait(d, WAIT_S).until(lambda _: not visible(d, "#analysis"))
        assert not d.find_elements(By.CSS_SELECTOR, "#board .owner")

        # Analyse game: every position on the graph, the worst moves marked there and in the list.
        d.find_element(By.ID, "btn-analyse").click()
        WebDriverWait(d, WAIT_S).until(lambda _: int(d.find_element(By.ID, "graph").get_attribute("data-points")) == n + 1
                                       and d.find_element(By.ID, "btn-analyse").text == "Analyse game")
        final = httpx.get(f"{server_url}api/games/{gid}", timeout=30).json()
        worst = sorted((l for l in final["losses"] if l["value_loss"] >= 0.1), key=lambda l: -l["value_loss"])[:3]
        marked = {int(e.get_attribute("data-move")) for e in d.find_elements(By.CSS_SELECTOR, "#moves li.mistake")}
        assert marked == {l["move"] for l in worst}
        assert {int(e.get_attribute("data-move")) for e in d.find_elements(By.CSS_SELECTOR, "#graph .mistake-mark")} == marked
        message = d.find_element(By.ID, "message")
        assert "Analysed" in message.text and "info" in message.get_attribute("class").split()  # not an error box
        d.save_screenshot(str(shots / "players-analysed.png"))

        # A variation: from a reviewed position, play on in a new game; back to the game after.
        d.find_element(By.TAG_NAME, "body").send_keys("\ue010")  # End: the game as it stands
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move {n} of {n}")
        assert not d.find_element(By.ID, "btn-variation").is_enabled()  # not reviewing: nothing to branch from
        d.find_element(By.TAG_NAME, "body").send_keys("\ue012")  # Left arrow
        WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "rv-where").text == f"move {n - 1} of {n}")
        d.find_element(By.ID, "btn-variation").click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#variation-note"))
        branch_id = d.execute_script("return location.hash.slice(1)")
        branch = httpx.get(f"{server_url}api/games/{branch_id}", timeout=30).json()
        assert branch_id != gid and branch["variation_of"] == {"game": gid, "move": n - 1}
        assert f"from move {n - 1} of your game" in d.find_element(By.ID, "variation-note").text
        WebDriverWait(d, WAIT_S).until(
            lambda _: httpx.get(f"{server_url}api/games/{branch_id}", timeout=30).json()["move_number"] >= n - 1)
        d.save_screenshot(str(shots / "players-variation.png"))
        d.find_element(By.ID, "btn-back-to-game").click()
        WebDriverWait(d, WAIT_S).until(lambda _: d.execute_script("return location.hash.slice(1)") == gid
                                       and not visible(d, "#variation-note"))
        assert d.find_element(By.ID, "rv-where").text == f"move {n} of {n}"
        assert httpx.get(f"{server_url}api/games/{gid}", timeout=30).json()["move_number"] == n  # unchanged
    finally:
        d.quit()
