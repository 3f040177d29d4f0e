// Live score: poll the table's revision (one small query) and, when another phone
// has saved or corrected a hand, swap in the fresh part of the page marked
// [data-live]. Without JavaScript a reload does the same.
(function () {
  "use strict";
  var el = document.querySelector("[data-live]");
  if (!el || !window.fetch || !window.DOMParser) return;
  var url = el.getAttribute("data-live");
  var rev = el.getAttribute("data-revision");
  var busy = false;

  function refresh() {
    return fetch(location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("[data-live]");
        if (!fresh) return;
        el.replaceWith(fresh);
        el = fresh;
        rev = fresh.getAttribute("data-revision") || rev;
      });
  }

  function tick() {
    if (busy || document.hidden) return;
    var active = document.activeElement;
    if (active && el.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return;
    busy = true;
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && String(data.revision) !== rev) {
          rev = String(data.revision);
          return refresh();
        }
      })
      .catch(function () { /* offline for a moment: try again at the next tick */ })
      .then(function () { busy = false; });
  }

  setInterval(tick, 1500);
  document.addEventListener("visibilitychange", tick);
})();
