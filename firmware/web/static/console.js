// The Baccarat prop's console: live state by server-sent events, commands by POST.
// No framework and no build step: the prop serves this file as it is.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  let session = null;

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
      return { ok: false, error: `the prop did not answer (${error.message})` };
    }
    let data;
    try {
      data = await response.json();
    } catch (error) {
      data = { ok: false, error: `HTTP ${response.status}` };
    }
    if (response.status === 401 && session && session.password) {
      location.href = "/login";
    }
    return data;
  }

  function showMessage(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.className = kind;
    box.hidden = false;
  }

  function describeReply(reply, label) {
    const result = reply.result || {};
    if (reply.command === "hint") {
      return `Hint: ${result.advice}. Player ${result.player.join(" ")} = ${result.player_score}, ` +
        `Banker ${result.banker.join(" ")} = ${result.banker_score}.`;
    }
    return `${label}: done.`;
  }

  async function command(body, label) {
    showMessage(`${label}...`, "pending");
    const reply = await post("/api/command", body);
    if (reply.ok) {
      showMessage(describeReply(reply, label), "ok");
    } else {
      showMessage(`${label}: ${reply.error || "failed"}`, "error");
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
  function text(value) {
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
  }

  const FORMS = {
    "form-reset": [(f) => ({ command: "reset", min: number(f.min.value), max: number(f.max.value) }), "Reset"],
    "form-limits": [(f) => ({ command: "set_limits", min: number(f.min.value), max: number(f.max.value) }),
      "Set limits"],
    "form-solved": [(f) => ({ command: "set_solved", solved: number(f.solved.value) }), "Set solved"],
    "form-edgework": [(f) => ({
      command: "set_edgework", serial: f.serial.value.trim(), ports: f.ports.value.trim(),
      lit: f.lit.value.trim(), unlit: f.unlit.value.trim(), solved: number(f.solved.value),
    }), "Set edgework"],
  };
  const LABELS = {
    force_solve: "Force solve", hint: "Hint", identify: "Identify", enable: "Enable", disable: "Disable",
  };

  function wireControls() {
    for (const [id, [build, label]] of Object.entries(FORMS)) {
      const form = document.getElementById(id);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const body = build(form.elements);
        if (id === "form-reset" && body.min === undefined && body.max === undefined) {
          delete body.min;
          delete body.max;
        }
        command(body, label);
      });
    }
    for (const button of document.querySelectorAll("[data-command]")) {
      const name = button.dataset.command;
      button.addEventListener("click", () => command({ command: name }, LABELS[name] || name));
    }
    $("#logout").addEventListener("click", async () => {
      const reply = await post("/logout", {});
      location.href = reply.next || "/login";
    });
  }

  // -- the front panel: a real press and release per pointer ------------------------------------
  // Requests go one after the other, so a release never overtakes its press. A click can be
  // shorter than the prop's debounce time (20 ms, which a finger on a button never is): the
  // release waits until the press has lasted MIN_PRESS_MS.
  const MIN_PRESS_MS = 60;
  let panelQueue = Promise.resolve();
  const held = new Set();
  const pressedAt = new Map();
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  function panel(input, action) {
    panelQueue = panelQueue.then(async () => {
      if (action === "press") {
        pressedAt.set(input, performance.now());
      } else if (pressedAt.has(input)) {
        await pause(MIN_PRESS_MS - (performance.now() - pressedAt.get(input)));
        pressedAt.delete(input);
      }
      const reply = await post("/api/panel", { input, action }, { keepalive: action === "release" });
      if (!reply.ok) showMessage(`${input}: ${reply.error}`, "error");
    });
    return panelQueue;
  }

  function wirePanel() {
    for (const button of document.querySelectorAll("[data-input]")) {
      const input = button.dataset.input;
      const down = (event) => {
        if (event.button !== undefined && event.button > 0) return;
        event.preventDefault();
        if (held.has(input)) return;
        held.add(input);
        button.classList.add("down");
        panel(input, "press");
      };
      const up = () => {
        if (!held.has(input)) return;
        held.delete(input);
        button.classList.remove("down");
        panel(input, "release");
      };
      button.addEventListener("pointerdown", down);
      button.addEventListener("pointerup", up);
      button.addEventListener("pointercancel", up);
      button.addEventListener("pointerleave", up);
      button.addEventListener("contextmenu", (event) => event.preventDefault());
      button.addEventListener("keydown", (event) => {
        if ((event.key === " " || event.key === "Enter") && !event.repeat) down(event);
      });
      button.addEventListener("keyup", (event) => {
        if (event.key === " " || event.key === "Enter") up();
      });
      button.addEventListener("blur", up);
    }
    window.addEventListener("pagehide", () => {
      for (const input of [...held]) {
        held.delete(input);
        panel(input, "release");
      }
    });
  }

  // -- showing what the prop pushes ----------------------------------------------------------------
  // Whole-pixel scaling only (crisp, and a screenshot shows each OLED pixel as a square): the
  // three displays side by side when they fit at 2x or more, else each as large as the width allows.
  const GAP = 16;
  function fitDisplays() {
    const images = [...document.querySelectorAll(".displays img")].filter((img) => img.naturalWidth);
    if (!images.length) return;
    const room = document.querySelector(".displays").clientWidth;
    const total = images.reduce((sum, img) => sum + img.naturalWidth, 0) + GAP * (images.length - 1);
    const row = Math.floor((room - GAP * (images.length - 1)) / (total - GAP * (images.length - 1)));
    for (const img of images) {
      const scale = Math.min(4, row >= 2 ? row : Math.max(1, Math.floor(room / img.naturalWidth)));
      img.style.width = `${img.naturalWidth * scale}px`;
      img.style.height = `${img.naturalHeight * scale}px`;
      img.dataset.scale = String(scale);
    }
  }

  // The page's displays and betting areas are the prop's own (from /api/session), never a copy here.
  function buildDisplays(roles) {
    const box = $(".displays");
    for (const role of roles) {
      const figure = document.createElement("figure");
      figure.className = "display";
      figure.dataset.role = role;
      const img = document.createElement("img");
      img.id = `display-${role}`;
      img.alt = `${role} display`;
      img.addEventListener("load", fitDisplays);
      const caption = document.createElement("figcaption");
      caption.textContent = role.charAt(0).toUpperCase() + role.slice(1);
      figure.append(img, caption);
      box.append(figure);
    }
  }

  function buildAreas(areas) {
    const box = $("#panel .areas");
    for (const [input, label] of Object.entries(areas)) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "area";
      button.dataset.input = input;
      button.textContent = label;
      box.append(button);
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
        img.alt = `${role} display: none connected`;
      }
    }
  }

  function showState(state) {
    const doc = state.doc;
    const words = state.words;
    const status = $("#status-badge");
    status.textContent = words.status;
    status.className = `badge${doc.solved ? " solved" : ""}`;
    const enabled = $("#enabled-badge");
    enabled.textContent = words.enabled ? "enabled" : "DISABLED";
    enabled.className = `badge${words.enabled ? "" : " disabled"}`;
    $("#strikes-badge").textContent = `strikes ${words.strikes}`;
    $("#fact-status").textContent = `${words.status}, ${words.strikes} strike${words.strikes === 1 ? "" : "s"}, ` +
      `${words.enabled ? "enabled" : "disabled (ignores the players)"}`;
    $("#fact-limits").textContent = words.limits;
    $("#fact-deck").textContent = words.deck;
    $("#fact-bets").textContent = `${words.bets}; ${words.chip}`;
    $("#fact-edgework").textContent = words.edgework;
    $("#panel-chip").textContent = words.chip.replace("active chip ", "");
  }

  function showAnswer(answer) {
    if (!answer) {
      $("#answer-next").textContent = "-";
      $("#cheat-sheet").textContent = "";
      return;
    }
    const hint = answer.hint || {};
    if (hint.error) {
      $("#answer-next").textContent = `Next round: ${hint.error}`;
    } else {
      const pairs = [hint.player_pair ? "player pair" : "", hint.banker_pair ? "banker pair" : ""].filter(Boolean);
      $("#answer-next").textContent = `Next round: Player ${hint.player.join(" ")} = ${hint.player_score}, ` +
        `Banker ${hint.banker.join(" ")} = ${hint.banker_score}: ${hint.winner.toUpperCase()} wins, ` +
        `so ${hint.advice}${pairs.length ? ` (${pairs.join(" and ")} too)` : ""}.`;
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

  // The outputs: a row each, from /api/session; their pins' states come with the lights.
  function buildOutputs(outputs) {
    const list = $("#output-list");
    for (const output of outputs) {
      const item = document.createElement("li");
      item.dataset.output = output.name;
      const name = document.createElement("span");
      name.className = "output-name";
      name.textContent = output.name;
      const state = document.createElement("span");
      state.className = "badge output-state";
      state.textContent = "-";
      const text = document.createElement("span");
      text.className = "output-text";
      text.textContent = output.text;
      item.append(name, state, text);
      for (const [action, label] of [["on", "On"], ["off", "Off"], ["pulse", "Pulse"]]) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "small";
        button.dataset.outputState = action;
        button.textContent = label;
        button.addEventListener("click", () =>
          command({ command: "output", name: output.name, state: action }, `Output ${output.name} ${action}`));
        item.append(button);
      }
      list.append(item);
    }
    $("#outputs").hidden = outputs.length === 0;
  }

  function showOutputs(pins) {
    for (const [name, on] of Object.entries(pins || {})) {
      const badge = document.querySelector(`#output-list li[data-output="${CSS.escape(name)}"] .output-state`);
      if (!badge) continue;
      badge.textContent = on ? "ON" : "off";
      badge.classList.toggle("on", on);
    }
  }

  function showLights(lights) {
    const status = $("#light-status");
    const both = lights.red && lights.green;
    const color = both ? "#f0b020" : lights.green ? "#30e060" : lights.red ? "#ff3030" : "";
    status.style.background = color;
    status.style.boxShadow = color ? `0 0 .6rem ${color}` : "";
    $("#light-status-text").textContent = both ? "red and green" : lights.green ? "green (solved)" :
      lights.red ? "red (strike)" : "off";
    const deck = $("#light-deck");
    const [r, g, b] = lights.deck_rgb.map((c) => Math.round(c * 255));
    const lit = r + g + b > 0;
    deck.style.background = lit ? `rgb(${r}, ${g}, ${b})` : "";
    deck.style.boxShadow = lit ? `0 0 .6rem rgb(${r}, ${g}, ${b})` : "";
    $("#light-deck-text").textContent = lit ? (lights.deck || "on") : "off";
    showOutputs(lights.outputs);
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

  function apply(update) {
    if (update.sounds) playSounds(update.sounds);
    if (update.frames) showFrames(update.frames);
    if (update.state) showState(update.state);
    if ("answer" in update) showAnswer(update.answer);
    if (update.log) showLog(update.log);
    if (update.lights) showLights(update.lights);
  }

  function listen() {
    const stream = new EventSource("/events");
    const badge = $("#connection");
    stream.addEventListener("open", () => {
      badge.textContent = "live";
      badge.className = "badge live";
    });
    stream.addEventListener("error", () => {
      badge.textContent = "reconnecting";
      badge.className = "badge down";
    });
    stream.addEventListener("update", (event) => apply(JSON.parse(event.data)));
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
    $("#panel").hidden = !session.front_panel;
    buildDisplays(session.roles);
    buildAreas(session.areas);
    buildOutputs(session.outputs || []);
    window.addEventListener("resize", fitDisplays);
    wireControls();
    if (session.front_panel) wirePanel();
    listen();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
