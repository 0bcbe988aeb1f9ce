// A page's live stream, one for the console (/), the players' page (/play) and the casing
// (/casing): an EventSource on `path`, its state shown in the #connection badge ("live" or
// "reconnecting"), each "update" message handed to `apply`, each error to `onError` if given.
"use strict";

window.baccaratListen = (path, apply, onError) => {
  const stream = new EventSource(path);
  const badge = document.querySelector("#connection");
  stream.addEventListener("open", () => {
    badge.textContent = _("live");
    badge.className = "badge live";
  });
  stream.addEventListener("error", () => {
    badge.textContent = _("reconnecting");
    badge.className = "badge down";
    if (onError) onError(stream);
  });
  stream.addEventListener("update", (event) => apply(JSON.parse(event.data)));
  return stream;
};
