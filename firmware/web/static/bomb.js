// An OBUS bomb's modules (issue 43: the state document's `obus` part, firmware/services/obus): the
// words every page uses for them (window.baccaratBomb), and the console's Bomb panel, drawn from
// each update console.js passes on. Each state is said in words, never by colour alone.
"use strict";

(() => {
  const TYPES = { 1: "puzzle", 2: "needy" };
  const PHASES = {
    idle: _("idle"), info: _("info round"), registering: _("registration round"), waiting: _("waiting to register"),
    registered: _("registered"), playing: _("playing"), over: _("over"),
  };
  const UNREGISTERED = ["idle", "info", "waiting"]; // the module role before the controller's ACK
  const ENDS = { solved: _("defused"), timer: _("time ran out"), strikes: _("struck out") };

  // "puzzle module 2", "needy module 1"; the prop's own: "Baccarat (this prop)".
  function moduleName(module) {
    if (module.prop) {
      return module.id === undefined ? _("Baccarat (this prop)")
        : _("Baccarat, puzzle module {id} (this prop)", { id: module.id });
    }
    return TYPES[module.type] === "needy" ? _("needy module {id}", { id: module.id })
      : _("puzzle module {id}", { id: module.id });
  }

  // "solved", "registered, not solved"; the prop's own, as a module not yet ACKed: "waiting to register".
  function moduleState(module, phase) {
    if (module.prop && UNREGISTERED.includes(phase)) return PHASES[phase];
    if (module.solved) return _("solved");
    return module.type === 2 ? _("registered (needy: never solves)") : _("registered, not solved");
  }

  // "2 of 3 puzzle modules solved" (null: the count is not known yet).
  function solvedWords(bomb) {
    if (!bomb || typeof bomb.solved !== "number" || typeof bomb.puzzles !== "number") return null;
    return ngettext("{solved} of {n} puzzle module solved", "{solved} of {n} puzzle modules solved", bomb.puzzles,
      { solved: bomb.solved });
  }

  // The modules of a bomb as the history keeps them (firmware/history/bomb.py), in one line.
  function recordLine(record) {
    const parts = record.modules.map((module) => {
      const state = module.solved ? _("solved") : _("not solved");
      const strikes = ngettext("{n} strike", "{n} strikes", module.strikes);
      return _("{module}: {state}, {strikes}", { module: moduleName(module), state, strikes });
    });
    const role = record.role === "controller" ? _("the prop ran it") : _("the prop was a module");
    const modules = [solvedWords(record), ...parts].filter(Boolean).join("; ");
    return _("OBUS bomb ({role}): {modules}", { role, modules });
  }

  window.baccaratBomb = { moduleName, moduleState, solvedWords, recordLine };

  // -- the console's Bomb panel ---------------------------------------------------------------------
  function cellRow(cells, self) {
    const row = document.createElement("tr");
    if (self) row.className = "self";
    for (const text of cells) {
      const cell = document.createElement(row.children.length ? "td" : "th");
      if (!row.children.length) cell.scope = "row";
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  }

  function modulesOf(part) {
    if (part.role === "controller") {
      const own = part.prop || {};
      return [{ prop: true, solved: Boolean(own.solved), strikes: own.strikes || 0 }, ...(part.modules || [])];
    }
    const node = part.node || {};
    const own = { prop: true, type: node.type, id: node.id };
    return [{ ...own, solved: Boolean(part.solved_sent), strikes: part.strikes_sent || 0 }, ...(part.modules || [])];
  }

  function showBomb(part) {
    const box = document.getElementById("bomb");
    if (!box) return;
    box.hidden = !part;
    if (!part) return;
    const bomb = part.bomb || {};
    const phase = PHASES[part.phase] || part.phase;
    document.getElementById("bomb-role").textContent = part.role === "controller"
      ? _("this prop runs the bomb ({phase})", { phase }) : _("this prop is a module of the bomb ({phase})", { phase });
    const facts = [solvedWords(bomb)];
    if (typeof bomb.strikes === "number") {
      const values = { strikes: bomb.strikes, limit: bomb.max_strikes };
      facts.push(bomb.max_strikes ? _("strikes {strikes} of {limit}", values) : _("strikes {strikes}", values));
    }
    if (part.ended) facts.push(_("the bomb's game is over: {end}", { end: ENDS[part.ended] || part.ended }));
    document.getElementById("bomb-facts").textContent = facts.filter(Boolean).join("; ") || "-";
    const warnings = [];
    if (part.controller_silent) {
      warnings.push(_("The bomb's controller is silent (no STATE for 3 s): the prop keeps its game and goes on " +
        "when it is back."));
    }
    if (part.bus && part.bus.up === false) {
      warnings.push(_("The bus {where} is down: the prop tries again every second.", { where: part.bus.where }));
    }
    const warning = document.getElementById("bomb-warning");
    warning.textContent = warnings.join(" ");
    warning.hidden = !warnings.length;
    const rows = modulesOf(part).map((module) => cellRow([
      moduleName(module), moduleState(module, part.phase), window.baccaratI18n.formatNumber(module.strikes),
    ], module.prop));
    document.querySelector("#bomb-modules tbody").replaceChildren(...rows);
  }

  document.addEventListener("baccarat:update", (event) => {
    const state = event.detail && event.detail.state;
    if (state && state.doc) showBomb(state.doc.obus || null);
  });
})();
