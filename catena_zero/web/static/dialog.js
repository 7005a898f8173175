// The new-game dialog: the options the bot supports and its strength per move.

import { $, num } from "./util.js";
import { page } from "./state.js";

export function fillOptions() {
  const supported = page.info.supported;
  const side = $("opt-side"), type = $("opt-type"), scoring = $("opt-scoring");
  const pick = (select, values, preferred) => {
    const old = select.value || String(preferred);
    select.replaceChildren(...values.map((v) => new Option(String(v).replace("_", " "), String(v))));
    select.value = values.map(String).includes(old) ? old : String(values.includes(preferred) ? preferred : values[0]);
  };
  const unique = (xs) => [...new Set(xs)];
  pick(side, unique(supported.map((o) => o.side)), page.info.default.side);
  const onSide = supported.filter((o) => String(o.side) === side.value);
  pick(type, unique(onSide.map((o) => o.game_type)), page.info.default.game_type);
  const onType = onSide.filter((o) => o.game_type === type.value);
  pick(scoring, unique(onType.map((o) => o.scoring)), page.info.default.scoring);
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

export function fillBudget() {
  const st = page.info.strength;
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

export function openNewGame() {
  if (!page.info) return;
  fillOptions();
  $("new-game-error").hidden = true;
  $("cancel-new").hidden = !page.game;
  const dialog = $("new-game");
  if (!dialog.open) dialog.showModal();
}
