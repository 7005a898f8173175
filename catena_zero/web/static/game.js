// The game's flow: what the person's actions send, the bot's turns, review and analysis; each
// answer from the server is shown whole (render). The one module that changes the game on the
// server, and the one that hands the drawing modules what their clicks do.

import { api } from "./api.js";
import { renderBoard } from "./board.js";
import { openNewGame } from "./dialog.js";
import { renderGraph } from "./graph.js";
import {
  renderAnalysis, renderBar, renderControls, renderMoves, renderResult, renderReview, renderSetup, renderVariations,
  showError, showMessage,
} from "./panel.js";
import {
  MISTAKE_VALUE, addVariation, analysisShown, forgetVariation, gamePath, mistakes, movesPlayed, page, reviewing, shownMove,
} from "./state.js";
import { $, cap } from "./util.js";

// What the board's and the panel's clicks do.
const playCell = (name) => act("/move", { move: name });
const chooseColour = (colour) => act("/colour", { colour });

function setBusy(flag, text) {
  page.busy = flag;
  document.body.dataset.busy = flag ? "1" : "0";
  if (page.game) render();
  if (flag && text) $("turn").textContent = text;
}

export async function act(suffix, body) {
  if (page.busy || !page.game) return;
  showMessage("");
  setBusy(true);
  try {
    show(await api("POST", gamePath(suffix), body));
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
  }
  await botLoop();
}

// The bot takes its part whenever it is to act: set-up choices (R7) and moves, one event per request.
async function botLoop() {
  while (page.game && page.game.phase !== "over" && page.game.to_act_is === "bot") {
    setBusy(true, "The bot is thinking…");
    try {
      show(await api("POST", gamePath("/bot")));
    } catch (err) {
      if (err.status === 409 && page.game) {   // already thinking (another tab, or a reload mid-think)
        await waitWhileThinking();
        continue;
      }
      showError(err);
      showMessage(`${$("message").textContent} Reload the page to ask the bot again.`);
      return;
    } finally {
      setBusy(false);
    }
  }
}

async function waitWhileThinking() {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    try {
      show(await api("GET", gamePath()));
    } catch (err) {
      showError(err);
      return;
    }
    if (!page.game.thinking) return;
  }
}

function show(newState) {
  const changed = !page.game || page.game.id !== newState.id || page.game.version !== newState.version;
  page.game = newState;
  if (changed) { page.reviewAt = null; page.reviewView = null; }
  if (location.hash !== `#${page.game.id}`) history.replaceState(null, "", `#${page.game.id}`);
  document.body.dataset.phase = page.game.phase;
  document.body.dataset.turn = page.game.phase === "over" ? "over" : page.game.to_act_is;
  const hover = $("hover");  // what a hover or tap said is stale once the position changed
  hover.innerHTML = "&nbsp;";
  hover.className = "hint";
  render();
}

export async function resume(id) {
  try {
    page.game = { id };
    show(await api("GET", gamePath()));
    await botLoop();
  } catch (err) {
    page.game = null;
    showError(err);
    openNewGame();
  }
}

function render() {
  renderBar();
  renderBoard(playCell);
  renderSetup(chooseColour);
  renderControls();
  renderMoves(reviewTo);
  renderResult();
  renderReview();
  renderGraph(reviewTo);
  renderVariations(openVariation);
  if (!analysisShown()) $("analysis").hidden = true;
}

// A variation this browser made from the game shown: open it (one gone from the server, expired
// or ended, leaves the list).
async function openVariation(id) {
  const from = page.game.id;
  showMessage("");
  page.analysisFor = -1;
  try {
    page.game = { id };
    show(await api("GET", gamePath()));
    await botLoop();
  } catch (err) {
    forgetVariation(id);
    showError(err);
    await resume(from);
  }
}

// A candidate's principal variation on the board (null: none), from the analysis box.
function showPv(m) {
  page.pv = m ? { move: m.move, pv: m.pv && m.pv.length ? m.pv : [m.move] } : null;
  if (page.game) renderBoard(playCell);
}

// The board alone, again (a display option changed).
export function redrawBoard() {
  if (page.game) renderBoard(playCell);
}

export async function reviewTo(k) {
  if (!page.game) return;
  const n = movesPlayed();
  k = Math.max(0, Math.min(n, k));
  page.pv = null;
  if (k === n) {
    page.reviewAt = null;
    page.reviewView = null;
    render();
    return;
  }
  try {
    const view = await api("GET", gamePath(`/review/${k}`));
    page.reviewAt = k;
    page.reviewView = view;
    render();
  } catch (err) {
    showError(err);
  }
}

// The position shown (the game as it stands, or the one reviewed; after the end too), by its
// move number, so the server searches exactly what the board shows.
export async function evaluate() {
  if (page.busy || !page.game) return;
  setBusy(true, "The bot is evaluating…");
  const version = page.game.version;
  try {
    const data = await api("GET", gamePath(`/analysis?move=${shownMove()}`));
    if (page.game.version === version) {
      show(await api("GET", gamePath("")));  // its value joins the graph (same version: the review stays)
      page.pv = null;
      renderAnalysis(data, showPv);
      renderBoard(playCell);  // mark the suggested moves
    }
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
  }
}

// A variation: a new game from the reviewed position; the game itself stays as it was.
export async function playFromHere() {
  if (!page.game || !reviewing()) return;
  try {
    const branch = await api("POST", gamePath("/variation"), { move: page.reviewAt });
    addVariation(page.game.id, branch.id, page.reviewAt);
    showMessage("");
    page.analysisFor = -1;
    show(branch);
    await botLoop();
  } catch (err) {
    showError(err);
  }
}

export async function backToGame() {
  if (!page.game || !page.game.variation_of) return;
  showMessage("");
  page.analysisFor = -1;
  await resume(page.game.variation_of.game);
}

// Every position of the game (those the graph lacks), as OGS's AI review and Sabaki+KataGo do:
// the graph then holds both players' moves, and the moves that lost most are marked on it and in
// the move list. Progress is shown; the button stops it (what was analysed is kept).
export async function analyseGame() {
  if (page.analysing) { page.analysing = false; return; }
  if (page.busy || !page.game) return;
  const version = page.game.version, n = movesPlayed();
  const known = new Set((page.game.values || []).map((p) => p.move));
  const todo = [];
  for (let k = 0; k <= n; k++) if (!known.has(k)) todo.push(k);
  page.analysing = true;
  renderControls();
  try {
    for (let i = 0; i < todo.length && page.analysing && page.game.version === version; i++) {
      $("turn").textContent = `Analysing the game: position ${i + 1} of ${todo.length}…`;
      $("analyse-progress").hidden = false;
      $("analyse-progress").value = i / todo.length;
      await api("GET", gamePath(`/analysis?move=${todo[i]}`));
    }
    if (page.game.version === version) show(await api("GET", gamePath("")));
    const worst = mistakes();
    showMessage(worst.size
      ? `Analysed ${n + 1} positions. The moves that lost most: ` +
        [...worst].map(([k, l]) => `${k} (${l.colour}, −${Math.round(50 * l.value_loss)}% win, −${l.score_loss.toFixed(1)} points)`).join(", ") +
        ". Each move's cost is in the list and on the graph."
      : `Analysed ${n + 1} positions: no move lost ${MISTAKE_VALUE} of value or more.`, "info");
  } catch (err) {
    showError(err);
  } finally {
    page.analysing = false;
    $("analyse-progress").hidden = true;
    render();
  }
}

export async function submitNewGame(event) {
  event.preventDefault();
  const form = $("new-game-form");
  const body = {
    side: Number($("opt-side").value),
    game_type: $("opt-type").value,
    scoring: $("opt-scoring").value,
    seat: form.querySelector("input[name=seat]:checked").value,
  };
  const kind = $("opt-budget-kind").value;
  if (kind !== "default") {
    const amount = Number($("opt-budget").value);
    if (!(amount > 0)) {
      const box = $("new-game-error");
      box.textContent = "The bot's strength must be a number above 0.";
      box.hidden = false;
      return;
    }
    body[kind] = kind === "simulations" ? Math.round(amount) : amount;
  }
  $("start").disabled = true;
  try {
    const newState = await api("POST", "/api/games", body);
    $("new-game").close();
    showMessage("");
    page.analysisFor = -1;
    show(newState);
    await botLoop();
  } catch (err) {
    const box = $("new-game-error");
    box.textContent = cap(err.message);
    box.hidden = false;
  } finally {
    $("start").disabled = false;
  }
}
