// The table page: renders the game's JSON state and sends the players' actions to the API.
"use strict";
(function () {
  const $ = function (id) { return document.getElementById(id); };
  const root = $("table");
  const gid = root.dataset.game;
  const base = "/api/games/" + gid;
  let S = JSON.parse($("initial-state").textContent);
  let keep = new Set();        // positions the player keeps for the next roll (box games)
  let selected = null;         // die whose panel is open
  let help = null;             // a photo the reader could not fully read: {photo, url, reading}
  let lastSpokenPhoto = null;
  let busy = false;

  // -- messages ---------------------------------------------------------------------------
  function say(text, kind) {
    const m = $("message");
    m.textContent = text || "";
    m.hidden = !text;
    m.className = kind === "info" ? "notice" : "alert";
  }

  async function send(path, body, after) {
    if (busy) return;
    busy = true;
    root.dataset.busy = "1";
    document.body.classList.add("busy");
    try {
      if (body instanceof FormData) body.append("version", S.version);
      else body = Object.assign({ version: S.version }, body || {});
      const next = await Dice.api(base + path, body);
      say("");
      help = null;
      const before = S;
      S = next;
      if (after) after(before);
      render();
      return true;
    } catch (err) {
      const data = err.data || {};
      if (data.needs === "retake_or_type") {
        help = { photo: data.photo, url: data.url, reading: data.reading };
        say(data.error);
        render();
        prefillFromHelp();
      } else {
        say(data.error || "something went wrong");
        if (err.status === 409 || err.status === 404) await refresh(true);
      }
      return false;
    } finally {
      busy = false;
      root.dataset.busy = "0";
      document.body.classList.remove("busy");
    }
  }

  async function refresh(force) {
    try {
      const next = await Dice.api(base);
      // Versions only grow (an undo is an action too): an answer older than what the page
      // shows, overtaken by the player's own action, is dropped.
      if (next.version > S.version && (force || !busy)) {
        S = next;
        keep = new Set();
        selected = null;
        render();
      }
    } catch (e) { /* keep the last state on a network hiccup */ }
  }

  // -- what the player sees ---------------------------------------------------------------
  function isBox() { return S.kind === "box"; }
  function keepable() { return isBox() && S.can_roll && S.roll_number > 0 && !S.pending_reroll.length; }

  function thrownCount() {
    if (S.pending_reroll.length) return S.pending_reroll.length;
    if (!isBox()) return S.dice_left;
    return S.roll_number === 0 ? S.dice_count : S.dice_count - keep.size;
  }

  // -- free rerolls: which dice, why, where --------------------------------------------------
  /** For each die waiting for a free reroll: its position and the photo's die (null when the
   *  roll was typed with a flag). */
  function rerollDice() {
    const r = S.photo && S.photo.reading;
    return S.pending_reroll.map(function (pos) {
      let die = null;
      if (r && r.roles && r.positions) {
        r.dice.forEach(function (d, k) {
          const j = r.roles[k];
          if (j !== null && j !== undefined && r.positions[j] === pos && Dice.needsReroll(d)) die = d;
        });
      }
      return { pos: pos, die: die };
    });
  }

  /** "Reroll the leaning die, top left — this reroll is free." */
  function rerollSentence() {
    const items = rerollDice();
    if (!items.length) return "";
    const parts = items.map(function (it) {
      if (!it.die) return "die " + (it.pos + 1);
      return Dice.rerollName(it.die) + (it.die.where ? ", " + it.die.where : "");
    });
    const list = parts.length === 1 ? parts[0]
      : parts.slice(0, -1).join("; ") + " and " + parts[parts.length - 1];
    return "Reroll " + list + " — " + (items.length === 1 ? "this reroll is free." : "these rerolls are free.");
  }

  function rerollHow() {
    const n = S.pending_reroll.length;
    return "It does not use up a roll. Leave the other dice as they lie, roll " +
      (n === 1 ? "that die" : "those " + n + " dice") + " again, then photograph the tray or type the new " +
      (n === 1 ? "value." : "values.");
  }

  function renderStatus() {
    const tb = S.phase === "tiebreak";
    $("turn-line").textContent = S.finished ? "Game over" :
      S.current_player + (tb ? "'s extra turn (tie-break)" : "'s turn");
    let line;
    if (S.finished) line = "";
    else if (isBox()) {
      line = (tb ? "Tie-break" : "Turn " + S.turn + " of " + S.turns) +
        " · roll " + S.roll_number + " of " + S.rolls_per_turn;
    } else {
      line = "Turn total " + S.turn_total + " · " + S.dice_left + " dice to throw";
    }
    $("roll-line").textContent = line;
    let event = S.last_event || "";
    if (S.pending_reroll.length && !S.finished) {
      // The rules' event lists every face read; say plainly which do not count yet.
      const items = rerollDice();
      event += items.length === 1 && items[0].die
        ? " — " + Dice.rerollName(items[0].die) + " does not count"
        : " — " + (items.length === 1 ? "the flagged die does not count" : "the flagged dice do not count");
    }
    $("event-line").textContent = event;
    const rr = $("reroll-line");
    rr.hidden = !S.pending_reroll.length || S.finished;
    rr.textContent = rr.hidden ? "" : rerollSentence();
    const w = $("winner-line");
    w.hidden = !S.finished;
    if (S.finished) {
      const best = Math.max.apply(null, S.totals);
      const sums = isBox() ? Object.keys(S.tiebreak_sums) : [];
      const tie = sums.length
        ? " the tie-break (sum of the final dice: " +
          sums.map(function (p) { return p + " " + S.tiebreak_sums[p]; }).join(", ") + ")"
        : "";
      w.textContent = S.winners.length > 1
        ? S.winners.join(" and ") + " share the win" + (tie ? " after" + tie : "")
        : S.winners[0] + (tie ? " wins" + tie : " wins" + (isBox() ? " with " + best : ""));
    }
  }

  function scoredMarks() {
    // Which dice of the last ten-dice throw scored (to dim the others).
    const marks = [];
    if (isBox() || !S.last_throw || S.pending_reroll.length) return marks;
    const need = {};
    S.last_throw.scoring.forEach(function (g) { g.forEach(function (v) { need[v] = (need[v] || 0) + 1; }); });
    S.dice.forEach(function (d, i) {
      if (need[d.value]) { need[d.value] -= 1; marks[i] = true; }
    });
    return marks;
  }

  function renderDice() {
    const row = $("dice");
    row.textContent = "";
    const scored = scoredMarks();
    const why = {};
    rerollDice().forEach(function (it) { if (it.die) why[it.pos] = Dice.flagWords(it.die); });
    S.dice.forEach(function (d, i) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "die";
      const kept = keepable() ? keep.has(i) : d.kept;
      if (kept) b.classList.add("kept");
      if (d.flagged) b.classList.add("flagged");
      if (!isBox() && !S.pending_reroll.length) b.classList.add(scored[i] ? "scored" : "unscored");
      if (selected === i) b.classList.add("selected");
      b.appendChild(Dice.face(d.flagged ? null : d.value));
      const cap = document.createElement("span");
      cap.className = "die-caption";
      cap.textContent = d.flagged ? (why[i] || "reroll") : kept ? "kept" : (!isBox() && scored[i]) ? "scores" : "";
      b.appendChild(cap);
      b.setAttribute("aria-label", "Die " + (i + 1) + ": " + (d.flagged ? (why[i] || "flagged") + ", to roll again for free" : d.value) +
        (kept ? ", kept" : ""));
      b.dataset.index = i;
      b.dataset.value = d.value;
      b.addEventListener("click", function () { openPanel(i); });
      row.appendChild(b);
    });
    $("dice-card").hidden = !S.dice.length;
    $("dice-title").textContent = isBox() ? "Dice" : (S.pending_reroll.length ? "This throw" :
      S.last_thrower ? S.last_thrower + "'s last throw" : "Last throw");
    let helpText = "";
    if (!S.dice.length) helpText = S.finished ? "" : "No dice yet: roll to start the turn.";
    else if (keepable()) helpText = "Tap a die (here or on the photo) to keep it for the next roll, or to fix a misread value.";
    else if (!S.finished) helpText = "Tap a die (here or on the photo) to fix a misread value.";
    $("dice-help").textContent = helpText;
    renderPanel();
  }

  function openPanel(i) {
    selected = selected === i ? null : i;
    renderDice();
  }

  function renderPanel() {
    const panel = $("die-panel");
    if (selected === null || selected >= S.dice.length || S.finished) { panel.hidden = true; return; }
    panel.hidden = false;
    const d = S.dice[selected];
    $("die-panel-title").textContent = "Die " + (selected + 1) + (d.flagged ? " (to roll again)" : " shows " + d.value);
    const kb = $("keep-buttons");
    kb.hidden = !keepable();
    $("keep-toggle").textContent = keep.has(selected) ? "Roll it again" : "Keep it";
    const fix = $("fix-buttons");
    fix.textContent = "";
    for (let v = 1; v <= 6; v++) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "value-button";
      b.appendChild(Dice.face(v));
      b.setAttribute("aria-label", "It shows " + v);
      b.dataset.value = v;
      b.addEventListener("click", function () {
        const index = selected;
        selected = null;
        send("/correct", { index: index, value: v });
      });
      fix.appendChild(b);
    }
  }

  function renderThrow() {
    const card = $("throw-card");
    card.hidden = isBox();
    if (isBox()) return;
    const t = S.last_throw;
    $("throw-points").textContent = !t ? "–" : t.bust ? "Bust" : String(t.points);
    $("throw-who").textContent = S.last_thrower ? S.last_thrower + "'s throw" : "Last throw";
    $("turn-total").textContent = String(S.turn_total);
    $("dice-left").textContent = String(S.dice_left);
    $("throw-reason").textContent = t ? t.reason : "";
    $("set-aside").textContent = S.set_aside.length
      ? "Set aside this turn: " + S.set_aside.map(function (g) { return g.join(""); }).join(" · ")
      : "";
  }

  function renderRoll() {
    const card = $("roll-card");
    const canThrow = S.can_roll || (S.pending_reroll.length > 0 && !S.finished);
    card.hidden = S.finished || (!canThrow && !S.can_bank && !S.can_stand);
    const n = thrownCount();
    const pending = S.pending_reroll.length;
    let title, text;
    card.classList.toggle("free", pending > 0);
    if (pending) {
      title = "Free reroll";
      text = rerollSentence() + " " + rerollHow();
    } else if (isBox()) {
      title = S.roll_number === 0 ? "First roll" : "Roll " + (S.roll_number + 1) + " of " + S.rolls_per_turn;
      text = S.roll_number === 0
        ? "Roll all " + S.dice_count + " dice, then photograph the tray."
        : "Tap the dice you keep above, then roll the other " + (n === 1 ? "die" : n + " dice") +
          ". The photo may show every die or only the thrown ones.";
      if (!canThrow) text = "No rolls left: choose a box below.";
    } else {
      title = S.throws ? "Throw again or bank" : "Throw";
      text = "Throw the " + n + " dice left" + (S.throws ? ", or bank " + S.turn_total + " points." : ".");
      if (S.turn_total && S.dice_left === 10) text = "Around the horn! Throw all ten again.";
    }
    $("roll-title").textContent = title;
    $("roll-help").textContent = text;
    $("photo-label").hidden = !canThrow;
    $("type-form").hidden = !canThrow;
    $("type-label").textContent = help ? (help.reading.roles
      ? "Type the dice of this photo (replace each ?)"
      : "Type the " + (n === 1 ? "die" : n + " dice") + " thrown in this photo") :
      "Or type the " + (n === 1 ? "die" : n + " dice") + " thrown";
    $("type-input").placeholder = "e.g. " + [4, 4, 2, 6, 5, 1, 3, 5, 2, 6].slice(0, Math.max(1, n)).join(" ");
    $("ten-actions").hidden = !S.can_bank;
    $("bank-button").textContent = "Bank " + S.turn_total + " points";
    $("stand-actions").hidden = !S.can_stand;
  }

  function currentPhoto() {
    if (help) return { url: help.url, reading: help.reading };
    return S.photo;
  }

  function renderPhoto() {
    const p = currentPhoto();
    const card = $("photo-card");
    card.hidden = !p;
    if (!p) return;
    const img = $("photo");
    if (img.getAttribute("src") !== p.url) img.src = p.url;
    $("photo-wrap").style.aspectRatio = p.reading.width + " / " + p.reading.height;
    const r = p.reading;
    // Tapping a die on the photo opens the same panel as tapping it in the dice row.
    const onTap = help || !r.roles || !r.positions ? null : function (k) {
      const j = r.roles[k];
      if (j === null || j === undefined || r.positions[j] === undefined) return;
      openPanel(r.positions[j]);
      $("dice-card").scrollIntoView({ behavior: "smooth", block: "nearest" });
    };
    Dice.overlay($("overlay"), r, onTap);
    const list = $("flag-list");
    list.textContent = "";
    let shown = 0, more = 0;
    p.reading.dice.forEach(function (d) {
      const reroll = Dice.needsReroll(d);
      if (!reroll && d.value !== null) return;
      if (++shown > 10) { more++; return; }
      const li = document.createElement("li");
      const where = d.where ? ", " + d.where : "";
      const head = document.createElement("strong");
      if (reroll) {
        const name = Dice.rerollName(d).replace(/^the /, "");
        head.textContent = name.charAt(0).toUpperCase() + name.slice(1) + where;
        li.append(head, (d.value !== null ? " (reads " + d.value + ")" : "") +
          ": it does not count. Roll it again — the reroll is free.");
        li.className = "flagged";
      } else {
        head.textContent = "A die" + where;
        li.append(head, ": its face could not be read.");
        li.className = "unread";
      }
      if (d.evidence && d.evidence.length) {
        li.appendChild(cell("span", "Why: " + d.evidence.join(" "), "why"));
      }
      list.appendChild(li);
    });
    if (more) list.appendChild(cell("li", "… and " + more + " more marks.", "muted"));
    const summary = document.createElement("li");
    summary.className = "muted";
    summary.textContent = p.reading.dice.length + (p.reading.dice.length === 1 ? " die" : " dice") +
      " found; read " + (p.reading.faces.length > 12 ? p.reading.faces.length + " faces" : p.reading.faces.join(", ")) +
      " in " + Math.round(p.reading.elapsed_ms) + " ms.";
    if (!p.reading.faces.length) summary.textContent = "No face was read.";
    list.appendChild(summary);
  }

  function renderOptions() {
    const card = $("options-card");
    const opts = S.options || [];
    card.hidden = !isBox() || !opts.length;
    const list = $("options");
    list.textContent = "";
    const labels = {};
    (S.categories || []).forEach(function (c) { labels[c.id] = c.label; });
    const advice = coachBoxes();
    opts.forEach(function (o, k) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "option" + (k === 0 ? " best" : "");
      b.dataset.category = o.category;
      const name = document.createElement("span");
      name.className = "option-name";
      name.textContent = labels[o.category] || o.category;
      const pts = document.createElement("span");
      pts.className = "option-points";
      pts.textContent = o.points + (o.bonus ? " +" + o.bonus : "") + " pts";
      const why = document.createElement("span");
      why.className = "option-reason";
      why.textContent = o.reason.replace(/ \(rule: .*\)$/, "");
      b.title = o.reason;
      b.append(name, pts, why);
      const c = advice && advice.by[o.category];
      if (c) {
        const note = document.createElement("span");
        note.className = "option-coach";
        note.textContent = "Coach: expected final score " + round1(c.expected_final_score) +
          (advice.best === o.category ? " · best" : advice.stop === o.category && !advice.best ? " · best box if you stop" : "");
        if (advice.best === o.category) b.classList.add("coach-best");
        b.appendChild(note);
      }
      b.addEventListener("click", function () {
        send("/score", { category: o.category }, function () { keep = new Set(); });
      });
      li.appendChild(b);
      list.appendChild(li);
    });
  }

  // -- the coach (a game option, on for everyone): advice fetched after every change -------
  const coach = { version: null, data: null, thinking: false, error: null, timer: null, asking: false };

  function coachApplies() {
    return S.coach && !S.finished && !S.pending_reroll.length && (!isBox() || S.phase === "play");
  }

  function coachFor(version) { return coach.version === version && coach.data ? coach.data : null; }

  function round1(x) { return (Math.round(x * 10) / 10).toFixed(1); }

  async function fetchCoach() {
    if (!coachApplies() || coach.asking) return;
    if (coach.version === S.version && (coach.data || coach.error)) return;
    coach.asking = true;
    const asked = S.version;
    let a = null, error = null;
    try {
      a = await Dice.api(base + "/advice");
    } catch (err) {
      error = (err.data || {}).error || "the coach is not available";
    }
    coach.asking = false;
    if (S.version !== asked) { fetchCoach(); return; }  // the game moved on meanwhile
    clearTimeout(coach.timer);
    coach.version = asked;
    coach.thinking = !!(a && a.thinking);
    coach.data = a && !a.thinking ? a : null;
    coach.error = error;
    if (coach.thinking) {
      // The table is being built (several seconds, the first time only): ask again shortly.
      coach.timer = setTimeout(function () { coach.version = null; fetchCoach(); }, 1500);
    }
    renderCoach();
    renderOptions();
  }

  function keepPositions(values) {
    // The positions of the dice on the table that show the values to keep.
    const left = values.slice();
    const out = [];
    S.dice.forEach(function (d, i) {
      const k = left.indexOf(d.value);
      if (k >= 0 && !d.flagged) { left.splice(k, 1); out.push(i); }
    });
    return out;
  }

  function renderCoach() {
    const card = $("coach-card");
    card.hidden = !S.coach || S.finished;
    if (card.hidden) return;
    const list = $("coach");
    const line = $("coach-line");
    const useBtn = $("coach-keep-button");
    list.textContent = "";
    useBtn.hidden = true;
    if (!coachApplies()) {
      line.textContent = S.pending_reroll.length ? "The coach waits for the free reroll."
        : "The coach does not play tie-break turns.";
      return;
    }
    const a = coachFor(S.version);
    if (!a) {
      line.textContent = coach.error && coach.version === S.version ? coach.error
        : coach.thinking ? "The coach is still thinking (its table is built once, in a few seconds)…"
        : "The coach is looking…";
      fetchCoach();
      return;
    }
    const labels = {};
    (S.categories || []).forEach(function (c) { labels[c.id] = c.label; });
    const choices = a.choices || [];
    if (a.expected_final_score !== undefined && !choices.length) {
      line.textContent = "Expected final score from here, playing best: " + round1(a.expected_final_score) + ".";
      return;
    }
    if (a.choose === "keep") {
      const best = choices[0];
      line.textContent = best.keep.length === S.dice.length ? "Best: stop and choose a box below."
        : best.keep.length ? "Best: keep " + best.keep.join(", ") + " and roll the rest again."
        : "Best: roll every die again.";
      choices.slice(0, 3).forEach(function (c, k) {
        const text = (c.keep.length === S.dice.length ? "Keep them all (stop)" :
          c.keep.length ? "Keep " + c.keep.join(", ") : "Roll them all again") +
          ": expected final score " + round1(c.expected_final_score);
        list.appendChild(cell("li", text, k === 0 ? "best" : ""));
      });
      if (keepable() && best.keep.length && best.keep.length < S.dice.length) {
        useBtn.hidden = false;
        useBtn.textContent = "Keep " + best.keep.join(", ") + " for me";
        useBtn.onclick = function () { keep = new Set(keepPositions(best.keep)); render(); };
      }
    } else if (a.choose === "box") {
      const best = choices[0];
      line.textContent = "Best box: " + (labels[best.category] || best.category) + " (" + best.points +
        "), expected final score " + round1(best.expected_final_score) + ". Every box below shows its own.";
    } else if (a.bust) {
      line.textContent = "Bust: nothing to choose.";
    } else {
      const best = choices[0];
      const again = S.throws ? "throw again" : "throw";
      line.textContent = best.choice === "bank" ? "Best: bank the points." : "Best: " + again + ".";
      choices.forEach(function (c, k) {
        list.appendChild(cell("li", (c.choice === "bank" ? "Bank" : again.charAt(0).toUpperCase() + again.slice(1)) + ": expect " +
          Math.round(c.expected_points) + " points this turn", k === 0 ? "best" : ""));
      });
    }
    if (a.policy) list.appendChild(cell("li", "Plays for: " + a.policy.replace(/^turn: /, "") + ".", "muted small"));
  }

  /** The coach's expected final score of each box, and its best box, for the options list. */
  function coachBoxes() {
    const a = coachFor(S.version);
    if (!a || !isBox()) return null;
    const boxes = a.choose === "box" ? a.choices : a.if_you_stop;
    if (!boxes || !boxes.length) return null;
    const by = {};
    boxes.forEach(function (b) { by[b.category] = b; });
    return { by: by, best: a.choose === "box" ? boxes[0].category : null, stop: boxes[0].category };
  }

  function cell(tag, text, cls) {
    const c = document.createElement(tag);
    c.textContent = text;
    if (cls) c.className = cls;
    return c;
  }

  function renderSheets() {
    const t = $("sheets");
    t.textContent = "";
    const head = document.createElement("tr");
    head.appendChild(cell("th", isBox() ? "Box" : "Player"));
    if (isBox()) {
      S.players.forEach(function (p, i) {
        head.appendChild(cell("th", p, i === S.current && !S.finished ? "current" : ""));
      });
      t.appendChild(head);
      let upperDone = false;
      S.categories.forEach(function (c, k) {
        const tr = document.createElement("tr");
        tr.appendChild(cell("th", c.label));
        S.sheets.forEach(function (s, i) {
          const v = s.boxes[c.id];
          tr.appendChild(cell("td", v === undefined ? "" : String(v), i === S.current && !S.finished ? "current" : ""));
        });
        t.appendChild(tr);
        const next = S.categories[k + 1];
        if (c.upper && (!next || !next.upper) && !upperDone && S.upper_bonus) {
          upperDone = true;
          const sub = document.createElement("tr");
          sub.className = "subtotal";
          sub.appendChild(cell("th", "Upper total"));
          S.upper_totals.forEach(function (u) { sub.appendChild(cell("td", u + " / " + S.upper_bonus.threshold)); });
          t.appendChild(sub);
        }
      });
      if (S.upper_bonus) {
        const b = document.createElement("tr");
        b.className = "subtotal";
        b.appendChild(cell("th", "Bonus"));
        S.sheets.forEach(function (s) { b.appendChild(cell("td", String(s.bonus))); });
        t.appendChild(b);
      }
      const tot = document.createElement("tr");
      tot.className = "total";
      tot.appendChild(cell("th", "Total"));
      S.sheets.forEach(function (s) { tot.appendChild(cell("td", String(s.total))); });
      t.appendChild(tot);
    } else {
      head.appendChild(cell("th", "Score"));
      head.appendChild(cell("th", "To " + S.target.toLocaleString("en")));
      t.appendChild(head);
      S.players.forEach(function (p, i) {
        const tr = document.createElement("tr");
        if (i === S.current && !S.finished) tr.className = "current";
        tr.appendChild(cell("th", p));
        tr.appendChild(cell("td", S.scores[i].toLocaleString("en")));
        const td = document.createElement("td");
        const bar = document.createElement("progress");
        bar.max = S.target; bar.value = Math.min(S.target, S.scores[i]);
        td.appendChild(bar);
        tr.appendChild(td);
        t.appendChild(tr);
      });
    }
    $("undo-button").disabled = !S.can_undo;
    $("undo-what").textContent = S.last_action && S.last_action.event ? "(" + S.last_action.event + ")" : "";
  }

  function speakLatest() {
    if (!$("speak-auto").checked) return;
    const p = S.photo;
    if (p && p.seq !== lastSpokenPhoto) {
      lastSpokenPhoto = p.seq;
      Dice.speak(speechFor(), $("speech-audio"));
    }
  }

  function speechFor() {
    // The reader's sentence (with its reroll calls) while the latest action is that photo's
    // roll; otherwise the dice as they now stand (typed, or corrected).
    const fresh = S.photo && S.last_action && S.photo.seq === S.last_action.seq &&
      S.photo.reading.dice.length === S.dice.length;
    let text = fresh ? S.photo.reading.speech
      : Dice.sayFaces(S.dice.filter(function (d) { return !d.flagged; }).map(function (d) { return d.value; }));
    if (!isBox() && S.last_throw) text += S.last_throw.bust ? " Bust." : " " + S.last_throw.points + " points.";
    return text;
  }

  function render() {
    root.dataset.version = S.version;
    root.classList.toggle("pending", S.pending_reroll.length > 0 && !S.finished);
    renderStatus();
    renderDice();
    renderThrow();
    renderRoll();
    renderPhoto();
    renderOptions();
    renderCoach();
    renderSheets();
  }

  function prefillFromHelp() {
    if (!help) return;
    const roles = help.reading.roles;
    const values = [];
    if (!roles) { $("type-input").value = ""; $("type-input").focus(); return; }
    help.reading.dice.forEach(function (d, k) {
      if (roles[k] !== null && roles[k] !== undefined) values[roles[k]] = d.value === null ? "?" : d.value;
    });
    $("type-input").value = values.join(" ");
    $("type-input").focus();
  }

  // -- actions ----------------------------------------------------------------------------
  $("keep-toggle").addEventListener("click", function () {
    if (selected === null) return;
    if (keep.has(selected)) keep.delete(selected); else keep.add(selected);
    selected = null;
    render();
  });
  $("die-panel-close").addEventListener("click", function () { selected = null; renderDice(); });

  $("photo-input").addEventListener("change", async function (ev) {
    const file = ev.target.files[0];
    if (!file) return;
    const form = new FormData();
    form.append("image", file);
    if (keepable()) keep.forEach(function (i) { form.append("keep", i); });
    say("Reading the photo…", "info");
    await send("/roll", form, function () { keep = new Set(); });
    ev.target.value = "";
    speakLatest();
  });

  $("type-form").addEventListener("submit", async function (ev) {
    ev.preventDefault();
    let text = $("type-input").value.trim();
    const n = thrownCount();
    // "442" on a phone's number pad means 4, 4, 2.
    if (/^[1-6]+$/.test(text) && text.length === n && n > 1) text = text.split("").join(" ");
    const dice = text.split(/[\s,]+/).filter(Boolean);
    const body = { dice: dice };
    if (keepable()) body.keep = Array.from(keep).sort();
    if (help) body.photo = help.photo;
    const ok = await send("/roll", body, function () { keep = new Set(); });
    if (ok) {
      $("type-input").value = "";
      if (S.photo) lastSpokenPhoto = S.photo.seq;
      if ($("speak-auto").checked) Dice.speak(speechFor(), $("speech-audio"));
    }
  });

  $("bank-button").addEventListener("click", function () { send("/bank", {}); });
  $("stand-button").addEventListener("click", function () { send("/stand", {}); });
  $("undo-button").addEventListener("click", function () {
    send("/undo", {}, function () { keep = new Set(); selected = null; });
  });
  $("speak-button").addEventListener("click", function () { Dice.speak(speechFor(), $("speech-audio")); });
  const auto = $("speak-auto");
  auto.checked = localStorage.getItem("dice-speak") !== "0";
  auto.addEventListener("change", function () { localStorage.setItem("dice-speak", auto.checked ? "1" : "0"); });

  // Other phones at the table may act: pick up their changes.
  setInterval(function () { if (!busy && !document.hidden) refresh(); }, 4000);
  if (S.photo) lastSpokenPhoto = S.photo.seq;
  render();
  // The page as the server sent it is only a sketch until this first render.
  root.dataset.ready = "1";
})();
