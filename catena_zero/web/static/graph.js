// The bot's view over the moves: value and score for Black, the moves that lost most.

import { $, el, num } from "./util.js";
import { page, movesPlayed, reviewing, mistakes, moveCosts } from "./state.js";

// The bot's value and score for Black over the moves (from its own searches: its moves and the
// evaluations asked for), drawn as Sabaki and Lizzie draw a win-rate graph.
// reviewTo(k): show the position after k moves (a click on a dot or a mark).
export function renderGraph(reviewTo) {
  const svg = $("graph");
  svg.replaceChildren();
  const points = page.game.values || [];
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
  // Every move's cost (Analyse game), as OGS's AI review draws it: a bar down from the top per
  // move, its length the win chance lost (the frame's height = 50%), in the mover's colour.
  const full = Ht - padT - padB;
  for (const [k, cost] of moveCosts()) {
    const h = Math.max(0.8, full * Math.min(1, cost.win / 50));
    const w = Math.max(1.2, Math.min(6, (Wd - padL - padR) / n * 0.7));
    const bar = el("rect", { class: `loss-bar ${cost.colour} ${cost.grade}`, "data-move": k, "data-win": cost.win.toFixed(1),
                             x: (x(k) - w / 2).toFixed(1), y: padT, width: w.toFixed(1), height: h.toFixed(1) });
    bar.append(el("title", {}, `move ${k} (${cost.colour}) lost ${cost.win.toFixed(1)}% win chance and ${cost.points.toFixed(1)} points; click to review it`));
    bar.addEventListener("click", () => reviewTo(k));
    svg.append(bar);
  }
  for (const [k, lost] of mistakes()) {  // the moves that lost most: a mark at the move, on the value line
    const mark = el("path", { class: "mistake-mark", "data-move": k,
                              d: `M${x(k).toFixed(1)},${(padT + 1).toFixed(1)}l-3,-0.1l3,6l3,-6z` });
    mark.append(el("title", {}, `move ${k} (${lost.colour}): lost ${lost.value_loss.toFixed(2)} of value, ` +
                                `${lost.score_loss.toFixed(1)} points; click to review it`));
    mark.addEventListener("click", () => reviewTo(k));
    svg.append(mark);
  }
  const at = reviewing() ? page.reviewAt : movesPlayed();
  svg.append(el("line", { class: "cursor", x1: x(at), x2: x(at), y1: padT, y2: Ht - padB }));
  svg.dataset.points = String(points.length);
  const bars = moveCosts().size ? " Bars from the top: each move's loss in win chance (full height 50%)." : "";
  $("graph-note").textContent = points.length
    ? `Solid: value (win − loss, −1..+1, left scale); dashed: score margin in points (right scale).${bars} ` +
      `${points.length} position${points.length === 1 ? "" : "s"} searched; click a dot or bar to review it.`
    : "Filled in from the bot's searches: each of its moves, each Evaluate, and Analyse game.";
}
