// Live score: learn the table's revision (pushed by the server's stream, else polled: one
// small query every 1.5 s) and, when another phone
// has saved or corrected a hand, ask the server what changed since the revision on
// screen (GET /e/<key>/changes?since=N, docs/api.md; on a viewer's page the stream's event
// carries that very answer, and nothing is asked) and place it: the parts of the
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
// On a phone whose service worker keeps the page for offline, the change is placed in
// that kept copy too, before the page shows it.
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

  function part(root, name) { return root.querySelector('[data-live-part="' + name + '"]'); }

  // hand n's row: its <tbody id="hand-n"> and the lines of seat changes just above it
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
    var chart = part(el, "chart");
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

  // place what changed in `root` (a [data-live] part at revision `shown`); false, having
  // changed nothing, when it cannot take it. `chart(part, html)` places the chart's part.
  function apply(root, data, chart) {
    var parts = data.parts || {};
    var rows = data.rows || {};
    var removed = data.removed || [];
    var numbers = Object.keys(rows).map(Number).sort(function (a, b) { return a - b; });
    var table = root.querySelector('[data-live-part="hands"] table');
    var head = table && table.querySelector("thead");
    if ((numbers.length || removed.length) && !head) return false;
    for (var name in parts) if (!part(root, name)) return false;
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
      if (name === "chart") chart(part(root, name), parts[name]);
      else part(root, name).replaceChildren(nodes(parts[name]));
    });
    root.setAttribute("data-revision", String(data.revision));
    return true;
  }

  function place(data) {
    var before = el.cloneNode(true);
    if (!apply(el, data, placeChart)) return false;  // it changes nothing then
    swapped(before);
    return true;
  }

  // The service worker's offline copy of this page (static/sw.js keeps it in its
  // "nap-pages-…" cache) gets the same change before the page shows it, so that a reload
  // with no network never shows an older score than the page showed. True when it is
  // kept (or there is none to keep); false when the copy is not the one on screen (then
  // the page is fetched through the worker, which keeps it).
  function keepOffline(data) {
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (!worker || !window.caches) return Promise.resolve(true);
    var href = location.href.split("#")[0];
    return caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) { return name.indexOf("nap-pages-") === 0; }).map(function (name) {
        return caches.open(name).then(function (cache) {
          return cache.match(href, { ignoreVary: true }).then(function (kept) {
            if (!kept) return true;
            return kept.text().then(function (html) {
              var doc = new DOMParser().parseFromString(html, "text/html");
              var live = doc.querySelector("[data-live]");
              // not the copy of what is on screen: forgotten, and the page fetched (and kept) again
              if (!live || live.getAttribute("data-revision") !== shown ||
                  !apply(live, data, function (chart, part) { chart.replaceChildren(nodes(part)); })) {
                return cache.delete(href).then(function () { return false; });
              }
              var headers = new Headers(kept.headers);
              headers.delete("Content-Length");
              headers.delete("Content-Encoding");
              var body = "<!DOCTYPE html>\n" + doc.documentElement.outerHTML;
              return cache.put(href, new Response(body, { status: 200, headers: headers })).then(function () { return true; });
            });
          });
        });
      }));
    }).then(function (kept) { return kept.every(Boolean); }, function () { return false; });
  }

  // place an answer of /changes (asked, or carried by the stream): the fresh page when it
  // says so ({reload: true}) or when it cannot be placed
  function take(data) {
    if (data.reload) return refresh();
    return keepOffline(data).then(function (kept) {
      if (!kept || !place(data)) return refresh();
    });
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
      .then(take);
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

  // Pushed, when the server holds streams (GET /e/<key>/events, server-sent events from
  // scorer/web/live_stream.py behind the proxy): the revision arrives when it changes, and
  // nothing is polled while the stream is open. A stream answered 204 (no stream server: the
  // app alone) or failed is closed for good, and the page polls as before. The stream is
  // told what the page shows (its data-changes' shown=<lang>/<role> and the revision): on a
  // viewer's page its event carries what changed since then ({since, changes}: the answer
  // /changes would give), placed without asking; any other event, or one whose "since" is not
  // the revision on screen, is asked for as before.
  var stream = null;
  var heard = null;  // the revision the stream last said
  var carried = null;  // what changed, as the stream last carried it: {since, revision, changes}
  function open() {
    var events = el.getAttribute("data-events");
    if (!events || !window.EventSource) return;
    var changes = el.getAttribute("data-changes") || "";
    var query = changes.indexOf("?") < 0 ? "" : changes.slice(changes.indexOf("?") + 1);
    if (query) events += (events.indexOf("?") < 0 ? "?" : "&") + query + "&since=" + encodeURIComponent(shown);
    stream = new EventSource(events);
    stream.onmessage = function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      heard = String(data.revision);
      carried = data.changes && typeof data.changes === "object"
        ? { since: String(data.since), revision: heard, changes: data.changes } : null;
      tick();
    };
    stream.onerror = function () {
      // CLOSED: refused (204, 404, 429) or not a stream: poll from now on
      if (stream && stream.readyState === 2) { stream = null; heard = null; }
    };
  }

  function streaming() { return stream !== null && stream.readyState === 1; }

  function tick() {
    if (busy || document.hidden || Date.now() < notBefore) return;
    var active = document.activeElement;
    if (active && el.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return;
    var pushed = streaming();
    if (pushed && (heard === null || heard === shown)) return;  // nothing new: nothing asked
    busy = true;
    var before = shown;
    var said = pushed && carried && carried.since === shown && carried.revision === heard ? carried.changes : null;
    carried = null;
    (pushed ? Promise.resolve({ revision: heard }) : fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("revision " + r.status);
        return r.json();
      }))
      .then(function (data) {
        if (String(data.revision) !== shown) return said ? take(said) : update();
      })
      .then(function () { failures = 0; notBefore = 0; })
      .catch(backOff)
      .then(function () {
        busy = false;
        // the stream said more while this one was placed: place that now, not at the next tick
        if (pushed && shown !== before && heard !== shown) tick();
      });
  }

  open();
  setInterval(tick, 1500);
  // the outbox (outbox.js) saved something: look now rather than at the next tick
  window.addEventListener("nap:changed", function () { notBefore = 0; tick(); });
  document.addEventListener("visibilitychange", tick);
})();
