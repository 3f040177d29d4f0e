// A table of a club night (issue 22): when the scoresheet learns a new revision (live.js says
// "nap:live"), the event line at its top is asked again, so the next round's seating appears
// on every phone of the table as soon as the last table of the round finishes.
(function () {
  "use strict";
  function line() { return document.querySelector("[data-event-line]"); }
  if (!line() || !window.fetch) return;
  // a timed round (data-due, UTC): ask again when it ends, so "Finish this table" shows unasked
  var timer = null;
  function watchDue() {
    var el = line();
    if (timer) { clearTimeout(timer); timer = null; }
    var due = el && el.getAttribute("data-due");
    if (!due) return;
    var wait = Date.parse(due) - Date.now();
    if (isNaN(wait)) return;
    timer = setTimeout(refresh, Math.min(Math.max(wait + 1000, 1000), 2147483000));
  }
  function refresh() {
    var el = line();
    if (!el) return;
    fetch(el.getAttribute("data-event-line"), { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("line " + r.status); return r.json(); })
      .then(function (data) {
        var doc = new DOMParser().parseFromString(data.html, "text/html");
        var fresh = doc.querySelector("[data-event-line]");
        if (fresh) el.replaceWith(fresh);
        watchDue();
      })
      .catch(function () {});
  }
  window.addEventListener("nap:live", refresh);
  watchDue();
})();
