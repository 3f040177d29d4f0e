// The chaos test's witness on each phone (tests/chaos.py adds it as an init script, so it
// runs before the page's own scripts on every page and every reload). It keeps, in the
// phone's localStorage ("chaos.log", which outlives reloads and the network), two kinds
// of record, read back at the end by tests/chaos.py and judged by tests/chaos_checks.py:
//
//   {"t": "ack", ...}   every answer the outbox (static/outbox-send.js) got that tells the
//                       phone a command is saved: a POST to /api/e/<key>/... answered 200 or
//                       201 (the outbox forgets the entry then), or an undo answered 409 with
//                       its hand already out of play (the outbox counts that as done).
//                       Kept: kind (hand, correct, undo), token, number, hand_id, version,
//                       revision, status.
//   {"t": "shown", ...} every server state the page displayed ([data-live][data-revision]:
//                       at load, and each fresh part live.js swapped in, "nap:live"), with
//                       the entries this phone had waiting to send then (from the outbox's
//                       own "nap:outbox" report) and how many of them the page listed.
(function () {
  "use strict";
  var KEY = "chaos.log";

  function keep(record) {
    try {
      var log = JSON.parse(localStorage.getItem(KEY) || "[]");
      record.at = Date.now();
      record.url = location.pathname;
      log.push(record);
      localStorage.setItem(KEY, JSON.stringify(log));
    } catch (e) { /* storage full: the checks then see fewer records, never wrong ones */ }
  }

  function kindOf(url, body) {
    if (/\/undo$/.test(url)) return "undo";
    if (/\/versions$/.test(url)) return "correct";
    if (/\/hands$/.test(url) && body && body.number !== undefined) return "hand";
    return null;
  }

  var original = window.fetch;
  window.fetch = function (input, init) {
    var url = typeof input === "string" ? input : (input && input.url) || "";
    var method = (init && init.method) || "GET";
    var body = null;
    if (method === "POST" && init && typeof init.body === "string") {
      try { body = JSON.parse(init.body); } catch (e) { body = null; }
    }
    var kind = method === "POST" && /\/api\/e\//.test(url) ? kindOf(url, body) : null;
    var answer = original.apply(this, arguments);
    if (!kind) return answer;
    return answer.then(function (r) {
      return r.clone().json().catch(function () { return {}; }).then(function (data) {
        var ok = r.status === 200 || r.status === 201;
        var undoneAlready = false;
        if (kind === "undo" && r.status === 409 && data.state) {
          undoneAlready = !(data.state.hands || []).some(function (h) { return h.id === body.hand_id; });
        }
        if (ok || undoneAlready) {
          var hand = data.hand || {};
          keep({
            t: "ack", kind: kind, status: r.status, token: body.token || null,
            number: kind === "hand" ? body.number : (hand.number !== undefined ? hand.number : null),
            hand_id: kind === "undo" ? body.hand_id : (hand.id !== undefined ? hand.id : null),
            version: hand.version !== undefined ? hand.version : null,
            revision: data.revision !== undefined ? Number(data.revision)
              : (data.state && data.state.revision !== undefined ? Number(data.state.revision) : null),
          });
        }
        return r;
      });
    });
  };

  var waiting = null;  // this table's entries waiting to send, as the outbox last said (null: not yet)
  function table() {
    var box = document.querySelector("[data-outbox-list]");
    return box ? box.getAttribute("data-outbox-list") : null;
  }
  function listed() {
    return document.querySelectorAll("[data-outbox-list] .outbox-entry.waiting, [data-outbox-list] .outbox-entry.sending").length;
  }
  function shown(cause) {
    var live = document.querySelector("[data-live][data-revision]");
    if (!live) return;
    keep({ t: "shown", cause: cause, revision: Number(live.getAttribute("data-revision")),
           waiting: waiting, listed: table() ? listed() : null, online: navigator.onLine });
  }

  window.addEventListener("nap:outbox", function (ev) {
    var t = table();
    var entries = (ev.detail && ev.detail.entries) || [];
    waiting = entries.filter(function (e) { return e.state === "waiting" && (!t || e.table === t); }).length;
    // after the outbox's own view has drawn this report (it listens after this script)
    setTimeout(function () { shown("outbox"); }, 0);
  });
  window.addEventListener("nap:live", function () { setTimeout(function () { shown("live"); }, 0); });
  document.addEventListener("DOMContentLoaded", function () { shown("load"); });
})();
