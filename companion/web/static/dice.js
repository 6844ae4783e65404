// Shared by the pages: drawing dice, calling the API, speaking, drawing a reading over a photo.
"use strict";
window.Dice = (function () {
  const PIPS = {
    1: [[50, 50]],
    2: [[27, 27], [73, 73]],
    3: [[27, 27], [50, 50], [73, 73]],
    4: [[27, 27], [73, 27], [27, 73], [73, 73]],
    5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
    6: [[27, 25], [73, 25], [27, 50], [73, 50], [27, 75], [73, 75]],
  };
  const NS = "http://www.w3.org/2000/svg";
  const WORDS = ["zero", "one", "two", "three", "four", "five", "six"];

  /** An SVG element showing a die face (a "?" for an unknown value). */
  function face(value) {
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("aria-hidden", "true");
    svg.classList.add("die-face");
    const rect = document.createElementNS(NS, "rect");
    rect.setAttribute("x", "4"); rect.setAttribute("y", "4");
    rect.setAttribute("width", "92"); rect.setAttribute("height", "92");
    rect.setAttribute("rx", "16");
    rect.classList.add("die-body");
    svg.appendChild(rect);
    if (PIPS[value]) {
      for (const [cx, cy] of PIPS[value]) {
        const c = document.createElementNS(NS, "circle");
        c.setAttribute("cx", cx); c.setAttribute("cy", cy); c.setAttribute("r", "9");
        c.classList.add("pip");
        svg.appendChild(c);
      }
    } else {
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", "50"); t.setAttribute("y", "66");
      t.setAttribute("text-anchor", "middle"); t.classList.add("die-unknown");
      t.textContent = "?";
      svg.appendChild(t);
    }
    return svg;
  }

  /** fetch() for the API: JSON in and out; throws {status, data} on an HTTP error. */
  async function api(url, body, opts) {
    const init = { method: body === undefined ? "GET" : "POST", headers: { "X-Dice-Companion": "1" } };
    if (body instanceof FormData) {
      init.body = body;
    } else if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    Object.assign(init, opts || {});
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      throw { status: 0, data: { error: "the companion cannot be reached: check the Wi-Fi and try again" } };
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: "unexpected answer (" + res.status + ")" }; }
    if (!res.ok) throw { status: res.status, data: data };
    return data;
  }

  /** Say the text: the browser's speech synthesis, else a WAV made by the server. */
  function speak(text, audio) {
    if (!text) return;
    const synth = window.speechSynthesis;
    if (synth && typeof SpeechSynthesisUtterance !== "undefined" && synth.getVoices().length) {
      synth.cancel();
      synth.speak(new SpeechSynthesisUtterance(text));
      return;
    }
    if (audio) {
      audio.src = "/api/speech.wav?text=" + encodeURIComponent(text);
      const p = audio.play();
      if (p && p.catch) p.catch(function () { /* autoplay refused: the button plays it */ });
    }
  }

  function sayFaces(values) {
    return values.map(function (v, i) {
      const w = WORDS[v] || String(v);
      return i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w;
    }).join(", ") + ".";
  }

  /** Draw each die's outline and value over a photo; flagged dice in orange, unread in red.
   *  onTap(index) is called when a die's outline is tapped. */
  function overlay(svg, reading, onTap) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + reading.width + " " + reading.height);
    const unit = Math.max(reading.width, reading.height) / 100;
    reading.dice.forEach(function (d, i) {
      const cls = d.value === null ? "unread" : (d.flags.length ? "flagged" : "ok");
      const kept = reading.roles && reading.roles[i] === null;
      const g = document.createElementNS(NS, "g");
      g.classList.add("die-mark", cls);
      if (kept) g.classList.add("kept");
      let pts = d.outline && d.outline.length ? d.outline : null;
      if (!pts) {
        const h = d.size / 2;
        pts = [[d.center[0] - h, d.center[1] - h], [d.center[0] + h, d.center[1] - h],
               [d.center[0] + h, d.center[1] + h], [d.center[0] - h, d.center[1] + h]];
      }
      const reroll = needsReroll(d);
      if (reroll) g.classList.add("reroll");
      const poly = document.createElementNS(NS, "polygon");
      poly.setAttribute("points", pts.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
      poly.setAttribute("stroke-width", String(Math.max(reroll ? 3 : 2, unit * (reroll ? 0.9 : 0.5))));
      g.appendChild(poly);
      const label = document.createElementNS(NS, "text");
      const top = Math.min.apply(null, pts.map(function (p) { return p[1]; }));
      label.setAttribute("x", d.center[0]);
      label.setAttribute("y", Math.max(unit * 4, top - unit * 1.2));
      label.setAttribute("text-anchor", "middle");
      label.setAttribute("font-size", String(Math.max(14, unit * 4.5)));
      label.textContent = (d.value === null ? "?" : d.value) + (d.flags.length && d.value !== null ? "!" : "");
      g.appendChild(label);
      if (reroll || d.value === null) {
        // Say why beside the die itself: a player looks at the photo, not at a legend.
        const bottom = Math.max.apply(null, pts.map(function (p) { return p[1]; }));
        const size = Math.max(13, unit * 3.6);
        const tag = document.createElementNS(NS, "text");
        tag.classList.add("die-tag");
        tag.setAttribute("x", Math.min(Math.max(d.center[0], size * 2.5), reading.width - size * 2.5));
        tag.setAttribute("y", Math.min(reading.height - size * 0.3, bottom + size * 1.1));
        tag.setAttribute("text-anchor", "middle");
        tag.setAttribute("font-size", String(size));
        tag.textContent = reroll ? flagWords(d).toUpperCase() : "UNREAD";
        g.appendChild(tag);
      }
      if (onTap) {
        g.addEventListener("click", function () { onTap(i); });
        g.style.cursor = "pointer";
      }
      svg.appendChild(g);
    });
  }

  const FLAG_WORDS = { leaning: "leaning", off_tray: "off the tray", uncertain: "could not be read" };
  const REROLL_FLAGS = ["leaning", "off_tray"];

  /** Whether a die of a reading goes back for a free reroll (leaning, or off the tray). */
  function needsReroll(d) {
    return (d.flags || []).some(function (f) { return REROLL_FLAGS.indexOf(f) >= 0; });
  }

  /** "leaning", "off the tray", or both, for a die of a reading. */
  function flagWords(d) {
    return (d.flags || []).filter(function (f) { return REROLL_FLAGS.indexOf(f) >= 0; })
      .map(function (f) { return FLAG_WORDS[f]; }).join(", ");
  }

  /** "the leaning die", "the die off the tray": the words the spoken reading uses. */
  function rerollName(d) {
    const lean = d.flags.indexOf("leaning") >= 0, off = d.flags.indexOf("off_tray") >= 0;
    return lean && off ? "the leaning die off the tray" : off ? "the die off the tray" : "the leaning die";
  }

  return {
    face: face, api: api, speak: speak, sayFaces: sayFaces, overlay: overlay, FLAG_WORDS: FLAG_WORDS,
    needsReroll: needsReroll, flagWords: flagWords, rerollName: rerollName,
  };
})();
