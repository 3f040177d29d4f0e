// A table of a club night (issue 22): when the scoresheet learns a new revision (live.js says
// "nap:live"), the event line at its top is asked again, so the next round's seating appears
// on every phone of the table as soon as the last table of the round finishes.
(function () {
  "use strict";
  function line() { return document.querySelector("[data-event-line]"); }
  if (!line() || !window.fetch) return;
  window.addEventListener("nap:live", function () {
    var el = line();
    if (!el) return;
    fetch(el.getAttribute("data-event-line"), { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("line " + r.status); return r.json(); })
      .then(function (data) {
        var doc = new DOMParser().parseFromString(data.html, "text/html");
        var fresh = doc.querySelector("[data-event-line]");
        if (fresh) el.replaceWith(fresh);
      })
      .catch(function () {});
  });
})();
