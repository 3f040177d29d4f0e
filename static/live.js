// Live score: poll the table's revision (one small query) and, when another phone
// has saved or corrected a hand, swap in the fresh part of the page marked
// [data-live] (and say so with the "nap:live" event). The outbox's "nap:changed" (a
// change it just sent) asks at once. Without JavaScript a reload does the same.
//
// The revision the page shows is the one in the swapped-in part (data-revision), never
// the one the poll saw: if fetching the fresh page fails, the next tick tries again
// (waiting longer after each failure, up to 30 s) until the new score is on screen.
(function () {
  "use strict";
  var el = document.querySelector("[data-live]");
  if (!el || !window.fetch || !window.DOMParser) return;
  var url = el.getAttribute("data-live");
  var shown = el.getAttribute("data-revision");
  var busy = false;
  var failures = 0;
  var notBefore = 0;

  function refresh() {
    // X-Nap-Live: the service worker keeps it as the page's offline copy before it is shown
    return fetch(location.href, { cache: "no-store", credentials: "same-origin", headers: { "X-Nap-Live": "1" } })
      .then(function (r) {
        if (!r.ok) throw new Error("page " + r.status);
        return r.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("[data-live]");
        if (!fresh) throw new Error("no live part");
        var before = el;
        el.replaceWith(fresh);
        el = fresh;
        document.dispatchEvent(new CustomEvent("nap:swapped", { detail: { before: before, after: fresh } }));
        shown = fresh.getAttribute("data-revision") || shown;
        window.dispatchEvent(new CustomEvent("nap:live", { detail: { revision: shown } }));
        keepFresh();
      });
  }

  // the table changed: on a scorer's phone the service worker keeps fresh copies of its
  // pages (forms, undo) for offline; once the changes settle (3 s), not at every one
  var warmTimer = null;
  function keepFresh() {
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (!worker || !document.getElementById("record-hand")) return;
    clearTimeout(warmTimer);
    warmTimer = setTimeout(function () { worker.postMessage({ warm: location.pathname }); }, 3000);
  }

  function backOff() {
    failures += 1;
    notBefore = Date.now() + Math.min(30000, 1500 * Math.pow(2, failures));
  }

  function tick() {
    if (busy || document.hidden || Date.now() < notBefore) return;
    var active = document.activeElement;
    if (active && el.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return;
    busy = true;
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("revision " + r.status);
        return r.json();
      })
      .then(function (data) {
        if (String(data.revision) !== shown) return refresh();
      })
      .then(function () { failures = 0; notBefore = 0; })
      .catch(backOff)
      .then(function () { busy = false; });
  }

  setInterval(tick, 1500);
  // the outbox (outbox.js) saved something: look now rather than at the next tick
  window.addEventListener("nap:changed", function () { notBefore = 0; tick(); });
  document.addEventListener("visibilitychange", tick);
})();
