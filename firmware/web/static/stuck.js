// The console's "How each game went" block (firmware/web/history.py): the stuck indicator, the
// minutes since the players last made progress, and the way to the History view. The prop says
// *when* (the state document's progress_at, with each update console.js passes on); the minutes
// are counted here, so the prop is never woken to say them.
"use strict";

(() => {
  let clockOffset = 0; // the prop's clock minus this browser's, in seconds
  let progressAt = null;
  let progressMade = null; // false: nobody has moved yet (progressAt is the game's start)

  function show() {
    const out = document.getElementById("stuck-minutes");
    if (!out) return;
    if (!progressAt) {
      out.textContent = _("- (no game)");
      out.classList.remove("stuck");
      return;
    }
    const since = Date.parse(progressAt) / 1000;
    const minutes = Math.max(0, Math.floor((Date.now() / 1000 + clockOffset - since) / 60));
    out.textContent = progressMade === false ? _("none yet (game started {minutes} min ago)", { minutes })
      : _("{minutes} min ago", { minutes });
    out.classList.toggle("stuck", minutes >= 5);
  }

  async function start() {
    const box = document.getElementById("history-box");
    if (!box) return;
    let answer;
    try {
      const response = await fetch("/history/api/stuck", { credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      answer = await response.json();
    } catch (error) {
      box.hidden = true; // this prop keeps no history
      return;
    }
    clockOffset = answer.now - Date.now() / 1000;
    progressAt = answer.progress_at;
    progressMade = answer.progress_made;
    show();
    document.addEventListener("baccarat:update", (event) => {
      const state = event.detail && event.detail.state;
      if (state && state.doc && "progress_at" in state.doc) {
        progressAt = state.doc.progress_at;
        progressMade = state.doc.progress_made;
        show();
      }
    });
    setInterval(show, 15000);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
