"""Reviewing in a real browser (chromium through selenium, as tests/test_web_browser.py): the move
list jumps to any move on a click or a tap (during a game, after it, after "Analyse game", in a
variation), everything around the board then shows the reviewed position, every move's cost is in
the list and on the graph, a candidate's line shows on the board, the ownership map has a legend
and marks stones too, the Rules dialog covers every game type and scoring and links the full rules.
Screenshots go to ``$CATENA_SCREENSHOTS`` if set (else the test's temporary folder)."""

from __future__ import annotations

import httpx
from catena_zero.game.records import parse_record
from selenium.webdriver import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from test_web_browser import (  # noqa: F401 (server_url, shots: fixtures)
    WAIT_S, browser, click_a_legal_cell, page_events, play_to_the_end, server_url, shots, start_game, visible,
    wait_for_person)


def where(d) -> str:
    return d.find_element(By.ID, "rv-where").text


def tap_entry(d, k: int) -> None:
    """Click (or tap) the move list's entry for move k and wait until the board shows it."""
    entry = d.find_element(By.CSS_SELECTOR, f"#moves li[data-move='{k}']")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", entry)
    entry.click()
    n = int(where(d).split(" of ")[1])
    WebDriverWait(d, 30).until(lambda _: where(d) == f"move {k} of {n}")  # one local request
    WebDriverWait(d, WAIT_S).until(lambda _: d.find_element(By.ID, "score").get_attribute("data-move") == str(k))


def game_id(d) -> str:
    return d.execute_script("return location.hash.slice(1)")


def check_review_surroundings(d, url: str, k: int, n: int) -> None:
    """Title, button control and result box describe the position after k moves, as the server has it."""
    view = httpx.get(f"{url}api/games/{game_id(d)}/review/{k}", timeout=30).json()
    assert d.find_element(By.ID, "turn").text.startswith(f"Reviewing move {k} of {n}: "), d.find_element(By.ID, "turn").text
    assert view["to_move"].capitalize() in d.find_element(By.ID, "turn").text
    button = d.find_element(By.ID, "btn-button")
    assert button.get_attribute("data-holder") == (view["button_holder"] or "") and not button.is_enabled()
    result = d.find_element(By.ID, "result")
    if result.is_displayed():  # a finished game: the box counts the reviewed position, the result in one line
        assert result.get_attribute("data-reviewing") == "1"
        assert result.find_element(By.TAG_NAME, "strong").text == f"After move {k} of {n}"
        text = result.text
        assert f"Black {view['scores']['black']:g}, White {view['scores']['white']:g}" in text
    assert d.find_element(By.CSS_SELECTOR, "#moves li.current").get_attribute("data-move") == str(k)


def test_desktop_review_by_the_list_costs_lines_ownership_and_rules(server_url, shots, tmp_path):
    d = browser(tmp_path, phone=False)
    try:
        start_game(d, server_url, "komi", "first")
        wait_for_person(d)
        box = d.find_element(By.ID, "komi-input")
        box.clear()
        box.send_keys("2")
        d.find_element(By.ID, "komi-ok").click()
        for k in range(2):  # a few moves each, then review during the game
            wait_for_person(d)
            click_a_legal_cell(d, k)
        wait_for_person(d)
        n = int(where(d).split(" of ")[1])
        assert n >= 3
        tap_entry(d, 1)
        check_review_surroundings(d, server_url, 1, n)
        tap_entry(d, 2)
        check_review_surroundings(d, server_url, 2, n)
        d.save_screenshot(str(shots / "review-desktop-during.png"))
        d.find_element(By.ID, "rv-last").click()
        WebDriverWait(d, WAIT_S).until(lambda _: where(d) == f"move {n} of {n}")
        assert d.find_element(By.ID, "turn").text.startswith("Your move")

        play_to_the_end(d, shots, "review")
        state = httpx.get(f"{server_url}api/games/{game_id(d)}", timeout=30).json()
        n = state["move_number"]
        for k in (1, n - 2, 2):  # any entry, in any order: not the last move every time
            tap_entry(d, k)
            check_review_surroundings(d, server_url, k, n)
        d.save_screenshot(str(shots / "review-desktop-after.png"))

        # Evaluate the reviewed position: hovering a candidate shows its line, numbered, on the board.
        # (Scrolled into view as a person would: the list's taps left it wherever the list was.)
        evaluate = d.find_element(By.ID, "btn-eval")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", evaluate)
        evaluate.click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#analysis"))
        analysed = httpx.get(f"{server_url}api/games/{game_id(d)}/analysis", params={"move": 2}, timeout=60).json()
        first = analysed["analysis"]["moves"][0]
        row = d.find_element(By.CSS_SELECTOR, f"#analysis tr.candidate[data-move='{first['move']}']")
        ActionChains(d).move_to_element(row).perform()
        line = [m for m in (first.get("pv") or [first["move"]])]
        drawn = d.find_elements(By.CSS_SELECTOR, "#board .pv-stone")
        cells = [m for m in line if m != "button"]
        assert [e.get_attribute("data-cell") for e in drawn] == cells
        assert [e.get_attribute("data-order") for e in drawn] == [str(i + 1) for i, m in enumerate(line) if m != "button"]
        colours = ["black" if "black" in e.get_attribute("class").split() else "white" for e in drawn]
        assert colours[0] == analysed["to_move"]
        d.save_screenshot(str(shots / "review-desktop-pv.png"))
        ActionChains(d).move_to_element(d.find_element(By.ID, "graph")).perform()
        assert not d.find_elements(By.CSS_SELECTOR, "#board .pv-stone")

        # Ownership: a square on every cell, stones included, sized by certainty, with a legend.
        assert not visible(d, "#ownership-legend")
        d.find_element(By.ID, "opt-ownership").click()
        legend = d.find_element(By.ID, "ownership-legend")
        assert legend.is_displayed() and legend.get_attribute("data-shown") == "1"
        assert "hatched" in legend.text and "surer" in legend.text
        squares = d.find_elements(By.CSS_SELECTOR, "#board .owner")
        view = httpx.get(f"{server_url}api/games/{game_id(d)}/review/2", timeout=30).json()
        stones = {c["name"] for c in view["cells"] if c["stone"]}
        assert {e.get_attribute("data-cell") for e in squares} == {c["name"] for c in view["cells"]}
        assert stones <= {e.get_attribute("data-cell") for e in squares}
        sized = sorted((abs(analysed["ownership"][e.get_attribute("data-cell")]), float(e.get_attribute("width")))
                       for e in squares)
        assert [w for _, w in sized] == sorted(w for _, w in sized)  # surer: never smaller
        d.save_screenshot(str(shots / "review-desktop-ownership.png"))
        d.find_element(By.ID, "opt-ownership").click()

        # Analyse game: every move's cost in the list and as a bar on the graph, never negative.
        d.find_element(By.ID, "btn-analyse").click()
        WebDriverWait(d, WAIT_S).until(lambda _: int(d.find_element(By.ID, "graph").get_attribute("data-points")) == n + 1
                                       and d.find_element(By.ID, "btn-analyse").text == "Analyse game")
        costs = d.find_elements(By.CSS_SELECTOR, "#moves li .cost")
        assert len(costs) == n
        for e in costs:
            assert float(e.get_attribute("data-win")) >= 0 and float(e.get_attribute("data-points")) >= 0
            win, points = float(e.get_attribute("data-win")), float(e.get_attribute("data-points"))
            assert "-" not in e.text and "−−" not in e.text and "−0%" not in e.text and "−0.0" not in e.text
            assert e.text.startswith("−") == (round(win) > 0), e.text
        assert len(d.find_elements(By.CSS_SELECTOR, "#graph .loss-bar")) == n
        tap_entry(d, 3)
        check_review_surroundings(d, server_url, 3, n)
        d.save_screenshot(str(shots / "review-desktop-analysed.png"))

        # A variation's list reviews too.
        d.find_element(By.ID, "btn-variation").click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#variation-note"))
        wait_for_person(d)
        branch = game_id(d)
        m = int(where(d).split(" of ")[1])
        tap_entry(d, 1)
        check_review_surroundings(d, server_url, 1, m)
        # Back in the game, the variation is listed, after a reload too, and saved with the record.
        d.find_element(By.ID, "btn-back-to-game").click()
        WebDriverWait(d, WAIT_S).until(lambda _: not visible(d, "#variation-note") and visible(d, "#variations"))
        d.refresh()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#variations"))
        link = d.find_element(By.CSS_SELECTOR, "#variations .variation-link")
        assert link.get_attribute("data-id") == branch and link.get_attribute("data-move") == "3"
        record = parse_record(httpx.get(d.find_element(By.ID, "download").get_attribute("href"), timeout=30).text)
        assert [(v.parent, v.move) for v in record.variations] == [(0, 3)]
        link.click()
        WebDriverWait(d, WAIT_S).until(lambda _: game_id(d) == branch and visible(d, "#variation-note"))

        # The Rules dialog: every game type and scoring, and the full rules one click away.
        d.find_element(By.ID, "btn-rules").click()
        rules = d.find_element(By.ID, "rules")
        assert [e.get_attribute("data-type") for e in rules.find_elements(By.CSS_SELECTOR, "#rules-types li")] == \
            ["komi", "no_komi", "double"]
        assert [e.get_attribute("data-scoring") for e in rules.find_elements(By.CSS_SELECTOR, "#rules-scorings li")] == \
            ["standard", "longest", "quadratic"]
        assert "two stones" in rules.text and "R8" in rules.text and "square of its length" in rules.text
        link = d.find_element(By.ID, "rules-link").get_attribute("href")
        full = httpx.get(link, timeout=30)
        assert full.status_code == 200 and "## R8 Two stones a turn" in full.text
        d.find_element(By.ID, "rules-close").click()
    finally:
        d.quit()


def test_phone_review_by_tapping_the_list_and_evaluate_below_the_bar(server_url, shots, tmp_path):
    d = browser(tmp_path, phone=True)
    try:
        start_game(d, server_url, "no_komi", "second")
        play_to_the_end(d, shots, "review-phone", colour="black")
        n = int(where(d).split(" of ")[1])
        for k in (1, 2):
            tap_entry(d, k)
            check_review_surroundings(d, server_url, k, n)
        d.save_screenshot(str(shots / "review-phone-list.png"))
        # The sticky bar never covers a control: scrolled so Evaluate sits where the bar is, a tap reaches it.
        evaluate = d.find_element(By.ID, "btn-eval")
        d.execute_script("window.scrollTo(0, arguments[0].getBoundingClientRect().top + window.scrollY - 8)", evaluate)
        evaluate.click()
        WebDriverWait(d, WAIT_S).until(lambda _: visible(d, "#analysis"))
        d.find_element(By.ID, "opt-ownership").click()
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(str(shots / "review-phone-ownership.png"))
        # Analyse game, then tap a move in the list: its cost is there, the board shows it.
        d.find_element(By.ID, "btn-analyse").click()
        WebDriverWait(d, WAIT_S).until(lambda _: int(d.find_element(By.ID, "graph").get_attribute("data-points")) == n + 1
                                       and d.find_element(By.ID, "btn-analyse").text == "Analyse game")
        assert len(d.find_elements(By.CSS_SELECTOR, "#moves li .cost")) == n
        tap_entry(d, n - 1)
        check_review_surroundings(d, server_url, n - 1, n)
        d.save_screenshot(str(shots / "review-phone-analysed.png"))
    finally:
        d.quit()
