// Catena against the bot: the page's script. Plain JavaScript, no build step, no other files.
// It draws the state the server sends (GET /api/games/{id}) and sends the person's choices;
// the rules live on the server, so the page never decides what is legal by itself.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const R = 10;                    // cell radius in SVG units (centre to corner)
const W = Math.sqrt(3) * R;      // distance between neighbouring cell centres

let info = null;     // GET /api/info: the bot's default and supported options
let state = null;    // the current game's state
let busy = false;    // a request that may change the game is in flight
let analysisFor = -1; // version of the state the analysis panel describes
let analysisAt = -1;  // the move number of the position it describes
let analysis = null;  // the bot's Analysis of that position
let ownership = null; // cell name -> Black's expected ownership there, [-1, 1] (same position)
let analysing = false; // a whole-game analysis is running (its button stops it)
let reviewAt = null;  // the move number shown while reviewing; null: the game as it stands
let reviewView = null; // GET .../review/{k}: the position shown while reviewing
let adviceFor = null; // the game whose komi advice was asked for
const numbers = () => $("opt-numbers").checked;  // move numbers on the stones
const showOwnership = () => $("opt-ownership").checked;  // the ownership map under the stones

class ApiFailure extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  // Every request that changes a game says JSON, body or not: the server refuses others, so
  // another site's form cannot post here (CSRF).
  if (method !== "GET") options.headers["Content-Type"] = "application/json";
  if (body !== undefined) options.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiFailure(0, "the server cannot be reached (is catena-zero serve still running?)");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiFailure(response.status, data.error || `HTTP ${response.status}`);
  return data;
}

const gamePath = (suffix = "") => `/api/games/${state.id}${suffix}`;
const who = (seat) => (seat === state.human ? "you" : "the bot");
const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1).replace(/\.0$/, ""));

function seatOfColour(colour) {
  for (const seat of ["first", "second"]) if (state.colours[seat] === colour) return seat;
  return null;
}

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// ------------------------------------------------------------------------- messages

// kind "error" (the default: what went wrong) or "info" (what was done, e.g. an analysis's summary).
function showMessage(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.hidden = !text;
  box.classList.toggle("info", kind === "info");
}

function showError(err) {
  showMessage(err instanceof ApiFailure ? cap(err.message) : `Something went wrong: ${err}`);
}

function setBusy(flag, text) {
  busy = flag;
  document.body.dataset.busy = flag ? "1" : "0";
  if (state) render();
  if (flag && text) $("turn").textContent = text;
}

// ------------------------------------------------------------------------- game flow

async function act(suffix, body) {
  if (busy || !state) return;
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
  while (state && state.phase !== "over" && state.to_act_is === "bot") {
    setBusy(true, "The bot is thinking…");
    try {
      show(await api("POST", gamePath("/bot")));
    } catch (err) {
      if (err.status === 409 && state) {   // already thinking (another tab, or a reload mid-think)
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
    if (!state.thinking) return;
  }
}

function show(newState) {
  const changed = !state || state.id !== newState.id || state.version !== newState.version;
  state = newState;
  if (changed) { reviewAt = null; reviewView = null; }
  if (location.hash !== `#${state.id}`) history.replaceState(null, "", `#${state.id}`);
  document.body.dataset.phase = state.phase;
  document.body.dataset.turn = state.phase === "over" ? "over" : state.to_act_is;
  const hover = $("hover");  // what a hover or tap said is stale once the position changed
  hover.innerHTML = "&nbsp;";
  hover.className = "hint";
  render();
}

async function resume(id) {
  try {
    state = { id };
    show(await api("GET", gamePath()));
    await botLoop();
  } catch (err) {
    state = null;
    showError(err);
    openNewGame();
  }
}

// ------------------------------------------------------------------------- rendering

function render() {
  renderBar();
  renderBoard();
  renderSetup();
  renderControls();
  renderMoves();
  renderResult();
  renderReview();
  renderGraph();
  if (!analysisShown()) $("analysis").hidden = true;
}

// Whether the analysis panel describes the position on the board now.
const analysisShown = () => analysis !== null && analysisFor === state.version && analysisAt === shownMove();

// ------------------------------------------------------------------------- review

const movesPlayed = () => (state ? state.move_number : 0);
const reviewing = () => reviewAt !== null && reviewAt !== movesPlayed();
const shownMove = () => (reviewing() ? reviewAt : movesPlayed());

async function reviewTo(k) {
  if (!state) return;
  const n = movesPlayed();
  k = Math.max(0, Math.min(n, k));
  if (k === n) {
    reviewAt = null;
    reviewView = null;
    render();
    return;
  }
  try {
    const view = await api("GET", gamePath(`/review/${k}`));
    reviewAt = k;
    reviewView = view;
    render();
  } catch (err) {
    showError(err);
  }
}

function renderReview() {
  const n = movesPlayed();
  const at = reviewing() ? reviewAt : n;
  $("rv-where").textContent = `move ${at} of ${n}`;
  $("rv-first").disabled = $("rv-back").disabled = at === 0;
  $("rv-forward").disabled = $("rv-last").disabled = at === n;
  const note = $("review-note");
  note.hidden = !reviewing();
  if (reviewing()) {
    const status = reviewView.status.length ? reviewView.status[0] : "";
    note.textContent = `Reviewing: the position after ${at} of ${n} moves (${status}). ` +
      "Press last » or End to return to the game.";
  }
  document.body.dataset.review = reviewing() ? "1" : "0";
}

// The bot's value and score for Black over the moves (from its own searches: its moves and the
// evaluations asked for), drawn as Sabaki and Lizzie draw a win-rate graph.
function renderGraph() {
  const svg = $("graph");
  svg.replaceChildren();
  const points = state.values || [];
  const n = Math.max(movesPlayed(), 1);
  const Wd = 300, Ht = 120, padL = 26, padR = 26, padT = 8, padB = 16;
  svg.setAttribute("viewBox", `0 0 ${Wd} ${Ht}`);
  const x = (k) => padL + (Wd - padL - padR) * (k / n);
  const yv = (v) => padT + (Ht - padT - padB) * (1 - v) / 2;  // value in [-1, 1]
  const maxScore = Math.max(1, ...points.map((p) => Math.abs(p.black_score)));
  const ys = (v) => yv(v / maxScore);
  svg.append(el("rect", { class: "frame", x: padL, y: padT, width: Wd - padL - padR, height: Ht - padT - padB }));
  svg.append(el("line", { class: "even", x1: padL, x2: Wd - padR, y1: yv(0), y2: yv(0) }));
  svg.append(el("text", { class: "axis", x: padL - 3, y: yv(1) + 3, "text-anchor": "end" }, "+1"));
  svg.append(el("text", { class: "axis", x: padL - 3, y: yv(-1), "text-anchor": "end" }, "−1"));
  svg.append(el("text", { class: "axis score", x: Wd - padR + 3, y: yv(1) + 3 }, `+${num(Math.round(maxScore * 10) / 10)}`));
  svg.append(el("text", { class: "axis score", x: Wd - padR + 3, y: yv(-1) }, `−${num(Math.round(maxScore * 10) / 10)}`));
  svg.append(el("text", { class: "axis", x: padL, y: Ht - 3 }, "0"));
  svg.append(el("text", { class: "axis", x: Wd - padR, y: Ht - 3, "text-anchor": "end" }, `move ${movesPlayed()}`));
  if (points.length) {
    const line = (f) => points.map((p) => `${x(p.move).toFixed(1)},${f(p).toFixed(1)}`).join(" ");
    svg.append(el("polyline", { class: "score-line", points: line((p) => ys(p.black_score)) }));
    svg.append(el("polyline", { class: "value-line", points: line((p) => yv(p.black_value)) }));
    for (const p of points) {
      const dot = el("circle", { class: "value-dot", cx: x(p.move).toFixed(1), cy: yv(p.black_value).toFixed(1), r: 2.2,
                                 "data-move": p.move });
      dot.append(el("title", {}, `after move ${p.move}: value ${p.black_value.toFixed(2)}, score ${p.black_score.toFixed(1)} for Black`));
      dot.addEventListener("click", () => reviewTo(p.move));
      svg.append(dot);
    }
  }
  for (const [k, lost] of mistakes()) {  // the moves that lost most: a mark at the move, on the value line
    const mark = el("path", { class: "mistake-mark", "data-move": k,
                              d: `M${x(k).toFixed(1)},${(padT + 1).toFixed(1)}l-3,-0.1l3,6l3,-6z` });
    mark.append(el("title", {}, `move ${k} (${lost.colour}): lost ${lost.value_loss.toFixed(2)} of value, ` +
                                `${lost.score_loss.toFixed(1)} points; click to review it`));
    mark.addEventListener("click", () => reviewTo(k));
    svg.append(mark);
  }
  const at = reviewing() ? reviewAt : movesPlayed();
  svg.append(el("line", { class: "cursor", x1: x(at), x2: x(at), y1: padT, y2: Ht - padB }));
  svg.dataset.points = String(points.length);
  $("graph-note").textContent = points.length
    ? `Solid: value (win − loss, −1..+1, left scale); dashed: score margin in points (right scale). ` +
      `${points.length} position${points.length === 1 ? "" : "s"} searched; click a dot to review it.`
    : "Filled in from the bot's searches: each of its moves, each Evaluate, and Analyse game.";
}

// The (at most 3) moves that lost most value by the bot's evaluations, worst first: move -> loss.
// Only real losses count (at least MISTAKE_VALUE of its player's value, -1..+1 scale).
const MISTAKE_VALUE = 0.1;
function mistakes() {
  const worst = (state.losses || []).filter((l) => l.value_loss >= MISTAKE_VALUE)
    .sort((a, b) => b.value_loss - a.value_loss).slice(0, 3);
  return new Map(worst.map((l) => [l.move, l]));
}


function turnText() {
  const s = state;
  if (s.phase === "over") {
    const r = s.result;
    return r.winner === null ? "Game over: a draw" : `Game over: ${r.human_won ? "you win" : "the bot wins"}`;
  }
  if (s.thinking || (busy && s.to_act_is === "bot")) return "The bot is thinking…";
  const actor = s.to_act_is === "human" ? "You" : "The bot";
  if (s.phase === "komi") return `${actor} (first player) choose${actor === "You" ? "" : "s"} the komi`;
  if (s.phase === "colour") return `${actor} (second player) choose${actor === "You" ? "" : "s"} a colour`;
  const colour = cap(s.to_move) + (s.second_stone ? ", second stone" : "");
  return s.to_act_is === "human" ? `Your move (${colour})` : `The bot's move (${colour})`;
}

function renderBar() {
  $("turn").textContent = turnText();
  $("turn").dataset.toMove = state.to_move || "";
  // While reviewing, the bar shows the reviewed position's score, mover and button, as the board does.
  const review = reviewing() && reviewView ? reviewView : null;
  const scores = review ? review.scores : state.scores;
  const toMove = review ? review.to_move : state.phase === "play" ? state.to_move : null;
  const holder = review ? review.button_holder : state.button.holder;
  const score = $("score");
  score.replaceChildren();
  score.dataset.move = String(review ? review.move : movesPlayed());
  for (const colour of ["black", "white"]) {
    const seat = seatOfColour(colour);
    const item = document.createElement("span");
    item.className = `score-item ${colour}` + (toMove === colour ? " to-move" : "");
    const dot = document.createElement("span");
    dot.className = `dot ${colour}`;
    const value = scores ? num(scores[colour]) : "–";
    item.append(dot, `${cap(colour)} ${value}`);
    const owner = document.createElement("small");
    owner.textContent = seat ? ` ${who(seat)}` : "";
    item.append(owner);
    item.dataset.score = scores ? String(scores[colour]) : "";
    score.append(item);
  }
  const extra = document.createElement("span");
  extra.className = "score-extra";
  const parts = [];
  if (state.komi !== null && state.options.game_type === "komi") parts.push(`komi ${state.komi}`);
  if (state.button.exists) parts.push(`button: ${holder || "free"}`);
  extra.textContent = parts.join(" · ");
  score.append(extra);
}

function renderBoard() {
  const svg = $("board");
  svg.replaceChildren();
  const side = state.options.side;
  const centre = (c, r) => [W * (c - r / 2), -1.5 * R * r];  // render.py's layout (R1)
  const xs = state.cells.map((cell) => centre(cell.col, cell.row)[0]);
  const ys = state.cells.map((cell) => centre(cell.col, cell.row)[1]);
  const mx = 2.1 * R, my = 1.6 * R;  // room for the row numbers left and the letters below
  const left = Math.min(...xs) - mx, top = Math.min(...ys) - my;
  const width = Math.max(...xs) - Math.min(...xs) + 2 * mx;
  const height = Math.max(...ys) - Math.min(...ys) + 2 * my;
  svg.setAttribute("viewBox", `${left.toFixed(1)} ${top.toFixed(1)} ${width.toFixed(1)} ${height.toFixed(1)}`);
  svg.setAttribute("class", `side-${side}`);
  svg.dataset.side = String(side);

  const shown = reviewing() ? reviewView : state;  // the position drawn
  const legal = new Set(reviewing() ? [] : state.legal);
  const myMove = !reviewing() && state.phase === "play" && state.to_act_is === "human" && !busy && !state.thinking;
  const mover = state.to_move || "black";
  const hexagon = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k - 90);
    hexagon.push([R * Math.cos(a), R * Math.sin(a)]);
  }
  const layerCells = el("g", { class: "cells" });
  const layerOwner = el("g", { class: "ownership" });
  const layerChains = el("g", { class: "chains" });
  const layerStones = el("g", { class: "stones" });
  svg.append(layerCells, layerOwner, layerChains, layerStones);
  const owned = showOwnership() && analysisShown() ? ownership : null;

  const byName = new Map();
  for (const cell of shown.cells) {
    const [x, y] = centre(cell.col, cell.row);
    byName.set(cell.name, [x, y]);
    const g = el("g", { class: "cell", "data-cell": cell.name, transform: `translate(${x.toFixed(2)} ${y.toFixed(2)})` });
    g.append(el("polygon", { class: "hex", points: hexagon.map(([dx, dy]) => `${dx.toFixed(2)},${dy.toFixed(2)}`).join(" ") }));
    if (cell.stone) {
      g.classList.add("occupied");
      if (cell.claimed) g.classList.add("claimed");
      g.dataset.stone = cell.stone;
      g.dataset.claimed = cell.claimed ? "1" : "0";
    } else if (myMove && legal.has(cell.name)) {
      g.classList.add("legal");
      g.append(el("circle", { class: `ghost ${mover}`, r: (0.78 * R).toFixed(2) }));
    } else {
      g.classList.add(myMove ? "illegal" : "waiting");
      if (cell.unplayable) {  // nobody can ever play here (R3): shaded at every moment, the end too
        g.classList.add("dead");
        const d = 0.45 * R;
        g.append(el("path", { class: "hatch", d: `M${-d},${d}L${d},${-d}M${-d / 2},${d * 1.1}L${d * 1.1},${-d / 2}` +
                                                `M${-d * 1.1},${d / 2}L${d / 2},${-d * 1.1}` }));
      }
      if (myMove) {
        const d = 0.32 * R;
        g.append(el("path", { class: "cross", d: `M${-d},${-d}L${d},${d}M${d},${-d}L${-d},${d}` }));
      }
    }
    g.append(el("text", { class: "label", y: (0.05 * R).toFixed(2) }, cell.name));
    if (owned && owned[cell.name] !== undefined) {  // KataGo's ownership map: darker = surer
      const v = owned[cell.name];
      layerOwner.append(el("polygon", {
        class: `owner ${v >= 0 ? "black" : "white"}`, "data-cell": cell.name, "data-owner": v.toFixed(2),
        transform: `translate(${x.toFixed(2)} ${y.toFixed(2)}) scale(0.86)`, "fill-opacity": (0.7 * Math.abs(v)).toFixed(2),
        points: hexagon.map(([dx, dy]) => `${dx.toFixed(2)},${dy.toFixed(2)}`).join(" ") }));
    }
    g.addEventListener("click", () => onCell(cell));
    g.addEventListener("mouseenter", () => onHover(cell));
    g.addEventListener("mouseleave", () => { $("hover").innerHTML = "&nbsp;"; $("hover").className = "hint"; });
    layerCells.append(g);
  }

  // Claimed ribbons (R5) are final: their stones are joined by a band and ringed, so what is
  // still contested stands out from what is settled.
  for (const ribbon of shown.ribbons) {
    if (!ribbon.claimed && !ribbon.limited) continue;
    const owner = ribbon.owner || "black";
    if (ribbon.cells.length > 1) {
      const points = ribbon.cells.map((name) => byName.get(name).map((v) => v.toFixed(2)).join(",")).join(" ");
      layerChains.append(el("polyline", { class: `band ${owner}`, points, "data-ribbon": ribbon.cells.join("-") }));
    }
  }
  for (const cell of shown.cells) {
    if (!cell.stone) continue;
    const [x, y] = byName.get(cell.name);
    const converted = cell.placed && cell.placed !== cell.stone;  // taken over by a claim (R5)
    const g = el("g", { class: `stone ${cell.stone}${cell.claimed ? " claimed" : ""}${converted ? " converted" : ""}`,
                        "data-cell": cell.name, "data-placed": cell.placed || "",
                        transform: `translate(${x.toFixed(2)} ${y.toFixed(2)})` });
    g.append(el("circle", { class: "body", r: (0.78 * R).toFixed(2) }));
    if (cell.claimed) g.append(el("circle", { class: "ring", r: (0.58 * R).toFixed(2) }));
    if (converted) g.append(el("circle", { class: `was ${cell.placed}`, cx: (0.42 * R).toFixed(2), cy: (-0.42 * R).toFixed(2),
                                             r: (0.22 * R).toFixed(2) }));
    const label = numbers() && cell.move ? String(cell.move) : cell.name;
    g.append(el("text", { class: `label${numbers() ? " number" : ""}`, y: (0.05 * R).toFixed(2) }, label));
    g.addEventListener("click", () => onCell(cell));
    g.addEventListener("mouseenter", () => onHover(cell));
    layerStones.append(g);
  }
  if (analysisShown()) {
    analysis.moves.slice(0, 3).forEach((m, k) => {
      if (!byName.has(m.move)) return;
      const [x, y] = byName.get(m.move);
      layerStones.append(el("circle", { class: `suggested rank-${k + 1}`, cx: x.toFixed(2), cy: y.toFixed(2),
                                        r: (0.62 * R).toFixed(2), "data-cell": m.move }));
    });
  }
  if (shown.last_move && shown.last_move !== "button") {
    const [x, y] = byName.get(shown.last_move);
    layerStones.append(el("circle", { class: "last-move", cx: x.toFixed(2), cy: y.toFixed(2), r: (0.93 * R).toFixed(2),
                                      "data-cell": shown.last_move }));
  }

  // Coordinates along the edges, as on the terminal board: row numbers on the left of each
  // row, column letters below the bottom row and along the lower-right edge.
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const coords = el("g", { class: "coords" });
  for (let r = 0; r < 2 * side - 1; r++) {
    const [x, y] = centre(Math.max(0, r - (side - 1)) - 1, r);
    coords.append(el("text", { x: (x + 0.3 * R).toFixed(2), y: y.toFixed(2) }, String(r + 1)));
  }
  for (let c = 0; c < 2 * side - 1; c++) {
    const [x, y] = centre(c, c < side ? -1 : c - side);
    coords.append(el("text", { x: x.toFixed(2), y: (y - 0.3 * R).toFixed(2) }, letters[c]));
  }
  svg.append(coords);
}

// [may play here, what to say, how to say it: "ok", "no" (refused) or "neutral" (information)]
function cellVerdict(cell) {
  const stone = (c) => {
    const parts = [`${c.stone} stone`];
    if (c.move) parts.push(`move ${c.move}`);
    if (c.placed && c.placed !== c.stone) parts.push(`placed by ${c.placed}, taken over by a claim (R5)`);
    else if (c.claimed) parts.push("in a claimed ribbon");
    return parts.join(", ");
  };
  if (cell.stone) return [false, stone(cell), "neutral"];
  if (cell.unplayable) return [false, "nobody can ever play here: every group must stay a ribbon (R3)", "neutral"];
  if (!state || state.phase === "over") return [false, "the game is over", "neutral"];
  if (reviewing()) return [false, "reviewing: press End to return to the game", "neutral"];
  if (state.phase !== "play") return [false, "set-up first: " + turnText().toLowerCase(), "neutral"];
  if (state.to_act_is !== "human" || busy || state.thinking) return [false, "wait for the bot's move", "neutral"];
  if (state.legal.includes(cell.name)) return [true, `you may place ${state.to_move} here`, "ok"];
  return [false, state.options.game_type === "double" && !state.second_stone
    ? "not allowed: every group must stay a ribbon (R3), and the second stone needs a cell (R8)"
    : "not allowed: every group must stay a ribbon (R3)", "no"];
}

function onHover(cell) {
  const [, text, kind] = cellVerdict(cell);
  const hover = $("hover");
  hover.textContent = `${cell.name}: ${text}`;
  hover.className = `hint ${kind}`;
}

function onCell(cell) {
  const [ok] = cellVerdict(cell);
  if (ok) {
    act("/move", { move: cell.name });
  } else {
    onHover(cell);  // on a touch screen there is no hover: say why the tap did nothing
  }
}

function renderSetup() {
  const s = state;
  const mine = s.to_act_is === "human" && !busy && !s.thinking;
  const komi = s.phase === "komi" && mine;
  const colour = s.phase === "colour" && mine;
  $("setup").hidden = !(komi || colour);
  $("komi-choice").hidden = !komi;
  $("colour-choice").hidden = !colour;
  if (komi) {
    const input = $("komi-input");
    input.min = String(s.choice.komi_min);
    input.max = String(s.choice.komi_max);
    if (adviceFor !== s.id) {
      adviceFor = s.id;
      input.dataset.touched = "0";
      $("komi-advice").textContent = "Asking the bot for a fair komi…";
      api("GET", gamePath("/komi-advice")).then((advice) => {
        if (!state || state.id !== s.id) return;
        showAdvice(advice.komi);
        // Start at the bot's estimate, unless the person has typed a komi meanwhile.
        if (advice.komi !== null && input.dataset.touched !== "1") input.value = String(advice.komi);
      }).catch(() => showAdvice(null));
    } else {
      showAdvice(s.komi_advice);
    }
  }
  if (colour) {
    const buttons = $("colour-buttons");
    buttons.replaceChildren();
    if (s.options.game_type === "no_komi") {
      const opening = s.events.length ? s.events[0].event : "?";
      $("colour-text").textContent = `The bot placed Black's opening stone on ${opening}. Keep White, or swap: ` +
        "take over Black and its stone; then the bot plays White and moves next (R7).";
      buttons.append(choiceButton("Keep White", "white"), choiceButton("Swap: take Black", "black"));
    } else {
      $("colour-text").textContent = `The bot chose komi ${s.komi} for White. Choose your colour; Black moves first (R7).`;
      buttons.append(choiceButton("Play Black", "black"), choiceButton("Play White", "white"));
    }
  }
}

function showAdvice(komi) {
  const box = $("komi-advice");
  box.hidden = komi === null || komi === undefined;
  box.dataset.komi = box.hidden ? "" : String(komi);
  if (!box.hidden) {
    box.textContent = `The bot's estimate of a fair komi: ${komi} (by its own value and score heads, as ` +
      "catena-zero komi computes it).";
  }
}

function choiceButton(text, colour) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = text;
  button.dataset.colour = colour;
  button.addEventListener("click", () => act("/colour", { colour }));
  return button;
}

function renderControls() {
  const s = state;
  const idle = !busy && !s.thinking;
  const button = $("btn-button");
  button.hidden = !s.button.exists;
  button.disabled = !(idle && s.button.can_take);
  button.textContent = s.button.holder ? `Button: ${s.button.holder}` : "Take the button";
  $("btn-undo").disabled = !(idle && s.can_undo);
  const inGame = s.komi !== null && (s.phase === "play" || s.phase === "over");
  $("btn-eval").disabled = !(idle && inGame && !analysing);
  $("btn-analyse").disabled = !((idle && inGame && movesPlayed() > 0) || analysing);
  $("btn-analyse").textContent = analysing ? "Stop analysing" : "Analyse game";
  $("btn-variation").disabled = !(idle && reviewing() && !analysing);
  $("download").href = gamePath("/record");
  const parent = s.variation_of;
  $("variation-note").hidden = !parent;
  if (parent) $("variation-text").textContent = `A variation from move ${parent.move} of your game. `;
  const o = s.options;
  const seats = `you play ${s.human}` + (s.colours[s.human] ? ` (${s.colours[s.human]})` : "");
  const budget = s.simulations ? `${s.simulations} simulations a move`
    : s.seconds ? `${num(s.seconds)} s a move` : "the server's default strength";
  $("options-line").textContent = `Side ${o.side}, ${o.game_type.replace("_", " ")}, ${o.scoring} scoring; ${seats}; ` +
    `bot: ${budget}.`;
}

// One numbering everywhere (the stones, the result, the review counter, `show --move`, the
// records' readers): move k is the game's k-th move; the set-up choices of R7 are listed apart.
function renderMoves() {
  const list = $("moves");
  list.replaceChildren();
  let k = 0;
  state.events.forEach((e) => {
    const isMove = !/^(komi|colour|swap)/.test(e.event);
    if (isMove) k += 1;
    const item = document.createElement("li");
    item.dataset.event = e.event;
    item.dataset.by = e.by;
    item.className = `${e.by} ${isMove ? "move" : "setup"}`;
    const number = document.createElement("small");
    number.textContent = isMove ? `${k}.` : "set-up:";
    item.append(number, ` ${e.event} `);
    const by = document.createElement("small");
    by.textContent = e.by === "human" ? "you" : "bot";
    item.append(by);
    if (isMove) {
      item.dataset.move = String(k);
      item.classList.add("reviewable");
      item.title = `review the position after this move (move ${k})`;
      item.addEventListener("click", () => reviewTo(k));
      if (reviewing() && k === reviewAt) item.classList.add("current");
      const lost = mistakes().get(k);
      if (lost) {
        item.classList.add("mistake");
        item.title = `move ${k} (${lost.colour}) lost ${lost.value_loss.toFixed(2)} of value and ` +
          `${lost.score_loss.toFixed(1)} points by the bot's evaluations; click to review it`;
      }
    }
    list.append(item);
  });
  list.scrollTop = list.scrollHeight;
}

function renderResult() {
  const box = $("result");
  const r = state.result;
  box.hidden = !r;
  if (!r) return;
  box.dataset.winner = r.winner || "draw";
  box.dataset.black = String(r.black);
  box.dataset.white = String(r.white);
  const headline = r.winner === null ? "Draw" : r.human_won ? "You win!" : "The bot wins";
  const winner = r.winner === null ? "" : `${cap(r.winner)} (${who(r.winner_seat)}) wins. `;
  box.replaceChildren();
  const h = document.createElement("strong");
  h.textContent = headline;
  box.append(h, document.createElement("br"), `${winner}Black ${num(r.black)}, White ${num(r.white)}.`);
  // How the score comes about, as the terminal says it (render.py's status lines, after the first).
  const why = document.createElement("ul");
  why.className = "why";
  const lines = r.lines || [];
  const button = lines.length ? lines[0].split("; button: ")[1] : undefined;
  if (button) {
    const li = document.createElement("li");
    li.textContent = `Button: ${button}.`;
    why.append(li);
  }
  for (const line of lines.slice(1)) {
    const li = document.createElement("li");
    li.textContent = cap(line);
    why.append(li);
  }
  const taken = state.cells.filter((c) => c.stone && c.placed && c.placed !== c.stone).length;
  if (taken) {
    const li = document.createElement("li");
    li.textContent = `${taken} stone${taken === 1 ? "" : "s"} changed colour in claims (R5): marked with a dot of the colour that placed ${taken === 1 ? "it" : "them"}.`;
    why.append(li);
  }
  box.append(why);
}

// ------------------------------------------------------------------------- analysis

// The position shown (the game as it stands, or the one reviewed; after the end too), by its
// move number, so the server searches exactly what the board shows.
async function evaluate() {
  if (busy || !state) return;
  setBusy(true, "The bot is evaluating…");
  const version = state.version;
  try {
    const data = await api("GET", gamePath(`/analysis?move=${shownMove()}`));
    if (state.version === version) {
      show(await api("GET", gamePath("")));  // its value joins the graph (same version: the review stays)
      renderAnalysis(data);
    }
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
  }
}

// Every position of the game (those the graph lacks), as OGS's AI review and Sabaki+KataGo do:
// the graph then holds both players' moves, and the moves that lost most are marked on it and in
// the move list. Progress is shown; the button stops it (what was analysed is kept).
// A variation (issue 28): a new game from the reviewed position; the game itself stays as it was.
async function playFromHere() {
  if (!state || !reviewing()) return;
  try {
    const branch = await api("POST", gamePath("/variation"), { move: reviewAt });
    showMessage("");
    analysisFor = -1;
    show(branch);
    await botLoop();
  } catch (err) {
    showError(err);
  }
}

async function backToGame() {
  if (!state || !state.variation_of) return;
  showMessage("");
  analysisFor = -1;
  await resume(state.variation_of.game);
}

async function analyseGame() {
  if (analysing) { analysing = false; return; }
  if (busy || !state) return;
  const version = state.version, n = movesPlayed();
  const known = new Set((state.values || []).map((p) => p.move));
  const todo = [];
  for (let k = 0; k <= n; k++) if (!known.has(k)) todo.push(k);
  analysing = true;
  renderControls();
  try {
    for (let i = 0; i < todo.length && analysing && state.version === version; i++) {
      $("turn").textContent = `Analysing the game: position ${i + 1} of ${todo.length}…`;
      $("analyse-progress").hidden = false;
      $("analyse-progress").value = i / todo.length;
      await api("GET", gamePath(`/analysis?move=${todo[i]}`));
    }
    if (state.version === version) show(await api("GET", gamePath("")));
    const worst = mistakes();
    showMessage(worst.size
      ? `Analysed ${n + 1} positions. The moves that lost most: ` +
        [...worst].map(([k, l]) => `${k} (${l.colour}, −${l.value_loss.toFixed(2)})`).join(", ") + "."
      : `Analysed ${n + 1} positions: no move lost ${MISTAKE_VALUE} of value or more.`, "info");
  } catch (err) {
    showError(err);
  } finally {
    analysing = false;
    $("analyse-progress").hidden = true;
    render();
  }
}

// The bot's Analysis record (catena_zero/bot/bot.py): values are for the player to move,
// P(win) - P(loss) in [-1, 1]; scores are the expected final margin, mover minus opponent (R6).
function renderAnalysis(data) {
  analysisFor = data.version;
  analysisAt = data.move_number;
  analysis = data.analysis;
  ownership = data.ownership || null;
  const a = data.analysis;
  const box = $("analysis");
  box.replaceChildren();
  const mover = a.to_move;
  const seat = seatOfColour(mover);
  const title = document.createElement("h3");
  title.textContent = `The bot's view: ${cap(mover)} (${seat ? who(seat) : "?"}) to move`;
  const signed = (x, digits) => {
    const v = Number(x.toFixed(digits));
    return (v > 0 ? "+" : v < 0 ? "−" : "±") + Math.abs(v).toFixed(digits);
  };
  if (a.over) title.textContent = `The game is over after move ${data.move_number}: its result`;
  else if (data.move_number !== movesPlayed()) title.textContent += ` (after move ${data.move_number}, reviewed)`;
  const rows = a.over ? [
    ["Value", `${signed(a.value, 0)} for ${mover} (the result)`],
    ["Score", `${signed(a.score, 1)} points for ${mover}`],
  ] : [
    ["Value", `${signed(a.value, 2)} for ${mover}: about ${Math.round(50 * (1 + a.value))}% to win`],
    ["Score", `${signed(a.score, 1)} points for ${mover}`],
    ["Best move", `${a.best} (${a.simulations} simulations, ${num(Math.round(a.seconds * 10) / 10)} s)`],
  ];
  const table = document.createElement("table");
  for (const [k, v] of rows) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.textContent = k;
    const td = document.createElement("td");
    td.textContent = v;
    td.dataset.field = k.toLowerCase().replace(" ", "-");
    tr.append(th, td);
    table.append(tr);
  }
  box.append(title, table);
  if (a.moves && a.moves.length) {
    const list = document.createElement("table");
    list.className = "top-moves";
    const head = document.createElement("tr");
    for (const k of ["move", "visits", "value", "score"]) {
      const th = document.createElement("th");
      th.textContent = k;
      head.append(th);
    }
    list.append(head);
    for (const m of a.moves.slice(0, 6)) {
      const tr = document.createElement("tr");
      for (const v of [m.move, String(m.visits), signed(m.value, 2), m.score === null ? "–" : signed(m.score, 1)]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.append(td);
      }
      list.append(tr);
    }
    box.append(list);
  }
  box.hidden = false;
  renderBoard();  // mark the suggested moves
}

// ------------------------------------------------------------------------- new game dialog

function fillOptions() {
  const supported = info.supported;
  const side = $("opt-side"), type = $("opt-type"), scoring = $("opt-scoring");
  const pick = (select, values, preferred) => {
    const old = select.value || String(preferred);
    select.replaceChildren(...values.map((v) => new Option(String(v).replace("_", " "), String(v))));
    select.value = values.map(String).includes(old) ? old : String(values.includes(preferred) ? preferred : values[0]);
  };
  const unique = (xs) => [...new Set(xs)];
  pick(side, unique(supported.map((o) => o.side)), info.default.side);
  const onSide = supported.filter((o) => String(o.side) === side.value);
  pick(type, unique(onSide.map((o) => o.game_type)), info.default.game_type);
  const onType = onSide.filter((o) => o.game_type === type.value);
  pick(scoring, unique(onType.map((o) => o.scoring)), info.default.scoring);
  const seatText = {
    komi: ["first: you choose the komi, then the bot picks its colour",
           "second: the bot chooses the komi, then you pick your colour"],
    no_komi: ["first: you place Black's opening stone, then the bot keeps White or swaps",
              "second: the bot places Black's opening stone, then you keep White or swap"],
    double: ["first: Black, one stone, then two stones a turn", "second: White, two stones a turn"],
  }[type.value];
  $("seat-first-text").textContent = seatText[0];
  $("seat-second-text").textContent = seatText[1];
  fillBudget();
}

function fillBudget() {
  const st = info.strength;
  const kind = $("opt-budget-kind").value;
  const input = $("opt-budget");
  input.hidden = kind === "default";
  const own = st.simulations ? `${st.simulations} simulations a move` : st.seconds ? `${num(st.seconds)} s a move` : "its own";
  $("opt-budget-kind").options[0].textContent = `the server's default (${own})`;
  if (kind === "simulations") {
    input.min = "1"; input.max = String(st.max_simulations); input.step = "1";
    if (!(Number(input.value) >= 1 && Number(input.value) <= st.max_simulations) || !Number.isInteger(Number(input.value))) {
      input.value = String(st.simulations || Math.min(200, st.max_simulations));
    }
    $("budget-hint").textContent = `1 to ${st.max_simulations}; more is stronger and slower`;
  } else if (kind === "seconds") {
    input.min = "0.1"; input.max = String(st.max_seconds); input.step = "0.1";
    if (!(Number(input.value) > 0 && Number(input.value) <= st.max_seconds)) input.value = String(Math.min(1, st.max_seconds));
    $("budget-hint").textContent = `up to ${num(st.max_seconds)} s a move`;
  } else {
    $("budget-hint").textContent = "";
  }
}

function openNewGame() {
  if (!info) return;
  fillOptions();
  $("new-game-error").hidden = true;
  $("cancel-new").hidden = !state;
  const dialog = $("new-game");
  if (!dialog.open) dialog.showModal();
}

async function submitNewGame(event) {
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
    analysisFor = -1;
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

// ------------------------------------------------------------------------- start

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
  $("opt-ownership").addEventListener("change", () => { if (state) renderBoard(); });
  $("btn-new").addEventListener("click", openNewGame);
  $("cancel-new").addEventListener("click", () => $("new-game").close());
  $("new-game-form").addEventListener("submit", submitNewGame);
  for (const id of ["opt-side", "opt-type", "opt-scoring"]) $(id).addEventListener("change", fillOptions);
  $("opt-budget-kind").addEventListener("change", fillBudget);
  $("btn-rules").addEventListener("click", () => $("rules").showModal());
  $("rules-close").addEventListener("click", () => $("rules").close());
  $("rv-first").addEventListener("click", () => reviewTo(0));
  $("rv-back").addEventListener("click", () => reviewTo((reviewing() ? reviewAt : movesPlayed()) - 1));
  $("rv-forward").addEventListener("click", () => reviewTo((reviewing() ? reviewAt : movesPlayed()) + 1));
  $("rv-last").addEventListener("click", () => reviewTo(movesPlayed()));
  $("opt-numbers").addEventListener("change", () => { if (state) renderBoard(); });
  document.addEventListener("keydown", (event) => {
    if (!state || document.querySelector("dialog[open]")) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const at = reviewing() ? reviewAt : movesPlayed();
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: movesPlayed(),
                 ArrowUp: 0, ArrowDown: movesPlayed() }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    reviewTo(to);
  });
  try {
    info = await api("GET", "/api/info");
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
