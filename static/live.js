// Live score: poll the table's revision (one small query) and, when another phone
// has saved or corrected a hand, ask the server what changed since the revision on
// screen (GET /e/<key>/changes?since=N, docs/api.md) and place it: the parts of the
// page marked [data-live-part] that changed (totals, next dealer, settle-up…), the
// rows of hands that are new or changed (a corrected hand moves every later running
// total: those rows come too), the rows undone. The server renders every part with the
// page's own templates; this only places the HTML it is given, never computes a score.
// When the server cannot say the change that way ({reload: true}: the first hand, a
// revision it no longer holds, another language or role), the fresh page is fetched
// and its [data-live] part swapped in, as before. "nap:swapped" and "nap:live" say so.
// The outbox's "nap:changed" (a change it just sent) asks at once. Without JavaScript
// a reload does the same.
//
// The revision the page shows is the one placed (data-revision), never the one the poll
// saw: if fetching the change fails, the next tick tries again (waiting longer after
// each failure, up to 30 s) until the new score is on screen.
//
// The running-totals chart (an <img>, about 50 KB of SVG) is fetched again only when it
// is on screen: a new chart for a chart scrolled away waits until it comes into view.
(function () {
  "use strict";
  var el = document.querySelector("[data-live]");
  if (!el || !window.fetch || !window.DOMParser) return;
  var url = el.getAttribute("data-live");
  var shown = el.getAttribute("data-revision");
  var busy = false;
  var failures = 0;
  var notBefore = 0;
  var pendingChart = null;

  function swapped(before) {
    document.dispatchEvent(new CustomEvent("nap:swapped", { detail: { before: before, after: el } }));
    shown = el.getAttribute("data-revision") || shown;
    window.dispatchEvent(new CustomEvent("nap:live", { detail: { revision: shown } }));
    keepFresh();
  }

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
        pendingChart = null;
        swapped(before);
      });
  }

  function nodes(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  function part(name) { return el.querySelector('[data-live-part="' + name + '"]'); }

  // hand n's row on screen: its <tbody id="hand-n"> and the lines of seat changes just above it
  function row(table, n) {
    var hand = table.querySelector('tbody[id="hand-' + n + '"]');
    if (!hand) return [];
    var found = [hand];
    for (var prev = hand.previousElementSibling; prev && prev.matches("tbody.seats"); prev = prev.previousElementSibling) {
      found.unshift(prev);
    }
    return found;
  }

  function onScreen(node) {
    var box = node.getBoundingClientRect();
    return box.bottom > 0 && box.top < (window.innerHeight || document.documentElement.clientHeight);
  }

  var watcher = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    if (pendingChart === null || !entries.some(function (e) { return e.isIntersecting; })) return;
    var chart = part("chart");
    if (chart) chart.replaceChildren(nodes(pendingChart));
    pendingChart = null;
  }) : null;

  function placeChart(chart, html) {
    if (!watcher || !chart.querySelector("img") || onScreen(chart)) {
      pendingChart = null;
      chart.replaceChildren(nodes(html));
      return;
    }
    pendingChart = html;  // placed when it scrolls into view
    watcher.disconnect();
    watcher.observe(chart);
  }

  // place what changed; false when the page cannot take it (then the whole page is fetched)
  function place(data) {
    var parts = data.parts || {};
    var rows = data.rows || {};
    var removed = data.removed || [];
    var numbers = Object.keys(rows).map(Number).sort(function (a, b) { return a - b; });
    var table = el.querySelector('[data-live-part="hands"] table');
    var head = table && table.querySelector("thead");
    if ((numbers.length || removed.length) && !head) return false;
    for (var name in parts) if (!part(name)) return false;
    var before = el.cloneNode(true);
    removed.forEach(function (n) { row(table, n).forEach(function (node) { node.remove(); }); });
    numbers.forEach(function (n) {
      var old = row(table, n);
      if (old.length) {
        old[0].before(nodes(rows[n]));
        old.forEach(function (node) { node.remove(); });
      } else {
        head.after(nodes(rows[n]));  // newest first: each new hand goes on top
      }
    });
    Object.keys(parts).forEach(function (name) {
      if (name === "chart") placeChart(part(name), parts[name]);
      else part(name).replaceChildren(nodes(parts[name]));
    });
    el.setAttribute("data-revision", String(data.revision));
    swapped(before);
    return true;
  }

  function update() {
    var changes = el.getAttribute("data-changes");
    if (!changes || !window.HTMLTemplateElement) return refresh();
    var ask = changes + (changes.indexOf("?") < 0 ? "?" : "&") + "since=" + encodeURIComponent(shown);
    return fetch(ask, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("changes " + r.status);
        return r.json();
      })
      .then(function (data) {
        if (data.reload || !place(data)) return refresh();
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
        if (String(data.revision) !== shown) return update();
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
