// The network banner: always says the state — online, offline since when (with the
// hands waiting to send), or sending. Its words come translated from the page
// (data-* of #netstate); the outbox (outbox.js) reports its counts with the "nap:outbox"
// event and what the network did with "nap:net". Without JavaScript it stays hidden.
(function () {
  "use strict";
  var el = document.getElementById("netstate");
  if (!el) return;
  var SINCE = "nap.offlineSince";
  var counts = { waiting: 0, sending: false, refused: 0 };
  var reachable = navigator.onLine !== false;

  function store(fn) {
    try { return fn(window.localStorage); } catch (e) { return null; }
  }

  function hhmm(ms) {
    var d = new Date(ms);
    return ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
  }

  function fill(template, name, value) {
    return (template || "").split("%(" + name + ")s").join(value);
  }

  function offlineSince() {
    var since = Number(store(function (s) { return s.getItem(SINCE); })) || 0;
    if (!since) {
      since = Date.now();
      store(function (s) { s.setItem(SINCE, String(since)); });
    }
    return since;
  }

  function render() {
    var online = reachable && navigator.onLine !== false;
    var parts = [];
    if (online) {
      store(function (s) { s.removeItem(SINCE); });
      parts.push(counts.sending ? el.getAttribute("data-sending") : el.getAttribute("data-online"));
    } else {
      parts.push(fill(el.getAttribute("data-offline"), "time", hhmm(offlineSince())));
    }
    if (counts.waiting) parts.push(fill(el.getAttribute("data-waiting"), "num", String(counts.waiting)));
    el.textContent = parts.join(" · ");
    el.className = "netstate " + (online ? (counts.sending ? "sending" : "online") : "offline");
    el.setAttribute("data-waiting-count", String(counts.waiting));
    el.hidden = false;
  }

  if (navigator.onLine === false) {
    // a kept copy of the page (the service worker's): its old messages ("Hand 3 saved.") are not news
    Array.prototype.forEach.call(document.querySelectorAll("main > .flash:not(.note)"), function (p) { p.remove(); });
  }
  window.addEventListener("online", function () { reachable = true; render(); });
  window.addEventListener("offline", function () { reachable = false; render(); });
  window.addEventListener("nap:outbox", function (ev) { counts = ev.detail || counts; render(); });
  window.addEventListener("nap:net", function (ev) { reachable = !!(ev.detail && ev.detail.up); render(); });
  render();
})();
