"""The README and the docs it points to say what the tree holds: links stay inside the repository,
the board sample is what the program draws, and every number the README states that the tree can
check (bots, configs, the main job's bound, the strength table's recipes and CPU-hours, the modules
DESIGN.md's layout lists) is read from the tree here, so it cannot drift."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml

from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
INDEX = json.loads((ROOT / "catena_zero/bots/index.json").read_text(encoding="utf-8"))
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12}


def section(text: str, title: str) -> str:
    """A ``## title`` section of a Markdown page, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section '## {title}'"
    return match[1]


def strength_rows() -> dict[str, list[str]]:
    """The README's strength table: bot file name -> its cells."""
    rows = {}
    for line in section(README, "Strength").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and cells[0].endswith(".bot`"):
            rows[cells[0].strip("`")] = cells
    return rows


@pytest.mark.parametrize("page", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_links_stay_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "../../" not in text and "shared/" not in text
    for target in re.findall(r"\]\(([^)#:]+)", text):
        assert (page.parent / target).exists(), f"{page.name} links to {target}, which is not there"


def test_the_readme_links_every_docs_page():
    assert "(docs/RULES.md)" in README and "(docs/DESIGN.md)" in README
    for page in DOCS:
        assert f"(docs/{page.name})" in README, f"the README does not link docs/{page.name}"


def test_the_readme_stays_a_front_door():
    assert len(README.splitlines()) <= 250


def test_board_sample_is_drawn_by_the_program():
    usage = (ROOT / "docs/USAGE.md").read_text(encoding="utf-8")
    sample = usage.split("Side 3 after Black C3, White B4, Black D3:\n\n```\n", 1)[1].split("```", 1)[0]
    assert sample == render_ascii(Game.replay(GameConfig(side=3), ["C3", "B4", "D3"]), legend=False)


def test_the_strength_table_has_every_shipped_bot_and_its_recipe():
    rows = strength_rows()
    assert sorted(rows) == sorted(INDEX), "one row per bot of catena_zero/bots/index.json"
    for name, cells in rows.items():
        recipe = INDEX[name]["recipe"]
        assert cells[2] == f"`{recipe}`" and (ROOT / recipe).is_file(), name
    counted = re.search(r"(\w+) trained bots ship", section(README, "Strength"))
    assert counted and NUMBER_WORDS.get(counted[1].lower()) == len(INDEX), "the number of bots the README states"


def test_the_strength_tables_cpu_hours_are_the_index_figures():
    """A counted figure is the index's, '+ X's' where the count leaves out the network it started
    from (as the bots' own README writes it); an uncounted run's 'at most' is its index entry's."""
    for name, cells in strength_rows().items():
        entry, hours = INDEX[name], cells[3]
        if "cpu_hours" in entry:
            want = f"{entry['cpu_hours']:.2f}"
            if entry.get("cpu_hours_complete") is False:
                want += f" + {Path(entry.get('cpu_hours_unknown_from') or entry['init_from']).name}'s"
            assert hours == want, name
        else:
            most = re.search(r"at most ([\d.]+) CPU-hours", entry["trained"])
            assert most and hours.startswith(f"at most {most[1]}"), name
            assert ("+" in hours) == bool(entry.get("init_from")), name


def test_the_strength_tables_figures_are_in_results():
    """Each score with its interval in the table is one RESULTS.md measured, word for word."""
    results = (ROOT / "docs/RESULTS.md").read_text(encoding="utf-8")
    for name, cells in strength_rows().items():
        figures = re.findall(r"\d+(?:\.\d+)?% \[[\d.]+, [\d.]+\]", cells[4])
        assert figures, name
        for figure in figures:
            assert figure in results, f"{name}: {figure} is not in docs/RESULTS.md"


def test_the_configs_the_readme_lists_are_the_shipped_ones():
    listed = section(README, "Training").split("Configs shipped:", 1)[1].split("\n\n", 1)[0]
    names = set(re.findall(r"`([a-z0-9_]+)`", listed))
    assert names == {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    assert "`recipes/`" in listed and "`ablations/`" in listed
    design = (ROOT / "docs/DESIGN.md").read_text(encoding="utf-8")
    row = next(line for line in design.splitlines() if line.startswith("| `configs/` |"))
    assert set(re.findall(r"`([a-z0-9_]+)`", row)) == {p.stem for p in (ROOT / "configs").glob("*.yaml")}


def test_the_main_jobs_description_is_quick_yaml():
    quick = yaml.safe_load((ROOT / "configs/quick.yaml").read_text(encoding="utf-8"))
    start = section(README, "Quick start")
    minutes = quick["run"]["max_minutes"]
    assert f"stops by itself after {minutes} minutes" in start
    assert f"run bound reached: {minutes} minutes" in start
    assert f"{minutes} minutes of training" in start
    assert f"--set run.max_minutes={2 * minutes}" in start  # the line a run prints: its bound doubled
    assert (f"side {quick['game']['side']}, a {quick['net']['blocks']}-block x {quick['net']['channels']}-channel network"
            in start)
    assert f"with {quick['search']['num_simulations']} simulations" in start
    assert f"one self-play actor of {quick['selfplay']['games_per_actor']} games" in start


def test_the_end_of_a_run_shown_is_what_train_prints():
    """Each line of the README's end of `make train` starts as the code prints it, and the CPU
    line names only the shares the code reports."""
    from catena_zero.train.cputime import CpuReport

    sample = section(README, "Quick start").split("```\n[", 1)[1].split("```", 1)[0]
    sources = "".join(p.read_text(encoding="utf-8") for p in
                      [ROOT / "catena_zero/commands/train.py", *sorted((ROOT / "catena_zero/train").glob("*.py"))])
    prefixes = ["run folder: ", "newest checkpoint: ", "last evaluation (step ", "TensorBoard: ", "extend it with: ",
                "in-loop evaluations skipped to keep them within eval.max_cpu_share: ", "finishing the in-loop evaluation"]
    for prefix in prefixes:
        assert prefix in sample and prefix.split("(")[0].strip() in sources, prefix
    assert re.search(r"^run bound reached: ", sample, re.M) and 'f"run {summary.stop_reason}' in sources
    cpu = re.search(r"^CPU time \(\d+ CPUs x [\d.]+ min\): (.*); [\d.]+ positions per self-play CPU-second$", sample, re.M)
    assert cpu, "the CPU line"
    zeros = {f.name: 0 for f in dataclasses.fields(CpuReport)}
    shares = {name.replace("_", " ") for name in CpuReport(**{**zeros, "cpus": 2, "wall": 1}).shares()}
    for part in cpu[1].split(", "):
        assert part.rsplit(" ", 1)[0] in shares, part


def test_the_readme_states_no_test_count():
    """The suite's size changes with every commit and counting it takes minutes: the README says
    how long the suite took on a dated run, not how many tests it has."""
    assert not re.search(r"\b\d[\d,]* tests\b", README)


def test_design_lists_every_module_of_the_package():
    design = (ROOT / "docs/DESIGN.md").read_text(encoding="utf-8")
    table = {m for m in re.findall(r"^\| `([a-z_]+(?:/|\.py))` \|", design, re.M)}
    package = {p.name + "/" if p.is_dir() else p.name for p in (ROOT / "catena_zero").iterdir()
               if (p.is_dir() and not p.name.startswith("__")) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert package <= table, f"not in DESIGN.md's table: {sorted(package - table)}"
    for folder in ("docs/", "configs/", "scripts/", "tests/"):
        assert f"| `{folder}` |" in design, folder


@pytest.mark.parametrize("page", [ROOT / "README.md", *DOCS, ROOT / "catena_zero/bots/README.md"], ids=lambda p: p.name)
def test_no_page_speaks_of_the_process_that_built_it(page):
    """Runs are named by their run name and date; the sessions, stops and issues that made them are
    git's history, not the product's pages."""
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"\b(?:(?:this|that|next|previous|[a-z-]+th|first|second|third) sessions?|"
                       r"session's (?:end|time|machine|tests)|issue \d+|stop \d+)\b", text, re.I)
    assert not found, f"{page.name}: {sorted(set(found))}"


def test_results_keeps_the_sections_the_code_cites_and_only_images_it_shows():
    results = (ROOT / "docs/RESULTS.md").read_text(encoding="utf-8")
    for title in ("Decisions", "Where `side6.bot` loses", "The interior selection: PUCT below the Gumbel root",
                  "How to train the standard board: from scratch or after side 4", "Fair komi"):
        assert re.search(rf"^#+ {re.escape(title)}$", results, re.M), title
    for plan in ("loop", "learning", "split"):  # catena-zero ablate rewrites its table between these
        assert f"<!-- ablation:{plan} -->" in results and f"<!-- /ablation:{plan} -->" in results, plan
    shown = set(re.findall(r"\]\((results/[^)]+)\)", results))
    assert shown == {f"results/{p.name}" for p in (ROOT / "docs/results").iterdir()}


def test_results_has_a_section_for_every_shipped_bot_with_its_recipe_and_commands():
    results = (ROOT / "docs/RESULTS.md").read_text(encoding="utf-8")
    for name, entry in INDEX.items():
        match = re.search(rf"^## `{re.escape(name)}`.*?\n(.*?)(?=^## |\Z)", results, re.S | re.M)
        assert match, f"no section for {name}"
        body = match[1]
        assert f"**Recipe:** `{entry['recipe']}`" in body, name
        assert "catena-zero train" in body and "**Measure it" in body and "**Strength" in body, name
