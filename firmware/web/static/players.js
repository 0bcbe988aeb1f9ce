// The players' pages: the bomb casing (/casing) and the module with its casing (/play).
// Live by server-sent events that carry only what a player may see (the casing, and on /play the
// displays' frames and the lights). No framework and no build step.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  let session = null;
  let panel = null;

  function showMessage(text) {
    const box = $("#message");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    clearTimeout(showMessage.timer);
    showMessage.timer = setTimeout(() => { box.hidden = true; }, 4000);
  }

  async function post(path, body, keepalive) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        credentials: "same-origin",
        keepalive: Boolean(keepalive),
        headers: { "Content-Type": "application/json", "X-CSRF-Token": session ? session.csrf : "" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return { ok: false, error: _("the prop did not answer ({why})", { why: error.message }) };
    }
    try {
      return await response.json();
    } catch (error) {
      return { ok: false, error: `HTTP ${response.status}` };
    }
  }

  // The casing comes drawn by the prop (the same SVG as `baccarat casing --out`); the page only
  // puts it in place, so what the page shows is what prints.
  // The drawing that fills the screen: on /casing the wide one on a landscape screen and the tall
  // one on a portrait screen (a phone held upright); on /play, beside the panel (landscape) the
  // tall one, under it (portrait) the wide one. Printing always takes the wide one, 1:1.
  const portrait = window.matchMedia("(orientation: portrait)");
  let lastCasing = null;
  let printing = false;
  function showCasing(casing) {
    lastCasing = casing;
    const box = $("#casing");
    const play = document.body.classList.contains("play-page");
    const tall = casing.svg_tall && !printing && portrait.matches !== play;
    box.innerHTML = tall ? casing.svg_tall : casing.svg;
    box.dataset.shape = tall ? "tall" : "wide";
    box.dataset.strikes = String(casing.doc.strikes);
    box.dataset.serial = casing.doc.serial;
    legible();
  }

  // No word of the drawing under 12 CSS px on any screen (a phone shows the whole sheet with 5 px
  // letters, a 1024 x 768 tablet its smallest labels, LIT and the ports' names, at about 9 px):
  // where the whole sheet would show them smaller, it is drawn larger and its box scrolls (the
  // keyboard reaches it: it is focusable). Printing keeps the sheet's own size (players.css).
  const SMALLEST_PX = 12;
  function legible() {
    const box = $("#casing");
    const svg = box.querySelector("svg");
    if (!svg || !svg.viewBox.baseVal) return;
    const { width, height } = svg.viewBox.baseVal;
    const sizes = [...svg.querySelectorAll("text")].map((text) => parseFloat(text.getAttribute("font-size")));
    const smallest = Math.min(...sizes.filter((size) => size > 0));
    box.classList.remove("zoomed");
    const shown = svg.getBoundingClientRect();
    const scale = Math.min(shown.width / width, shown.height / height);
    if (!Number.isFinite(smallest) || smallest * scale >= SMALLEST_PX) return;
    const needed = SMALLEST_PX / smallest;
    box.style.setProperty("--zoomed-width", `${Math.ceil(width * needed)}px`);
    box.style.setProperty("--zoomed-height", `${Math.ceil(height * needed)}px`);
    box.classList.add("zoomed");
  }
  function reshow() {
    if (lastCasing) showCasing(lastCasing);
  }

  // An OBUS bomb (the prop's `obus` part, firmware/web/players.py bomb_count): its puzzle modules
  // solved of all, and every module of it, the prop's own first: its name, registered, solved or
  // not, its strikes, in words (bomb.js's, as the console says them). null: no bomb, all hidden.
  function showBomb(bomb) {
    const box = $("#bomb-list");
    if (!box) return;
    const shown = !box.hidden;
    box.hidden = !bomb;
    if (!bomb) {
      if (shown) legible();
      return;
    }
    const words = window.baccaratBomb;
    const count = $("#bomb-count");
    const said = words.solvedWords(bomb);
    count.hidden = !said;
    count.textContent = said || "";
    const items = (bomb.modules || []).map((module) => {
      const item = document.createElement("li");
      item.className = "bomb-module" + (module.prop ? " self" : "") + (module.solved ? " solved" : "");
      item.dataset.solved = String(Boolean(module.solved));
      item.dataset.strikes = String(module.strikes);
      const strikes = ngettext("{n} strike", "{n} strikes", module.strikes);
      item.textContent = _("{module}: {state}, {strikes}",
        { module: words.moduleName(module), state: words.moduleState(module, bomb.phase), strikes });
      return item;
    });
    $("#bomb-list-modules").replaceChildren(...items);
    legible(); // the list takes room from the casing: its words may need the zoom now
  }

  function apply(update) {
    if (update.casing) showCasing(update.casing);
    if ("bomb" in update) showBomb(update.bomb);
    if (panel && update.frames) panel.showFrames(update.frames);
    if (panel && update.lights) panel.showLights(update.lights);
  }

  function listen(path) {
    window.baccaratListen(path, apply);
  }

  // A tablet propped beside the module: keep its screen on where the browser allows it.
  async function keepAwake() {
    try {
      if (navigator.wakeLock) await navigator.wakeLock.request("screen");
    } catch (error) { /* not over plain http on a network: the tablet's own setting then */ }
  }

  // The language picker: the choice is kept in a cookie the prop reads (firmware/web/language.py).
  function wireLanguage() {
    const picker = $("#language");
    if (!picker) return;
    picker.addEventListener("change", () => {
      document.cookie = `baccarat_lang=${encodeURIComponent(picker.value)}; path=/; max-age=31536000; SameSite=Strict`;
      location.reload();
    });
  }

  async function start() {
    const body = document.body;
    wireLanguage();
    if (!body.dataset.stream) return; // the login page: the picker only
    if (body.classList.contains("play-page")) {
      const response = await fetch("/play/session", { credentials: "same-origin" });
      if (response.status === 401) {
        location.href = "/play/login?next=/play";
        return;
      }
      session = await response.json();
      panel = await window.BaccaratPanel.load($("#panel-face"), {
        canPress: session.front_panel,
        send: (input, action, keepalive) => post("/play/panel", { input, action }, keepalive),
        onError: showMessage,
      });
    }
    const print = $("#print");
    if (print) print.addEventListener("click", () => window.print());
    const full = $("#fullscreen");
    if (full) {
      full.hidden = !document.fullscreenEnabled;
      full.addEventListener("click", () => {
        if (document.fullscreenElement) document.exitFullscreen();
        else document.documentElement.requestFullscreen().catch(() => {});
        keepAwake();
      });
    }
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") keepAwake();
    });
    keepAwake();
    portrait.addEventListener("change", reshow);
    window.addEventListener("resize", legible);
    window.addEventListener("beforeprint", () => { printing = true; reshow(); });
    window.addEventListener("afterprint", () => { printing = false; reshow(); });
    listen(body.dataset.stream);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
