// The module's front panel as built: drawn from the prop's own layout (/panel.json, the data
// hardware/generate.py drills from), with the displays' frames in their windows, the lights lit,
// and the buttons where they sit, pressed and held by mouse, touch or keyboard.
// Used by the console (/) and the players' page (/play). No framework, no build step.
"use strict";

(() => {
  // A click can be shorter than the prop's debounce time (20 ms, which a finger on a button never
  // is): the release waits until the press has lasted MIN_PRESS_MS.
  const MIN_PRESS_MS = 60;
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  function place(element, item, width, height, size) {
    element.style.left = `${((item.x - width / 2) / size) * 100}%`;
    element.style.top = `${((item.y - height / 2) / size) * 100}%`;
    element.style.width = `${(width / size) * 100}%`;
    element.style.height = `${(height / size) * 100}%`;
  }

  // The panel's own printing (its silkscreen), as the prop's panel has it in every language.
  function silk(face, text, x, y, size) {
    const label = document.createElement("span");
    label.className = "silk";
    label.translate = false;
    label.textContent = text;
    label.style.left = `${(x / size) * 100}%`;
    label.style.top = `${(y / size) * 100}%`;
    face.append(label);
    return label;
  }

  // A light's state in words beside it (the module's colour-blind label: a state is never told by
  // colour only), left of the status light's pair, right of the deck light.
  function stateWords(face, x, y, size, side) {
    const words = document.createElement("span");
    words.className = `led-state ${side}`;
    words.style.left = `${(x / size) * 100}%`;
    words.style.top = `${(y / size) * 100}%`;
    face.append(words);
    return words;
  }

  // A display's frame at a whole number of screen pixels per OLED pixel, never smoothed: the
  // largest that fits the display's board (its module around the window), at least 1x. Drawn
  // smaller than that (a tablet at 1x shows the panel ~600 px wide, a 24 mm window ~95 px), the
  // window grows around the frame, centred where the panel has it, its label kept just above it.
  function fit(display, face, size) {
    const { img, win, label, item } = display;
    if (!img.naturalWidth) return;
    const mm = face.clientWidth / size;
    const room = Math.min((item.body_w * mm) / img.naturalWidth, (item.body_h * mm) / img.naturalHeight);
    const scale = Math.max(1, Math.floor(room));
    const width = img.naturalWidth * scale;
    const height = img.naturalHeight * scale;
    const border = Math.max(2, Math.round(0.6 * mm));
    // The window's inside: the frame with an even margin each side (no half pixel when centred).
    const even = (space, frame) => frame + 2 * Math.ceil(Math.max(0, space - frame) / 2);
    const inner = [even(item.w * mm, width), even(item.h * mm, height)];
    img.style.width = `${width}px`;
    img.style.height = `${height}px`;
    img.dataset.scale = String(scale);
    const left = Math.round(item.x * mm - inner[0] / 2) - border;
    const top = Math.round(item.y * mm - inner[1] / 2) - border;
    Object.assign(win.style, {
      borderWidth: `${border}px`,
      left: `${left}px`,
      top: `${top}px`,
      width: `${inner[0] + 2 * border}px`,
      height: `${inner[1] + 2 * border}px`,
    });
    label.style.top = `${top - Math.round(1.2 * mm)}px`;
  }

  // A button's name for a screen reader (its silkscreen says it in capitals, as the prop's does).
  const BUTTON_NAMES = {
    player: _("Player"), banker: _("Banker"), tie: _("Tie"), player_pair: _("Player Pair"),
    banker_pair: _("Banker Pair"), deal: _("Deck"), arrow_left: _("smaller chip"), arrow_right: _("larger chip"),
  };

  // options: canPress (bool), send(input, action, keepalive) -> Promise<reply>, onError(text)
  function build(face, layout, options) {
    const size = layout.size_mm;
    const images = {};
    const leds = {};
    const words = {};
    const buttons = [];
    const displays = [];
    face.replaceChildren();
    face.classList.add("panel-face");
    for (const item of layout.cutouts) {
      if (item.kind === "mount") {
        const screw = document.createElement("span");
        screw.className = "screw";
        place(screw, item, item.body_w, item.body_h, size);
        face.append(screw);
      } else if (item.kind === "display") {
        const win = document.createElement("span");
        win.className = "window";
        win.dataset.role = item.role;
        place(win, item, item.w, item.h, size);
        const img = document.createElement("img");
        img.id = `panel-display-${item.role}`;
        img.alt = _("{role} display", { role: window.baccaratI18n.named(item.role) });
        win.append(img);
        images[item.role] = img;
        face.append(win);
        const display = { img, win, item, label: silk(face, item.label, item.x, item.y - item.h / 2 - 1.2, size) };
        img.addEventListener("load", () => fit(display, face, size));
        displays.push(display);
      } else if (item.kind === "led") {
        const led = document.createElement("span");
        led.className = "panel-led";
        led.dataset.key = item.key;
        led.setAttribute("aria-hidden", "true"); // its words say it (stateWords)
        place(led, item, item.body_w * 0.8, item.body_h * 0.8, size);
        face.append(led);
        leds[item.key] = led;
        if (item.key === "status_light.red") words.status = stateWords(face, item.x - item.body_w / 2 - 1, item.y, size, "left");
        if (item.key === "deck_light") words.deck = stateWords(face, item.x + item.body_w / 2 + 1, item.y, size, "right");
      } else if (item.kind === "button") {
        const bezel = document.createElement("span");
        bezel.className = "bezel";
        place(bezel, item, item.body_w, item.body_h, size);
        face.append(bezel);
        const cap = document.createElement("button");
        cap.type = "button";
        cap.className = "cap";
        cap.dataset.input = item.input;
        cap.style.setProperty("--cap", item.cap);
        place(cap, item, item.w, item.h, size);
        const arrow = item.input.startsWith("arrow_");
        cap.setAttribute("aria-label", BUTTON_NAMES[item.input] || item.label);
        if (arrow) {
          cap.textContent = item.input === "arrow_left" ? "\u25C0" : "\u25B6";
        } else {
          silk(face, item.label, item.x, item.y - item.body_h / 2 - 1.2, size);
        }
        cap.disabled = !options.canPress;
        face.append(cap);
        buttons.push(cap);
      }
    }
    if (options.canPress) wire(buttons, options);
    window.addEventListener("resize", () => displays.forEach((display) => fit(display, face, size)));
    return {
      showFrames(frames) {
        for (const [role, url] of Object.entries(frames)) {
          const img = images[role];
          if (!img) continue;
          if (url) img.src = url;
          else img.removeAttribute("src");
          img.closest(".window").classList.toggle("dark", !url);
        }
      },
      showLights(lights) {
        const set = (key, colour) => {
          const led = leds[key];
          if (!led) return;
          led.style.setProperty("--glow", colour || "transparent");
          led.classList.toggle("lit", Boolean(colour));
        };
        set("status_light.red", lights.red ? "#ff3030" : "");
        set("status_light.green", lights.green ? "#30e060" : "");
        const [r, g, b] = lights.deck_rgb.map((c) => Math.round(c * 255));
        const lit = r + g + b > 0;
        set("deck_light", lit ? `rgb(${r}, ${g}, ${b})` : "");
        const { named } = window.baccaratI18n;
        const status = [lights.red ? named("strike") : "", lights.green ? named("solved") : ""].filter(Boolean);
        if (words.status) words.status.textContent = status.join(" + ");
        if (words.deck) words.deck.textContent = lit ? (lights.deck ? named(lights.deck) : _("on")) : "";
      },
    };
  }

  // A real press and release per pointer (mouse, touch or pen) or key. Requests go one after the
  // other, so a release never overtakes its press; holding a betting area clears it on the prop.
  function wire(buttons, options) {
    let queue = Promise.resolve();
    const held = new Set();
    const pressedAt = new Map();
    // The press counts from its answer (the pin is down then), not from its sending: on a busy
    // machine a slow press request must not leave its release within the debounce time.
    const send = (input, action) => {
      queue = queue.then(async () => {
        if (action === "release" && pressedAt.has(input)) {
          await pause(MIN_PRESS_MS - (performance.now() - pressedAt.get(input)));
          pressedAt.delete(input);
        }
        const reply = await options.send(input, action, action === "release");
        if (action === "press") pressedAt.set(input, performance.now());
        if (!reply.ok && options.onError) options.onError(`${input}: ${reply.error}`);
      });
      return queue;
    };
    for (const button of buttons) {
      const input = button.dataset.input;
      const down = (event) => {
        if (event.button !== undefined && event.button > 0) return;
        event.preventDefault();
        if (held.has(input)) return;
        if (event.pointerId !== undefined && button.setPointerCapture) {
          try { button.setPointerCapture(event.pointerId); } catch (error) { /* a synthetic pointer */ }
        }
        held.add(input);
        button.classList.add("down");
        send(input, "press");
      };
      const up = () => {
        if (!held.has(input)) return;
        held.delete(input);
        button.classList.remove("down");
        send(input, "release");
      };
      button.addEventListener("pointerdown", down);
      button.addEventListener("pointerup", up);
      button.addEventListener("pointercancel", up);
      button.addEventListener("lostpointercapture", up);
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
        send(input, "release");
      }
    });
  }

  async function load(face, options) {
    const response = await fetch("/panel.json", { credentials: "same-origin" });
    if (!response.ok) throw new Error(`/panel.json: HTTP ${response.status}`);
    return build(face, await response.json(), options);
  }

  window.BaccaratPanel = { load, build };
})();
