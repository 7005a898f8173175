// The side panel and the bar: messages, the score, set-up choices, controls, the move list,
// the result, the review counter and the analysis box. What a click does is handed in by the
// game's flow (chooseColour, reviewTo), so the panel sends nothing but the komi advice request.

import { ApiFailure, api } from "./api.js";
import { $, cap, num } from "./util.js";
import {
  page, gamePath, who, seatOfColour, movesPlayed, reviewing, mistakes, moveCosts, shownPosition, turnText,
  variationsOf, variationTree,
} from "./state.js";

// kind "error" (the default: what went wrong) or "info" (what was done, e.g. an analysis's summary).
export function showMessage(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.hidden = !text;
  box.classList.toggle("info", kind === "info");
}

export function showError(err) {
  showMessage(err instanceof ApiFailure ? cap(err.message) : `Something went wrong: ${err}`);
}

export function renderBar() {
  $("turn").textContent = turnText();
  $("turn").dataset.toMove = page.game.to_move || "";
  // While reviewing, the bar shows the reviewed position's score, mover and button, as the board does.
  const review = reviewing() && page.reviewView ? page.reviewView : null;
  const scores = review ? review.scores : page.game.scores;
  const toMove = review ? review.to_move : page.game.phase === "play" ? page.game.to_move : null;
  const holder = review ? review.button_holder : page.game.button.holder;
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
  if (page.game.komi !== null && page.game.options.game_type === "komi") parts.push(`komi ${page.game.komi}`);
  if (page.game.button.exists) parts.push(`button: ${holder || "free"}`);
  extra.textContent = parts.join(" · ");
  score.append(extra);
}

// chooseColour(colour): the person's colour choice (R7), from a button drawn here.
export function renderSetup(chooseColour) {
  const s = page.game;
  const mine = s.to_act_is === "human" && !page.busy && !s.thinking;
  const komi = s.phase === "komi" && mine;
  const colour = s.phase === "colour" && mine;
  $("setup").hidden = !(komi || colour);
  $("komi-choice").hidden = !komi;
  $("colour-choice").hidden = !colour;
  if (komi) {
    const input = $("komi-input");
    input.min = String(s.choice.komi_min);
    input.max = String(s.choice.komi_max);
    if (page.adviceFor !== s.id) {
      page.adviceFor = s.id;
      input.dataset.touched = "0";
      $("komi-advice").textContent = "Asking the bot for a fair komi…";
      api("GET", gamePath("/komi-advice")).then((advice) => {
        if (!page.game || page.game.id !== s.id) return;
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
      buttons.append(choiceButton("Keep White", "white", chooseColour), choiceButton("Swap: take Black", "black", chooseColour));
    } else {
      $("colour-text").textContent = `The bot chose komi ${s.komi} for White. Choose your colour; Black moves first (R7).`;
      buttons.append(choiceButton("Play Black", "black", chooseColour), choiceButton("Play White", "white", chooseColour));
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

function choiceButton(text, colour, chooseColour) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = text;
  button.dataset.colour = colour;
  button.addEventListener("click", () => chooseColour(colour));
  return button;
}

export function renderControls() {
  const s = page.game;
  const idle = !page.busy && !s.thinking;
  const button = $("btn-button");
  button.hidden = !s.button.exists;
  const review = shownPosition();  // while reviewing, the control shows who held the button then
  button.disabled = !(idle && s.button.can_take) || review !== null;
  const holder = review ? review.button_holder : s.button.holder;
  button.textContent = holder ? `Button: ${holder}` : review ? "Button: not taken" : "Take the button";
  button.dataset.holder = holder || "";
  $("btn-undo").disabled = !(idle && s.can_undo);
  const inGame = s.komi !== null && (s.phase === "play" || s.phase === "over");
  $("btn-eval").disabled = !(idle && inGame && !page.analysing);
  $("btn-analyse").disabled = !((idle && inGame && movesPlayed() > 0) || page.analysing);
  $("btn-analyse").textContent = page.analysing ? "Stop analysing" : "Analyse game";
  $("btn-variation").disabled = !(idle && reviewing() && !page.analysing);
  const tree = variationTree(s.id);  // the record carries the variations made from this game
  $("download").href = gamePath("/record") + (tree.length ? `?variations=${tree.join(",")}` : "");
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
export function renderMoves(reviewTo) {
  const list = $("moves");
  const scrolled = list.scrollTop;
  list.replaceChildren();
  const costs = moveCosts();
  const worst = mistakes();
  let k = 0;
  page.game.events.forEach((e) => {
    const isMove = !/^(komi|colour|swap)/.test(e.event);
    if (isMove) k += 1;
    const move = k;  // this entry's own number: the click below must not read the counter, which moves on
    const item = document.createElement("li");
    item.dataset.event = e.event;
    item.dataset.by = e.by;
    item.className = `${e.by} ${isMove ? "move" : "setup"}`;
    const number = document.createElement("small");
    number.textContent = isMove ? `${move}.` : "set-up:";
    item.append(number, ` ${e.event} `);
    const by = document.createElement("small");
    by.textContent = e.by === "human" ? "you" : "bot";
    item.append(by);
    if (isMove) {
      item.dataset.move = String(move);
      item.classList.add("reviewable");
      item.tabIndex = 0;
      item.setAttribute("role", "button");
      item.title = `review the position after this move (move ${move})`;
      item.addEventListener("click", () => reviewTo(move));
      item.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); reviewTo(move); }
      });
      if (move === (reviewing() ? page.reviewAt : movesPlayed())) item.classList.add("current");
      const cost = costs.get(move);
      if (cost) {  // what the move gave away, as OGS's AI review lists it: win chance and points
        const tag = document.createElement("span");
        tag.className = `cost ${cost.grade}`;
        tag.dataset.win = cost.win.toFixed(1);
        tag.dataset.points = cost.points.toFixed(1);
        // A loss that rounds to nothing reads "0%", never "−0%" (losses are never negative).
        const win = Math.round(cost.win), points = cost.points.toFixed(1);
        tag.textContent = `${win ? "−" : ""}${win}% ${points === "0.0" ? "" : "−"}${points}`;
        item.append(" ", tag);
        item.classList.add(`grade-${cost.grade}`);
        item.title = `move ${move} (${cost.colour}) lost ${cost.win.toFixed(1)}% win chance and ` +
          `${cost.points.toFixed(1)} points by the bot's evaluations (${cost.grade}); click to review it`;
      }
      if (worst.has(move)) item.classList.add("mistake");
    }
    list.append(item);
  });
  $("moves-note").textContent = costs.size
    ? "Click or tap a move to review the position after it. −% −points: the win chance and points the move lost, " +
      "by the bot's evaluations (Analyse game); yellow, orange, red: inaccuracy (5%), mistake (10%), blunder (20%)."
    : "Click or tap a move to review the position after it.";
  // Playing on: the newest move in view. Reviewing: the list stays where the person left it.
  list.scrollTop = reviewing() ? scrolled : list.scrollHeight;
}

export function renderResult() {
  const box = $("result");
  const r = page.game.result;
  box.hidden = !r;
  if (!r) return;
  const review = shownPosition();
  box.dataset.reviewing = review ? "1" : "0";
  if (review) {  // the reviewed position's count; the result stays one line, for after End
    box.replaceChildren();
    const h = document.createElement("strong");
    h.textContent = `After move ${review.move} of ${movesPlayed()}`;
    const final = document.createElement("p");
    final.className = "small";
    const outcome = r.winner === null ? "a draw" : r.human_won ? "you won" : "the bot won";
    final.textContent = `The game's result: ${outcome}, Black ${num(r.black)}, White ${num(r.white)} (last » or End shows it).`;
    const mover = (review.status[0] || "").split("; ")[0];
    box.append(h, document.createElement("br"),
               `Black ${num(review.scores.black)}, White ${num(review.scores.white)}; ${mover}.`, final);
    return;
  }
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
  const taken = page.game.cells.filter((c) => c.stone && c.placed && c.placed !== c.stone).length;
  if (taken) {
    const li = document.createElement("li");
    li.textContent = `${taken} stone${taken === 1 ? "" : "s"} changed colour in claims (R5): marked with a dot of the colour that placed ${taken === 1 ? "it" : "them"}.`;
    why.append(li);
  }
  box.append(why);
}

export function renderReview() {
  const n = movesPlayed();
  const at = reviewing() ? page.reviewAt : n;
  $("rv-where").textContent = `move ${at} of ${n}`;
  $("rv-first").disabled = $("rv-back").disabled = at === 0;
  $("rv-forward").disabled = $("rv-last").disabled = at === n;
  const note = $("review-note");
  note.hidden = !reviewing();
  if (reviewing()) {
    const status = page.reviewView.status.length ? page.reviewView.status[0] : "";
    note.textContent = `Reviewing: the position after ${at} of ${n} moves (${status}). ` +
      "Press last » or End to return to the game.";
  }
  document.body.dataset.review = reviewing() ? "1" : "0";
}

// The bot's Analysis record (catena_zero/bot/bot.py): values are for the player to move,
// P(win) - P(loss) in [-1, 1]; scores are the expected final margin, mover minus opponent (R6).
// The board is drawn again after it (the suggested moves), by the caller.
// showPv(move analysis | null): show (or hide) a candidate's principal variation on the board, on
// hovering its row (a tap on a touch screen: the row toggles it).
export function renderAnalysis(data, showPv = () => {}) {
  page.analysisFor = data.version;
  page.analysisAt = data.move_number;
  page.analysis = data.analysis;
  page.ownership = data.ownership || null;
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
    for (const k of ["move", "visits", "win %", "score", "line"]) {
      const th = document.createElement("th");
      th.textContent = k;
      head.append(th);
    }
    list.append(head);
    for (const m of a.moves.slice(0, 6)) {
      const tr = document.createElement("tr");
      tr.className = "candidate";
      tr.dataset.move = m.move;
      tr.tabIndex = 0;
      const line = m.pv && m.pv.length ? m.pv : [m.move];
      const cells = [m.move, String(m.visits), `${Math.round(50 * (1 + m.value))}%`,
                     m.score === null ? "–" : signed(m.score, 1), line.slice(0, 6).join(" ") + (line.length > 6 ? " …" : "")];
      for (const v of cells) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.append(td);
      }
      tr.title = `${m.move}: the bot's line from here, ${line.join(" ")}; hover (or tap) to see it on the board`;
      tr.addEventListener("mouseenter", () => showPv(m));
      tr.addEventListener("mouseleave", () => showPv(null));
      tr.addEventListener("focus", () => showPv(m));
      tr.addEventListener("blur", () => showPv(null));
      tr.addEventListener("click", () => showPv(page.pv && page.pv.move === m.move ? null : m));
      list.append(tr);
    }
    const hint = document.createElement("p");
    hint.className = "small";
    hint.textContent = "Hover or tap a move to see the bot's line from it on the board, numbered.";
    box.append(list, hint);
  }
  box.hidden = false;
}

// The variations made from this game (kept by the browser), each one click away. open(id): show it.
export function renderVariations(open) {
  const box = $("variations");
  const list = variationsOf(page.game.id);
  box.hidden = !list.length;
  box.replaceChildren();
  if (!list.length) return;
  box.append("Variations tried from this game (saved with its record): ");
  for (const v of list) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "variation-link";
    button.dataset.id = v.id;
    button.dataset.move = String(v.move);
    button.textContent = `from move ${v.move}`;
    button.addEventListener("click", () => open(v.id));
    box.append(button, " ");
  }
}
