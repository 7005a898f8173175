// Catena against the bot: the page's script, as ES modules the browser loads itself (no build
// step, nothing from elsewhere; index.html loads this one, which imports the rest). It draws the
// state the server sends (GET /api/games/{id}) and sends the person's choices; the rules live on
// the server, so the page never decides what is legal by itself.
//
//   app.js     start: wires the page's controls to the game's flow, asks /api/info
//   game.js    the game's flow: requests that change the game, the bot's turns, review, analysis
//   board.js   the board's SVG (cell positions from the server's board view), hover and tap
//   panel.js   the bar and the side panel; graph.js the value graph; dialog.js the new-game dialog
//   state.js   the page's one state object and the questions asked of it
//   api.js     JSON requests; util.js small DOM and number helpers

import { api } from "./api.js";
import { fillBudget, fillOptions, openNewGame } from "./dialog.js";
import {
  act, analyseGame, backToGame, evaluate, playFromHere, redrawBoard, resume, reviewTo, submitNewGame,
} from "./game.js";
import { showError, showMessage } from "./panel.js";
import { movesPlayed, page, reviewing } from "./state.js";
import { $ } from "./util.js";

async function main() {
  $("komi-ok").addEventListener("click", () => {
    const input = $("komi-input");
    const value = Number(input.value);
    if (!Number.isInteger(value) || input.value.trim() === "") {
      showMessage(`The komi must be a whole number from ${input.min} to ${input.max}.`);
      return;
    }
    act("/komi", { komi: value });
  });
  $("komi-input").addEventListener("input", () => { $("komi-input").dataset.touched = "1"; });
  $("btn-button").addEventListener("click", () => act("/move", { move: "button" }));
  $("btn-undo").addEventListener("click", () => act("/undo"));
  $("btn-eval").addEventListener("click", evaluate);
  $("btn-analyse").addEventListener("click", analyseGame);
  $("btn-variation").addEventListener("click", playFromHere);
  $("btn-back-to-game").addEventListener("click", backToGame);
  $("opt-ownership").addEventListener("change", redrawBoard);
  $("btn-new").addEventListener("click", openNewGame);
  $("cancel-new").addEventListener("click", () => $("new-game").close());
  $("new-game-form").addEventListener("submit", submitNewGame);
  for (const id of ["opt-side", "opt-type", "opt-scoring"]) $(id).addEventListener("change", fillOptions);
  $("opt-budget-kind").addEventListener("change", fillBudget);
  $("btn-rules").addEventListener("click", () => $("rules").showModal());
  $("rules-close").addEventListener("click", () => $("rules").close());
  $("rv-first").addEventListener("click", () => reviewTo(0));
  $("rv-back").addEventListener("click", () => reviewTo((reviewing() ? page.reviewAt : movesPlayed()) - 1));
  $("rv-forward").addEventListener("click", () => reviewTo((reviewing() ? page.reviewAt : movesPlayed()) + 1));
  $("rv-last").addEventListener("click", () => reviewTo(movesPlayed()));
  $("opt-numbers").addEventListener("change", redrawBoard);
  document.addEventListener("keydown", (event) => {
    if (!page.game || document.querySelector("dialog[open]")) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const at = reviewing() ? page.reviewAt : movesPlayed();
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: movesPlayed(),
                 ArrowUp: 0, ArrowDown: movesPlayed() }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    reviewTo(to);
  });
  try {
    page.info = await api("GET", "/api/info");
  } catch (err) {
    showError(err);
    $("turn").textContent = "Cannot reach the server";
    return;
  }
  const id = location.hash.slice(1);
  if (id) {
    await resume(id);
  } else {
    $("turn").textContent = "Start a new game";
    openNewGame();
  }
}

document.addEventListener("DOMContentLoaded", main);
