// The History view: the last games, their averages, downloads, and a replay of any game round by
// round with the displays' frames as the prop drew them (firmware/web/history.py). No framework.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  let clockOffset = 0; // the prop's clock minus this browser's, in seconds
  let stuck = null; // {progress_at, stuck_minutes} as the prop last said
  let games = [];
  const replay = { id: null, chapters: 0, chapter: 0, steps: [], images: [], roles: [], step: 0, timer: null };

  function message(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.className = kind || "";
    box.hidden = !text;
  }

  async function getJSON(path) {
    let response;
    try {
      response = await fetch(path, { credentials: "same-origin" });
    } catch (error) {
      return { ok: false, error: _("the prop did not answer ({why})", { why: error.message }) };
    }
    if (response.status === 401) {
      location.href = "/login";
      return { ok: false, error: _("not logged in") };
    }
    try {
      return await response.json();
    } catch (error) {
      return { ok: false, error: `HTTP ${response.status}` };
    }
  }

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "-";
    const whole = Math.floor(seconds);
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const s = whole % 60;
    const two = (n) => String(n).padStart(2, "0");
    return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  }

  // A date and time in the page's language, on the 24-hour clock as the log's times are (i18n.js).
  function localTime(iso) {
    return iso ? window.baccaratI18n.formatDateTime(new Date(iso)) : "-";
  }

  const OUTCOMES = {
    solved: _("solved"), exploded: _("exploded"), playing: _("playing"), reset: _("reset"),
    interrupted: _("interrupted"),
  };
  const CAUSES = { timer: _("time ran out"), strikes: _("strikes") };
  function outcomeWords(game) {
    if (game.outcome === "exploded" && game.cause) return _("exploded ({cause})", { cause: CAUSES[game.cause] || game.cause });
    if (game.outcome === "solved" && game.forced) return _("solved (forced)");
    return OUTCOMES[game.outcome] || game.outcome;
  }

  // -- the stuck indicator: the prop says when; this page counts the minutes ---------------------
  function showStuck() {
    const badge = $("#stuck");
    if (!stuck || !stuck.progress_at) {
      badge.textContent = _("no game being played");
      badge.classList.remove("stuck");
      return;
    }
    const since = Date.parse(stuck.progress_at) / 1000;
    const minutes = Math.max(0, Math.floor((Date.now() / 1000 + clockOffset - since) / 60));
    badge.textContent = stuck.progress_made === false
      ? _("no progress yet (game started {minutes} min ago)", { minutes })
      : _("last progress {minutes} min ago", { minutes });
    badge.classList.toggle("stuck", minutes >= 5);
  }

  // -- the list and the averages ------------------------------------------------------------------
  function showAverages(averages, listing) {
    const list = $("#averages-list");
    list.replaceChildren();
    const { formatNumber } = window.baccaratI18n;
    const figure = (value) => (value === null || value === undefined ? "-" : formatNumber(value));
    const rows = [
      [_("Games"), figure(averages.games)],
      [_("Solved"), figure(averages.solved)],
      [_("Exploded"), figure(averages.exploded)],
      [_("Solve rate"), averages.solve_rate === null ? "-" : formatNumber(averages.solve_rate, { style: "percent" })],
      [_("Time to solve (mean)"), duration(averages.mean_seconds_to_solve)],
      [_("Time to solve (median)"), duration(averages.median_seconds_to_solve)],
      [_("Rounds per game"), figure(averages.mean_rounds)],
      [_("Strikes per game"), figure(averages.mean_strikes)],
      [_("Hints per game"), figure(averages.mean_hints)],
    ];
    for (const [name, value] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      list.append(dt, dd);
    }
    let where = listing.in_memory
      ? _("Kept in memory for this run only: saving is off ([state] file is empty).")
      : _("Recorded in {where}.", { where: listing.where });
    if (listing.skipped) {
      where += ` ${ngettext("{n} damaged line skipped (the prop's log names it).",
        "{n} damaged lines skipped (the prop's log names them).", listing.skipped)}`;
    }
    $("#where").textContent = where;
  }

  // A figure's cell carries its column's name, shown only on a phone, where the rows are cards
  // (their figures named) instead of a table wider than the screen (history.css).
  const COLUMNS = [...document.querySelectorAll("#games-table thead th")].map((th) => th.textContent);
  function cell(row, text, className) {
    const td = document.createElement("td");
    if (className) td.className = className;
    const label = COLUMNS[row.children.length];
    if (className === "num" && label) {
      const name = document.createElement("span");
      name.className = "label";
      name.textContent = `${label} `;
      td.append(name);
    }
    td.append(text);
    row.append(td);
    return td;
  }

  function showGames(listing) {
    const body = $("#games-table tbody");
    body.replaceChildren();
    for (const game of listing.games) {
      const row = document.createElement("tr");
      row.dataset.id = game.id;
      if (game.id === listing.current) row.classList.add("current");
      if (game.id === replay.id) row.classList.add("chosen");
      cell(row, game.restarts ? ngettext("#{game} ({n} restart)", "#{game} ({n} restarts)", game.restarts,
        { game: game.game }) : `#${game.game}`);
      cell(row, localTime(game.started));
      const outcome = cell(row, outcomeWords(game), `outcome-${game.outcome}`);
      if (game.bomb) { // an OBUS bomb's modules at the game's end (bomb.js)
        const line = document.createElement("span");
        line.className = "bomb-line";
        line.textContent = window.baccaratBomb.recordLine(game.bomb);
        outcome.append(line);
      }
      cell(row, duration(game.seconds), "num");
      cell(row, String(game.rounds), "num");
      cell(row, String(game.strikes), "num");
      cell(row, String(game.hints), "num");
      cell(row, String(game.commands), "num");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "small";
      button.textContent = _("Replay");
      button.addEventListener("click", () => openReplay(game));
      cell(row, "").append(button);
      body.append(row);
    }
    const shown = listing.games.length;
    $("#games-count").textContent = shown < listing.total
      ? _("{shown} of {total}, newest first", { shown, total: listing.total }) : _("{shown}, newest first", { shown });
  }

  async function refresh() {
    const listing = await getJSON("/history/api/games");
    if (!listing.games) {
      message(listing.error || _("the history could not be read"), "error");
      return;
    }
    message(listing.ok ? "" : listing.error, listing.ok ? "" : "error");
    clockOffset = listing.now - Date.now() / 1000;
    stuck = listing.stuck;
    games = listing.games;
    showStuck();
    showAverages(listing.averages, listing);
    showGames(listing);
  }

  // -- the replay ------------------------------------------------------------------------------------
  const { named } = window.baccaratI18n;
  function buildDisplays(roles) {
    const box = $("#replay-displays");
    box.replaceChildren();
    for (const role of roles) {
      const figure = document.createElement("figure");
      figure.className = "display";
      const img = document.createElement("img");
      img.id = `replay-${role}`;
      img.alt = _("{role} display, as the players saw it", { role: named(role) });
      img.addEventListener("load", fitDisplays);
      const caption = document.createElement("figcaption");
      caption.textContent = named(role);
      figure.append(img, caption);
      box.append(figure);
    }
  }

  // Whole-pixel scaling (crisp OLED pixels), as the console draws its displays: side by side when
  // they fit at 2x or more, else each as large as the width allows.
  const GAP = 16;
  function fitDisplays() {
    const images = [...document.querySelectorAll("#replay-displays img")].filter((img) => img.naturalWidth);
    if (!images.length) return;
    const room = $("#replay-displays").clientWidth;
    const gaps = GAP * (images.length - 1);
    const row = Math.floor((room - gaps) / images.reduce((sum, img) => sum + img.naturalWidth, 0));
    for (const img of images) {
      const scale = Math.min(4, row >= 2 ? row : Math.max(1, Math.floor(room / img.naturalWidth)));
      img.style.width = `${img.naturalWidth * scale}px`;
      img.style.height = `${img.naturalHeight * scale}px`;
      img.dataset.scale = String(scale);
    }
  }

  function chapterName(chapter) {
    if (chapter === 0) return _("the start");
    if (chapter <= replay.rounds) return _("round {n}", { n: chapter });
    return _("the end");
  }

  function fillRounds() {
    const select = $("#round-select");
    select.replaceChildren();
    for (let chapter = 0; chapter < replay.chapters; chapter += 1) {
      const option = document.createElement("option");
      option.value = String(chapter);
      option.textContent = chapterName(chapter);
      select.append(option);
    }
  }

  function showStep() {
    const step = replay.steps[replay.step];
    if (!step) return;
    for (const [role, index] of Object.entries(step.frames)) {
      const img = document.getElementById(`replay-${role}`);
      if (img) img.src = replay.images[index];
    }
    $("#replay-label").textContent = step.label;
    $("#round-select").value = String(replay.chapter);
    $("#replay").dataset.chapter = String(replay.chapter);
    $("#replay").dataset.step = String(replay.step);
  }

  async function loadChapter(chapter, at) {
    const answer = await getJSON(`/history/api/replay/${encodeURIComponent(replay.id)}/${chapter}`);
    if (!answer.ok) {
      message(_("Replay: {error}", { error: answer.error }), "error");
      stop();
      return false;
    }
    if (!replay.roles.length || replay.roles.join() !== answer.roles.join()) {
      replay.roles = answer.roles;
      buildDisplays(answer.roles);
    }
    replay.chapters = answer.chapters;
    replay.rounds = answer.rounds;
    replay.chapter = chapter;
    replay.steps = answer.steps;
    replay.images = answer.images;
    replay.step = at === "last" ? answer.steps.length - 1 : 0;
    if ($("#round-select").options.length !== replay.chapters) fillRounds();
    showStep();
    return true;
  }

  async function openReplay(game) {
    stop();
    replay.id = game.id;
    replay.roles = [];
    replay.rounds = 0;
    $("#replay").hidden = false;
    $("#replay-title").textContent = _("game #{game}, {started}, {outcome}",
      { game: game.game, started: localTime(game.started), outcome: outcomeWords(game) });
    for (const row of document.querySelectorAll("#games-table tbody tr")) {
      row.classList.toggle("chosen", row.dataset.id === game.id);
    }
    $("#round-select").replaceChildren();
    if (await loadChapter(0)) $("#replay").scrollIntoView({ block: "nearest" });
  }

  async function stepBy(delta) {
    const next = replay.step + delta;
    if (next >= 0 && next < replay.steps.length) {
      replay.step = next;
      showStep();
      return true;
    }
    if (delta > 0 && replay.chapter + 1 < replay.chapters) return loadChapter(replay.chapter + 1);
    if (delta < 0 && replay.chapter > 0) return loadChapter(replay.chapter - 1, "last");
    return false;
  }

  function stop() {
    if (replay.timer) clearTimeout(replay.timer);
    replay.timer = null;
    $("#play").textContent = _("Play");
  }

  function play() {
    if (replay.timer) {
      stop();
      return;
    }
    $("#play").textContent = _("Pause");
    const tick = async () => {
      if (!(await stepBy(1))) {
        stop();
        return;
      }
      replay.timer = setTimeout(tick, 800);
    };
    replay.timer = setTimeout(tick, 400);
  }

  function wire() {
    $("#refresh").addEventListener("click", refresh);
    $("#step-next").addEventListener("click", () => { stop(); stepBy(1); });
    $("#step-prev").addEventListener("click", () => { stop(); stepBy(-1); });
    $("#round-next").addEventListener("click", () => {
      stop();
      if (replay.chapter + 1 < replay.chapters) loadChapter(replay.chapter + 1);
    });
    $("#round-prev").addEventListener("click", () => {
      stop();
      if (replay.chapter > 0) loadChapter(replay.chapter - 1);
    });
    $("#play").addEventListener("click", play);
    $("#round-select").addEventListener("change", (event) => {
      stop();
      loadChapter(Number(event.target.value));
    });
    window.addEventListener("resize", fitDisplays);
    setInterval(showStuck, 15000); // counted here: the prop is not woken for it
  }

  document.addEventListener("DOMContentLoaded", () => {
    wire();
    refresh();
  });
})();
