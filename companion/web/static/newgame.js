// New-game form: player fields within the game's range, and only the options the game has.
"use strict";
(function () {
  const form = document.getElementById("new-game");
  const list = document.getElementById("players");
  const range = document.getElementById("player-range");
  function game() { return form.querySelector("input[name=game]:checked"); }
  function addField(value) {
    const n = list.children.length + 1;
    const li = document.createElement("li");
    const input = document.createElement("input");
    input.name = "player"; input.maxLength = 40; input.value = value || "";
    input.placeholder = "Player " + n; input.autocomplete = "off";
    input.setAttribute("aria-label", "Player " + n);
    li.appendChild(input); list.appendChild(li);
    return input;
  }
  function update() {
    const g = game();
    const min = +g.dataset.min, max = +g.dataset.max;
    range.textContent = "(" + (min === max ? min : min + " to " + max) + ")";
    while (list.children.length < min) addField("");
    document.getElementById("add-player").disabled = list.children.length >= max;
    document.getElementById("remove-player").disabled = list.children.length <= Math.max(1, min);
    const tb = g.dataset.tiebreak === "1", pr = g.dataset.practice === "1";
    document.getElementById("opt-tiebreak").hidden = !tb;
    document.getElementById("opt-practice").hidden = !pr;
    if (!tb) form.tiebreak.checked = false;
    if (!pr) form.practice.checked = false;
  }
  document.getElementById("add-player").addEventListener("click", function () {
    addField("").focus(); update();
  });
  document.getElementById("remove-player").addEventListener("click", function () {
    if (list.children.length > 1) list.lastElementChild.remove();
    update();
  });
  form.addEventListener("change", update);
  update();
})();
