// The room screen (issue 22 item 4): it asks the event's version every 3 s (one small query:
// the event's revision and its tables'); when it changed, the page is fetched again and its
// screen swapped in, as the scoresheet's live.js does. No login, nothing to tap; a failed
// fetch waits longer each time (up to 30 s) and the screen shows what it last had.
(function () {
  "use strict";
  var el = document.querySelector("[data-room]");
  if (!el || !window.fetch || !window.DOMParser) return;
  var url = el.getAttribute("data-room");
  var shown = el.getAttribute("data-version");
  var busy = false;
  var notBefore = 0;
  var failures = 0;

  function refresh() {
    return fetch(location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("page " + r.status); return r.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-room]");
        if (!fresh) throw new Error("no room");
        el.replaceWith(fresh);
        el = fresh;
        shown = el.getAttribute("data-version");
      });
  }

  function tick() {
    if (busy || Date.now() < notBefore) return;
    busy = true;
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("version " + r.status); return r.json(); })
      .then(function (data) { if (String(data.version) !== shown) return refresh(); })
      .then(function () { failures = 0; notBefore = 0; })
      .catch(function () { failures += 1; notBefore = Date.now() + Math.min(30000, 3000 * Math.pow(2, failures)); })
      .then(function () { busy = false; });
  }

  setInterval(tick, 3000);
  document.addEventListener("visibilitychange", tick);
})();
