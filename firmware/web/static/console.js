// The Baccarat prop's console: live state by server-sent events, commands by POST.
// No framework and no build step: the prop serves this file as it is.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  let session = null;
  let shown = null; // the state document the page shows (the edgework form keeps what it leaves empty)
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  // -- talking to the prop -----------------------------------------------------------------
  async function post(path, body, options = {}) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        credentials: "same-origin",
        keepalive: Boolean(options.keepalive),
        headers: { "Content-Type": "application/json", "X-CSRF-Token": session ? session.csrf : "" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return { ok: false, error: _("the prop did not answer ({why})", { why: error.message }) };
    }
    let data;
    try {
      data = await response.json();
    } catch (error) {
      data = { ok: false, error: `HTTP ${response.status}` };
    }
    if (response.status === 401) recover();
    return data;
  }

  function showMessage(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.className = kind;
    box.hidden = false;
  }

  // What the next round's winner means for the players' bet (the hint and the answer panel).
  const ADVICE = {
    player: _("bet on Player"),
    banker: _("bet on Banker"),
    tie: _("Player and Banker push: add a Tie side bet"),
  };

  function describeReply(reply, label) {
    const result = reply.result || {};
    if (reply.command === "bet") return result.summary;
    if (reply.command === "self_test") {
      const faults = showSelfTest(result);
      return faults ? ngettext("Self-test found {n} fault: see the list.", "Self-test found {n} faults: see the list.",
        faults) : _("Self-test passed.");
    }
    if (reply.command === "hint") {
      return _("Hint: {advice}. Player {player} = {player_score}, Banker {banker} = {banker_score}.", {
        advice: ADVICE[result.winner] || result.advice, player: result.player.join(" "),
        player_score: result.player_score, banker: result.banker.join(" "), banker_score: result.banker_score,
      });
    }
    return _("{label}: done.", { label });
  }

  // The self-test's words: what was tested, and what it gave (the prop's own words for anything else).
  const PARTS = {
    display: _("display"), light: _("light"), sound: _("sound"), output: _("output"), button: _("button"),
  };
  const RESULTS = {
    ok: _("OK"), off: _("off"), "not switched": _("not switched"), "not tested": _("not tested"),
    "not pressed": _("not pressed"), "not answering": _("not answering"), failed: _("failed"),
    skipped: _("skipped"),
  };

  // The self-test's result, one line per part, faults marked; returns how many faults.
  function showSelfTest(result) {
    const list = $("#self-test-result");
    list.replaceChildren();
    let faults = 0;
    for (const part of result.parts || []) {
      const item = document.createElement("li");
      const fine = ["ok", "off", "not switched"].includes(part.result);
      faults += fine ? 0 : 1;
      item.className = fine ? "ok" : "fault";
      item.textContent = `${PARTS[part.part] || part.part} ${part.name}: ${RESULTS[part.result] || part.result}` +
        (part.detail && !fine ? ` (${part.detail})` : "");
      list.append(item);
    }
    list.hidden = false;
    return faults;
  }

  async function command(body, label) {
    showMessage(_("{label}...", { label }), "pending");
    const reply = await post("/api/command", body);
    if (reply.ok) {
      showMessage(describeReply(reply, label), "ok");
    } else {
      showMessage(_("{label}: {error}", { label, error: reply.error || _("failed") }), "error");
    }
    return reply;
  }

  // A typed number: "1,000" or "$25" become numbers; anything else goes as typed, so the
  // prop's own validation names it; an empty field is left out.
  function number(value) {
    const text = value.trim();
    if (text === "") return undefined;
    if (/^\$?\d[\d,]*$/.test(text)) return Number(text.replace(/[$,]/g, ""));
    return text;
  }
  // The edgework form: an empty field keeps what the prop has now (as the solved count
  // does), "none" empties a list; anything else goes as typed.
  function keepOr(value, key) {
    const typed = value.trim();
    if (typed === "") return shown && shown.edgework ? shown.edgework[key] : undefined;
    if (key !== "serial" && typed.toLowerCase() === "none") return [];
    return typed;
  }
  // Seconds to add: "60", "-30", "1.5" as numbers; anything else as typed (the prop names it).
  function seconds(value) {
    const typed = value.trim();
    if (typed === "") return undefined;
    return /^[-+]?\d+(\.\d+)?$/.test(typed) ? Number(typed) : typed;
  }

  const FORMS = {
    "form-reset": [(f) => ({ command: "reset", min: number(f.min.value), max: number(f.max.value) }), _("Reset")],
    "form-limits": [(f) => ({ command: "set_limits", min: number(f.min.value), max: number(f.max.value) }),
      _("Set limits")],
    "form-solved": [(f) => ({ command: "set_solved", solved: number(f.solved.value) }), _("Set solved")],
    "form-timer": [(f) => ({ command: "add_time", seconds: seconds(f.seconds.value) }), _("Add time")],
    "form-edgework": [(f) => ({
      command: "set_edgework", serial: keepOr(f.serial.value, "serial"), ports: keepOr(f.ports.value, "ports"),
      lit: keepOr(f.lit.value, "lit"), unlit: keepOr(f.unlit.value, "unlit"), solved: number(f.solved.value),
    }), _("Set edgework")],
  };
  const LABELS = {
    force_solve: _("Force solve"), hint: _("Hint"), identify: _("Identify"), enable: _("Enable"),
    disable: _("Disable"), self_test: _("Self-test"), self_test_skip: _("Skip button"),
    self_test_cancel: _("Cancel self-test"), start: _("Start the timer"),
  };
  // What a game master confirms before it happens: [question, the button that does it].
  const CONFIRM = {
    force_solve: [_("Force solve the module? It turns green and counts as solved."), _("Force solve")],
    reset: [_("Reset the module? Strikes, bets and the deck start afresh."), _("Reset")],
    disable: [_("Disable the module? It ignores the players' presses until enabled."), _("Disable")],
  };

  // A reset of a random bomb draws the next one: a casing printed for this one no longer matches.
  const NEW_BOMB = _("The bomb is random: a new one is drawn (serial number, ports, indicators, batteries), " +
    "so a casing printed for this one no longer matches; print the new one from the Casing page.");

  function confirmed(name) {
    const ask = CONFIRM[name];
    if (!ask) return Promise.resolve(true);
    const dialog = $("#confirm");
    const random = name === "reset" && shown && shown.edgework_random;
    $("#confirm-text").textContent = random ? `${ask[0]} ${NEW_BOMB}` : ask[0];
    $("#confirm-yes").textContent = ask[1];
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((done) => {
      dialog.addEventListener("close", () => done(dialog.returnValue === "yes"), { once: true });
    });
  }

  function wireControls() {
    for (const [id, [build, label]] of Object.entries(FORMS)) {
      const form = document.getElementById(id);
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const body = build(form.elements);
        for (const key of Object.keys(body)) {
          if (body[key] === undefined) delete body[key];
        }
        if (await confirmed(body.command)) command(body, label);
      });
    }
    for (const button of document.querySelectorAll("[data-command]")) {
      const name = button.dataset.command;
      button.addEventListener("click", async () => {
        if (await confirmed(name)) command({ command: name }, LABELS[name] || name);
      });
    }
    $("#logout").addEventListener("click", async () => {
      const reply = await post("/logout", {});
      location.href = reply.next || "/login";
    });
  }

  // -- remote play: the players' bets in words, sent as they are (the prop reads them) ---------
  function wireBet() {
    const form = $("#form-bet");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const reply = await command({ command: "bet", bets: form.elements.bets.value }, _("Bet"));
      if (reply.ok) form.elements.bets.select();
    });
  }

  // -- showing what the prop pushes ----------------------------------------------------------------
  // Whole-pixel scaling only (crisp, and a screenshot shows each OLED pixel as a square): the
  // largest scale (at most 4x) at which the displays, wrapped into rows as the page lays them out,
  // take at most half the screen's height (430 px on a phone: 2x), so the controls stay near; at least 1x.
  const GAP = 16;
  const CAPTION = 24;
  function heightAt(images, scale, room) {
    let total = 0;
    let row = 0;
    let used = 0;
    for (const img of images) {
      const width = img.naturalWidth * scale;
      if (used && used + GAP + width > room) {
        total += row + CAPTION + GAP;
        row = used = 0;
      }
      used += (used ? GAP : 0) + width;
      row = Math.max(row, img.naturalHeight * scale);
    }
    return total + row + CAPTION;
  }
  function fitDisplays() {
    const images = [...document.querySelectorAll(".displays img")].filter((img) => img.naturalWidth);
    if (!images.length) return;
    const room = document.querySelector(".displays").clientWidth;
    let scale = 4;
    while (scale > 1 && (images.some((img) => img.naturalWidth * scale > room) ||
      heightAt(images, scale, room) > Math.max(window.innerHeight / 2, 430))) scale -= 1;
    for (const img of images) {
      img.style.width = `${img.naturalWidth * scale}px`;
      img.style.height = `${img.naturalHeight * scale}px`;
      img.dataset.scale = String(scale);
    }
  }

  // The displays' roles, as the front panel's silkscreen and the page name them (i18n.js).
  const { named } = window.baccaratI18n;

  // The page's displays are the prop's own (from /api/session), never a copy here; the front panel's
  // buttons come from its layout (panel.js).
  function buildDisplays(roles) {
    const box = $(".displays");
    for (const role of roles) {
      const figure = document.createElement("figure");
      figure.className = "display";
      figure.dataset.role = role;
      const img = document.createElement("img");
      img.id = `display-${role}`;
      img.alt = _("{role} display", { role: named(role) });
      img.addEventListener("load", fitDisplays);
      const caption = document.createElement("figcaption");
      caption.textContent = named(role);
      figure.append(img, caption);
      box.append(figure);
    }
  }

  function showFrames(frames) {
    for (const [role, url] of Object.entries(frames)) {
      const img = document.getElementById(`display-${role}`);
      if (!img) continue;
      if (url) {
        img.src = url;
        img.classList.remove("missing");
      } else {
        img.removeAttribute("src");
        img.classList.add("missing");
        img.alt = _("{role} display: none connected", { role: named(role) });
      }
    }
  }

  function showState(state) {
    const doc = state.doc;
    const words = state.words;
    shown = doc;
    const status = $("#status-badge");
    status.textContent = words.status;
    status.className = `badge${doc.solved ? " solved" : doc.exploded ? " exploded" : ""}`;
    const enabled = $("#enabled-badge");
    enabled.textContent = words.enabled ? _("enabled") : _("DISABLED");
    enabled.className = `badge${words.enabled ? "" : " disabled"}`;
    $("#strikes-badge").textContent = words.strike_limit
      ? _("strikes {strikes} of {limit}", { strikes: words.strikes, limit: words.strike_limit })
      : _("strikes {strikes}", { strikes: words.strikes });
    const timer = $("#timer-badge");
    timer.hidden = !doc.timer;
    if (doc.timer) {
      timer.textContent = words.timer.split(" ")[0];
      timer.className = `badge timer ${doc.timer.state}`;
      timer.title = _("timer: {timer}", { timer: words.timer });
    }
    $("#fact-timer").textContent = words.timer || _("no timer ([bomb] timer_seconds)");
    $("#fact-status").textContent = words.enabled
      ? ngettext("{status}, {n} strike, enabled", "{status}, {n} strikes, enabled", words.strikes,
        { status: words.status })
      : ngettext("{status}, {n} strike, disabled (ignores the players)",
        "{status}, {n} strikes, disabled (ignores the players)", words.strikes, { status: words.status });
    $("#fact-limits").textContent = words.limits;
    $("#fact-deck").textContent = words.deck;
    $("#fact-bets").textContent = `${words.bets}; ${words.chip}`;
    $("#fact-edgework").textContent = words.edgework;
    $("#fact-version").textContent = words.version;
    showKept(doc.edgework || {});
  }

  // The edgework form's placeholders: what the prop has now, which an empty field keeps.
  function showKept(edgework) {
    const form = $("#form-edgework").elements;
    const list = (items) => (items && items.length ? items.join(", ") : "none"); // "none", as the prop reads it
    const now = {
      serial: edgework.serial || "-", ports: list(edgework.ports), lit: list(edgework.lit),
      unlit: list(edgework.unlit), solved: String(edgework.solved ?? 0),
    };
    for (const [name, value] of Object.entries(now)) form[name].placeholder = value;
  }

  function showAnswer(answer) {
    if (!answer) {
      $("#answer-next").textContent = "-";
      $("#cheat-sheet").textContent = "";
      return;
    }
    const hint = answer.hint || {};
    if (hint.error) {
      $("#answer-next").textContent = _("Next round: {error}", { error: hint.error });
    } else {
      const values = {
        player: hint.player.join(" "), player_score: hint.player_score, banker: hint.banker.join(" "),
        banker_score: hint.banker_score, winner: { player: "PLAYER", banker: "BANKER", tie: "TIE" }[hint.winner],
        advice: ADVICE[hint.winner] || hint.advice,
      };
      const pairs = hint.player_pair && hint.banker_pair ? _("a player pair and a banker pair too")
        : hint.player_pair ? _("a player pair too") : hint.banker_pair ? _("a banker pair too") : "";
      $("#answer-next").textContent = pairs
        ? _("Next round: Player {player} = {player_score}, Banker {banker} = {banker_score}: {winner} wins, " +
          "so {advice} ({pairs}).", { ...values, pairs })
        : _("Next round: Player {player} = {player_score}, Banker {banker} = {banker_score}: {winner} wins, " +
          "so {advice}.", values);
    }
    $("#cheat-sheet").textContent = answer.cheat_sheet;
  }

  function showLog(entries) {
    const list = $("#log-list");
    for (const entry of entries) {
      const item = document.createElement("li");
      if (entry.strike) item.classList.add("strike");
      if (entry.kind === "solved") item.classList.add("solved");
      const time = document.createElement("span");
      time.className = "time";
      time.textContent = entry.time;
      item.append(time, entry.text);
      list.prepend(item);
    }
    while (list.children.length > 300) list.lastElementChild.remove();
  }

  const { formatNumber } = window.baccaratI18n;

  // What switches an output, as the prop's config says it (its events' names as the config writes them).
  function outputWords(output) {
    if (output.pin === undefined) return output.text;
    let said = output.on === null ? _("only by command")
      : output.mode === "pulse"
        ? _("a {seconds} s pulse at {event}", { seconds: formatNumber(output.pulse_seconds), event: named(output.on) })
        : _("on at {event} (hold)", { event: named(output.on) });
    if (output.off !== null) said = _("{said}, off at {event}", { said, event: named(output.off) });
    if (output.max_on_seconds !== null) {
      said = _("{said}, never on longer than {seconds} s", { said, seconds: formatNumber(output.max_on_seconds) });
    }
    return _("GPIO{pin}: {said}", { pin: output.pin, said });
  }

  // What the message says while an output's button works.
  const OUTPUT_LABELS = {
    on: (name) => _("Output {name} on", { name }),
    off: (name) => _("Output {name} off", { name }),
    pulse: (name) => _("Output {name} pulse", { name }),
  };

  // The outputs: a row each, from /api/session; their pins' states come with the lights.
  function buildOutputs(outputs) {
    const list = $("#output-list");
    for (const output of outputs) {
      const item = document.createElement("li");
      item.dataset.output = output.name;
      const name = document.createElement("span");
      name.className = "output-name";
      name.translate = false; // the config's name for it
      name.textContent = output.name;
      const state = document.createElement("span");
      state.className = "badge output-state";
      state.textContent = "-";
      const text = document.createElement("span");
      text.className = "output-text";
      text.textContent = outputWords(output);
      const buttons = document.createElement("span");
      buttons.className = "output-buttons";
      item.append(name, state, text, buttons);
      for (const [action, label] of [["on", _("On")], ["off", _("Off")], ["pulse", _("Pulse")]]) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "small";
        button.dataset.outputState = action;
        button.textContent = label;
        button.addEventListener("click", () =>
          command({ command: "output", name: output.name, state: action }, OUTPUT_LABELS[action](output.name)));
        buttons.append(button);
      }
      list.append(item);
    }
    $("#outputs").hidden = outputs.length === 0;
  }

  function showOutputs(pins) {
    for (const [name, on] of Object.entries(pins || {})) {
      const badge = document.querySelector(`#output-list li[data-output="${CSS.escape(name)}"] .output-state`);
      if (!badge) continue;
      badge.textContent = on ? _("ON") : _("off");
      badge.classList.toggle("on", on);
    }
  }

  function showLights(lights) {
    const status = $("#light-status");
    const both = lights.red && lights.green;
    const color = both ? "#f0b020" : lights.green ? "#30e060" : lights.red ? "#ff3030" : "";
    status.style.background = color;
    status.style.boxShadow = color ? `0 0 .6rem ${color}` : "";
    $("#light-status-text").textContent = both ? _("red and green") : lights.green ? _("green (solved)") :
      lights.red ? _("red (strike)") : _("off");
    const deck = $("#light-deck");
    const [r, g, b] = lights.deck_rgb.map((c) => Math.round(c * 255));
    const lit = r + g + b > 0;
    deck.style.background = lit ? `rgb(${r}, ${g}, ${b})` : "";
    deck.style.boxShadow = lit ? `0 0 .6rem rgb(${r}, ${g}, ${b})` : "";
    const deckText = $("#light-deck-text");
    deckText.textContent = lit ? (lights.deck ? named(lights.deck) : _("on")) : _("off");
  }

  // The prop's own cues, played here too once the game master ticks "Sound" (a browser plays
  // audio only after a click on the page).
  const clips = {};
  function playSounds(sounds) {
    if (!$("#sound").checked) return;
    for (const item of sounds) {
      const clip = clips[item.cue] || (clips[item.cue] = new Audio(`/sound/${encodeURIComponent(item.cue)}.wav`));
      setTimeout(() => { clip.cloneNode().play().catch(() => {}); }, Math.max(0, item.after * 1000));
    }
  }

  // The front panel as built (panel.js): a mirror of the prop's, pressable in the simulator.
  let panel = null;
  async function loadPanel() {
    try {
      panel = await window.BaccaratPanel.load($("#panel-face"), {
        canPress: session.front_panel,
        send: (input, action, keepalive) => post("/api/panel", { input, action }, { keepalive }),
        onError: (text) => showMessage(text, "error"),
      });
    } catch (error) {
      $("#panel").hidden = true;
    }
  }

  function apply(update) {
    if (update.sounds) playSounds(update.sounds);
    if (update.frames) showFrames(update.frames);
    if (panel && update.frames) panel.showFrames(update.frames);
    if (panel && update.lights) panel.showLights(update.lights);
    if (update.state) showState(update.state);
    if ("answer" in update) showAnswer(update.answer);
    if (update.log) showLog(update.log);
    if (update.lights) showLights(update.lights);
    if (update.outputs) showOutputs(update.outputs);
    document.dispatchEvent(new CustomEvent("baccarat:update", { detail: update })); // other blocks (stuck.js)
  }

  function listen() {
    // While the prop is away the browser keeps trying; an answer that is no stream (401: the
    // prop restarted and forgot the session, or the session ended) closes it for good.
    window.baccaratListen("/events", apply, (stream) => {
      if (stream.readyState === EventSource.CLOSED) recover();
    });
  }

  // The session is gone: ask the prop who it is now. A new start (another "boot") is said;
  // with a password the game master logs in again, without one the page carries on by itself.
  let recovering = false;
  async function recover() {
    if (recovering) return;
    recovering = true;
    for (;;) {
      let response = null;
      let data = {};
      try {
        response = await fetch("/api/session", { credentials: "same-origin" });
        data = await response.json();
      } catch (error) {
        data = {};
      }
      const restarted = Boolean(session && data.boot && data.boot !== session.boot);
      if (response && response.status === 401) {
        location.href = restarted ? "/login?restarted" : "/login";
        return;
      }
      if (response && response.ok && data.ok) {
        if (restarted) {
          $("#log-list").replaceChildren();
          const at = window.baccaratI18n.formatTime(new Date());
          showMessage(_("The prop restarted ({at}): this page reconnected.", { at }), "error");
        }
        session = data;
        recovering = false;
        listen();
        return;
      }
      await pause(2000);
    }
  }

  async function start() {
    const response = await fetch("/api/session", { credentials: "same-origin" });
    if (response.status === 401) {
      location.href = "/login";
      return;
    }
    session = await response.json();
    $("#prop-name").textContent = session.name;
    $("#logout").hidden = !session.password;
    $("#panel-hint").textContent = session.front_panel
      ? _("The front panel as built: press a betting area for a chip, hold it half a second to clear it.")
      : _("The front panel as built, mirroring the prop's (pressing it needs the simulator).");
    if (window.matchMedia("(max-width: 699px)").matches) { // a phone: folded away, a tap unfolds them
      $("#panel").open = false;
      $("#more-controls").open = false;
    }
    buildDisplays(session.roles);
    buildOutputs(session.outputs || []);
    window.addEventListener("resize", fitDisplays);
    wireControls();
    await loadPanel();
    wireBet();
    listen();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
