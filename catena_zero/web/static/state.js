// The page's state: one object, defined here and nowhere else (no other module keeps a variable
// of its own), and the questions every part asks of it. Sealed, so a misspelt field is an error
// instead of a new field.

import { cap } from "./util.js";

export const page = Object.seal({
  info: null,        // GET /api/info: the bot's default and supported options
  game: null,        // the current game's state (GET /api/games/{id})
  busy: false,       // a request that may change the game is in flight
  analysisFor: -1,   // version of the state the analysis panel describes
  analysisAt: -1,    // the move number of the position it describes
  analysis: null,    // the bot's Analysis of that position
  ownership: null,   // cell name -> Black's expected ownership there, [-1, 1] (same position)
  analysing: false,  // a whole-game analysis is running (its button stops it)
  reviewAt: null,    // the move number shown while reviewing; null: the game as it stands
  reviewView: null,  // GET .../review/{k}: the position shown while reviewing
  adviceFor: null,   // the game whose komi advice was asked for
  hovered: null,     // the name of the cell under the pointer: the hover line is said again for
                     // every position shown, so it never describes the position before a step
  pv: null,          // the candidate whose principal variation the board shows ({move, pv}), or null
});

export const gamePath = (suffix = "") => `/api/games/${page.game.id}${suffix}`;
export const who = (seat) => (seat === page.game.human ? "you" : "the bot");

export function seatOfColour(colour) {
  for (const seat of ["first", "second"]) if (page.game.colours[seat] === colour) return seat;
  return null;
}

// The review: the move number shown (the game as it stands, or a position before it).
export const movesPlayed = () => (page.game ? page.game.move_number : 0);
export const reviewing = () => page.reviewAt !== null && page.reviewAt !== movesPlayed();
export const shownMove = () => (reviewing() ? page.reviewAt : movesPlayed());

// Whether the analysis panel describes the position on the board now.
export const analysisShown = () => page.analysis !== null && page.analysisFor === page.game.version && page.analysisAt === shownMove();

// The (at most 3) moves that lost most value by the bot's evaluations, worst first: move -> loss.
// Only real losses count (at least MISTAKE_VALUE of its player's value, -1..+1 scale).
export const MISTAKE_VALUE = 0.1;
export function mistakes() {
  const worst = (page.game.losses || []).filter((l) => l.value_loss >= MISTAKE_VALUE)
    .sort((a, b) => b.value_loss - a.value_loss).slice(0, 3);
  return new Map(worst.map((l) => [l.move, l]));
}

// How much win chance and how many points each move gave away, by the bot's evaluations of the
// positions before and after it (losses are never negative): move -> {win, points, grade}. The
// grades are OGS's and KaTrain's words for a move's cost in win chance.
export const GRADES = [[20, "blunder"], [10, "mistake"], [5, "inaccuracy"], [0, "good"]];
export function moveCosts() {
  const costs = new Map();
  for (const l of page.game.losses || []) {
    const win = 50 * Math.max(0, l.value_loss), points = Math.max(0, l.score_loss);
    costs.set(l.move, { win, points, grade: GRADES.find(([at]) => win >= at)[1], colour: l.colour });
  }
  return costs;
}

// The position shown: the game as it stands, or the reviewed one (its board, mover, scores, button).
export const shownPosition = () => (reviewing() && page.reviewView ? page.reviewView : null);

export function turnText() {
  const s = page.game;
  const review = shownPosition();
  if (review) {
    // The terminal's line for it: "black to move (second stone of the turn)" (a reviewed position is never the end).
    const mover = review.status.length ? review.status[0].split("; ")[0] : `${review.to_move} to move`;
    return `Reviewing move ${review.move} of ${movesPlayed()}: ${cap(mover)}`;
  }
  if (s.phase === "over") {
    const r = s.result;
    return r.winner === null ? "Game over: a draw" : `Game over: ${r.human_won ? "you win" : "the bot wins"}`;
  }
  if (s.thinking || (page.busy && s.to_act_is === "bot")) return "The bot is thinking…";
  const actor = s.to_act_is === "human" ? "You" : "The bot";
  if (s.phase === "komi") return `${actor} (first player) choose${actor === "You" ? "" : "s"} the komi`;
  if (s.phase === "colour") return `${actor} (second player) choose${actor === "You" ? "" : "s"} a colour`;
  const colour = cap(s.to_move) + (s.second_stone ? ", second stone" : "");
  return s.to_act_is === "human" ? `Your move (${colour})` : `The bot's move (${colour})`;
}

// The variations made from each game ("Play from here"), kept by the browser so that they are
// found again after a reload and saved with the game's record as a tree: game id -> [{id, move}].
const VARIATIONS_KEY = "catena-variations";
export function variationsOf(id) {
  try {
    const all = JSON.parse(localStorage.getItem(VARIATIONS_KEY) || "{}");
    return Array.isArray(all[id]) ? all[id].filter((v) => typeof v.id === "string" && Number.isInteger(v.move)) : [];
  } catch (err) {
    return [];
  }
}
function storeVariations(change) {
  try {
    const all = JSON.parse(localStorage.getItem(VARIATIONS_KEY) || "{}");
    change(all);
    localStorage.setItem(VARIATIONS_KEY, JSON.stringify(all));
  } catch (err) { /* storage off (a private window): the variations live as long as the page */ }
}
export function addVariation(parent, id, move) {
  storeVariations((all) => { all[parent] = [...(all[parent] || []).filter((v) => v.id !== id), { id, move }]; });
}
export function forgetVariation(id) {
  storeVariations((all) => { for (const key of Object.keys(all)) all[key] = all[key].filter((v) => v.id !== id); });
}
// Every variation below game ``id``, each after the line it branches from (the record's order).
export function variationTree(id) {
  const out = [];
  const queue = [id];
  while (queue.length && out.length < 64) {
    for (const v of variationsOf(queue.shift())) { out.push(v.id); queue.push(v.id); }
  }
  return out.slice(0, 64);
}
