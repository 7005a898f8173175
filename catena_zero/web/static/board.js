// The board: the SVG of the position shown, and what a hover or tap on a cell says or does. A
// tap on a legal cell is handed to ``play`` (the game's flow), so the board sends nothing itself.

import { $, el } from "./util.js";
import { page, analysisShown, reviewing, shownMove, turnText } from "./state.js";

const R = 10;  // cell radius in SVG units (centre to corner); the server sends positions in cell radii

const numbers = () => $("opt-numbers").checked;  // move numbers on the stones
const showOwnership = () => $("opt-ownership").checked;  // the ownership map under the stones

// play(name): the person places a stone on cell ``name`` (called only where the server allows it).
export function renderBoard(play) {
  const svg = $("board");
  svg.replaceChildren();
  const side = page.game.options.side;
  // Every position comes from the server's board view (render.py's one layout, R1): the page
  // only scales it, so it never recomputes the hexagon geometry.
  const centre = (place) => [place.x * R, place.y * R];
  const xs = page.game.cells.map((cell) => centre(cell)[0]);
  const ys = page.game.cells.map((cell) => centre(cell)[1]);
  const mx = 2.1 * R, my = 1.6 * R;  // room for the row numbers left and the letters below
  const left = Math.min(...xs) - mx, top = Math.min(...ys) - my;
  const width = Math.max(...xs) - Math.min(...xs) + 2 * mx;
  const height = Math.max(...ys) - Math.min(...ys) + 2 * my;
  svg.setAttribute("viewBox", `${left.toFixed(1)} ${top.toFixed(1)} ${width.toFixed(1)} ${height.toFixed(1)}`);
  svg.setAttribute("class", `side-${side}`);
  svg.dataset.side = String(side);

  const shown = reviewing() ? page.reviewView : page.game;  // the position drawn
  const legal = new Set(reviewing() ? [] : page.game.legal);
  const myMove = !reviewing() && page.game.phase === "play" && page.game.to_act_is === "human" && !page.busy && !page.game.thinking;
  const mover = page.game.to_move || "black";
  const hexagon = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k - 90);
    hexagon.push([R * Math.cos(a), R * Math.sin(a)]);
  }
  const layerCells = el("g", { class: "cells" });
  const layerChains = el("g", { class: "chains" });
  const layerStones = el("g", { class: "stones" });
  svg.append(layerCells, layerChains, layerStones);
  const owned = showOwnership() && analysisShown() ? page.ownership : null;
  // The ownership map as KataGo's viewers (Lizzie, Sabaki) draw it: a square of the expected
  // owner's colour on every cell, stones included, its area and darkness growing with the
  // certainty, so it never reads as the hatching of cells nobody can play (R3). Drawn under the
  // cell's or stone's name, which stays readable.
  const ownerSquare = (name) => {
    if (!owned || owned[name] === undefined) return null;
    const v = owned[name], sure = Math.min(1, Math.abs(v));
    const half = 0.6 * R * Math.sqrt(sure);
    return el("rect", { class: `owner ${v >= 0 ? "black" : "white"}`, "data-cell": name, "data-owner": v.toFixed(2),
                        x: (-half).toFixed(2), y: (-half).toFixed(2), width: (2 * half).toFixed(2),
                        height: (2 * half).toFixed(2), "fill-opacity": (0.35 + 0.6 * sure).toFixed(2) });
  };
  const legend = $("ownership-legend");
  legend.hidden = !showOwnership();
  legend.dataset.shown = owned ? "1" : "0";
  $("ownership-wait").hidden = owned !== null;

  const byName = new Map();
  for (const cell of shown.cells) {
    const [x, y] = centre(cell);
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
    const square = cell.stone ? null : ownerSquare(cell.name);  // a stone's goes on the stone
    if (square) g.append(square);
    g.append(el("text", { class: "label", y: (0.05 * R).toFixed(2) }, cell.name));
    g.addEventListener("click", () => onCell(cell, play));
    g.addEventListener("mouseenter", () => enter(cell));
    g.addEventListener("mouseleave", leave);
    layerCells.append(g);
  }

  // Claimed ribbons (R5) are final: their stones are joined by a band and ringed, so what is
  // still contested stands out from what is settled.
  for (const chain of shown.chains) {  // the claimed ribbons of two or more stones (BoardView.chains)
    const points = chain.cells.map((name) => byName.get(name).map((v) => v.toFixed(2)).join(",")).join(" ");
    layerChains.append(el("polyline", { class: `band ${chain.owner}`, points, "data-ribbon": chain.cells.join("-") }));
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
    const square = ownerSquare(cell.name);
    if (square) g.append(square);
    const label = numbers() && cell.move ? String(cell.move) : cell.name;
    g.append(el("text", { class: `label${numbers() ? " number" : ""}`, y: (0.05 * R).toFixed(2) }, label));
    g.addEventListener("click", () => onCell(cell, play));
    g.addEventListener("mouseenter", () => enter(cell));
    g.addEventListener("mouseleave", leave);
    layerStones.append(g);
  }
  if (analysisShown() && !page.pv) {  // the best moves, unless a line is shown (its stones say more)
    page.analysis.moves.slice(0, 3).forEach((m, k) => {
      if (!byName.has(m.move)) return;
      const [x, y] = byName.get(m.move);
      layerStones.append(el("circle", { class: `suggested rank-${k + 1}`, cx: x.toFixed(2), cy: y.toFixed(2),
                                        r: (0.62 * R).toFixed(2), "data-cell": m.move }));
    });
  }
  if (page.pv && analysisShown()) {  // a candidate's line: numbered stones in the colours that would play them
    const colours = pvColours(page.pv.pv);
    page.pv.pv.forEach((move, i) => {
      if (!byName.has(move)) return;  // the button: no cell
      const [x, y] = byName.get(move);
      const g = el("g", { class: `pv-stone ${colours[i]}`, "data-cell": move, "data-order": String(i + 1),
                          transform: `translate(${x.toFixed(2)} ${y.toFixed(2)})` });
      g.append(el("circle", { class: "body", r: (0.74 * R).toFixed(2) }));
      g.append(el("text", { class: "label number", y: (0.05 * R).toFixed(2) }, String(i + 1)));
      layerStones.append(g);
    });
  }
  if (shown.last_move && shown.last_move !== "button") {
    const [x, y] = byName.get(shown.last_move);
    layerStones.append(el("circle", { class: "last-move", cx: x.toFixed(2), cy: y.toFixed(2), r: (0.93 * R).toFixed(2),
                                      "data-cell": shown.last_move }));
  }

  const under = shown.cells.find((cell) => cell.name === page.hovered);
  if (under) onHover(under);  // the line describes the position drawn now, not the one before

  // Coordinates along the edges, as on the terminal board: row numbers on the left of each
  // row, column letters below the bottom row and along the lower-right edge.
  // The server places each label one cell off the board; the page nudges it towards the board.
  const coords = el("g", { class: "coords" });
  for (const label of page.game.labels) {
    const [x, y] = centre(label);
    const [dx, dy] = label.kind === "row" ? [0.3 * R, 0] : [0, -0.3 * R];
    coords.append(el("text", { x: (x + dx).toFixed(2), y: (y + dy).toFixed(2) }, label.text));
  }
  svg.append(coords);
}

// The colour of each move of a line from the position shown: alternating, or in pairs under
// double (R8: one stone opens the game, then two a turn; the second of a turn may be pending).
function pvColours(pv) {
  const other = (c) => (c === "black" ? "white" : "black");
  const double = page.game.options.game_type === "double";
  const pending = reviewing() ? /second stone/.test(page.reviewView.status[0] || "") : page.game.second_stone;
  let colour = page.analysis.to_move;
  let left = double && !pending && shownMove() > 0 ? 2 : 1;
  return pv.map(() => {
    const c = colour;
    left -= 1;
    if (left === 0) { colour = other(colour); left = double ? 2 : 1; }
    return c;
  });
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
  if (reviewing()) {  // a past position: the game goes on (or ended) elsewhere
    return [false, `reviewing move ${page.reviewAt}: "Play from here" tries a move in a variation, End returns`, "neutral"];
  }
  if (!page.game || page.game.phase === "over") return [false, "the game is over", "neutral"];
  if (page.game.phase !== "play") return [false, "set-up first: " + turnText().toLowerCase(), "neutral"];
  if (page.game.to_act_is !== "human" || page.busy || page.game.thinking) return [false, "wait for the bot's move", "neutral"];
  if (page.game.legal.includes(cell.name)) return [true, `you may place ${page.game.to_move} here`, "ok"];
  return [false, page.game.options.game_type === "double" && !page.game.second_stone
    ? "not allowed: every group must stay a ribbon (R3), and the second stone needs a cell (R8)"
    : "not allowed: every group must stay a ribbon (R3)", "no"];
}

// The pointer entered or left a cell (or its stone). A redraw does not move the pointer, so no
// new "mouseenter" comes: renderBoard says the line again for the cell still under it.
function enter(cell) {
  page.hovered = cell.name;
  onHover(cell);
}

function leave() {
  page.hovered = null;
  $("hover").innerHTML = "&nbsp;";
  $("hover").className = "hint";
}

function onHover(cell) {
  const [, text, kind] = cellVerdict(cell);
  const hover = $("hover");
  hover.textContent = `${cell.name}: ${text}`;
  hover.className = `hint ${kind}`;
}

function onCell(cell, play) {
  const [ok] = cellVerdict(cell);
  if (ok) {
    play(cell.name);
  } else {
    onHover(cell);  // on a touch screen there is no hover: say why the tap did nothing
  }
}
