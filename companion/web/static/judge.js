// The judge page: dice (typed or read from a photo) and a box -> points and the rule.
"use strict";
(function () {
  const $ = function (id) { return document.getElementById(id); };
  const games = JSON.parse($("judge-games").textContent);
  function game() { return games.find(function (g) { return g.id === $("judge-game").value; }); }
  function fill() {
    const g = game();
    const sel = $("judge-category");
    sel.textContent = "";
    const all = document.createElement("option");
    all.value = ""; all.textContent = "Every box, best first";
    sel.appendChild(all);
    g.categories.forEach(function (c) {
      const o = document.createElement("option");
      o.value = c.id; o.textContent = c.label;
      sel.appendChild(o);
    });
    $("judge-category-row").hidden = !g.categories.length;
  }
  function error(text) { $("judge-error").textContent = text || ""; $("judge-error").hidden = !text; }
  function line(text, cls) {
    const p = document.createElement("p");
    p.textContent = text;
    if (cls) p.className = cls;
    return p;
  }
  $("judge-game").addEventListener("change", fill);
  $("judge-photo").addEventListener("change", async function (ev) {
    const f = ev.target.files[0];
    if (!f) return;
    const form = new FormData();
    form.append("image", f);
    try {
      const r = await Dice.api("/api/read", form);
      $("judge-dice").value = r.faces.join(" ");
      error(r.reroll.length ? "Some dice are leaning or off the tray: roll them again." : "");
    } catch (e) { error((e.data || {}).error || "the photo could not be read"); }
    ev.target.value = "";
  });
  $("judge-form").addEventListener("submit", async function (ev) {
    ev.preventDefault();
    error("");
    let text = $("judge-dice").value.trim();
    if (/^[1-6]+$/.test(text) && text.length === game().dice_count) text = text.split("").join(" ");
    const body = { game: game().id, dice: text.split(/[\s,]+/).filter(Boolean) };
    const cat = $("judge-category").value;
    if (cat && game().categories.length) body.category = cat;
    try {
      const r = await Dice.api("/api/score", body);
      const out = $("judge-result");
      out.textContent = "";
      const labels = {};
      game().categories.forEach(function (c) { labels[c.id] = c.label; });
      const name = function (id) { return labels[id] || id; };
      if (r.options) {
        r.options.forEach(function (o) {
          out.appendChild(line(name(o.category) + ": " + o.points + (o.bonus ? " +" + o.bonus + " bonus" : "") + " points", "big"));
          out.appendChild(line(o.reason, "muted small"));
        });
      } else if (r.category) {
        out.appendChild(line(r.points + (r.bonus ? " +" + r.bonus + " bonus" : "") + " points in " + name(r.category), "big"));
        out.appendChild(line(r.reason));
      } else {
        out.appendChild(line(r.bust ? "Bust: no points" : r.points + " points", "big"));
        out.appendChild(line(r.reason));
      }
      $("judge-result-card").hidden = false;
    } catch (e) { error((e.data || {}).error || "something went wrong"); }
  });
  fill();
})();
