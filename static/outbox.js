// The outbox: no tap is ever lost. The quick-entry save (declarer, contract, tricks; or
// everyone passed; or misdeal) becomes the JSON command POST /api/e/<key>/hands
// {"number", "facts", "token"} (docs/api.md; the common hand as "lone_bid", its auction
// made by the server); the full form, a correction (claims included) and undo come
// from fullform.js through window.napOutbox as their own commands (kind "hand",
// "correct", "undo": the body is sent as kept). Each command is first kept in
// IndexedDB, then sent, oldest first; the same token on a resend saves nothing twice.
// With no network it waits (shown on the scoresheet as "waiting to send") and is sent
// by itself when the network is back (the online event, and a retry timer with
// backoff), also after a reload. A refused one (409, 422, …) stays, shown with the
// server's message ("not saved: …"), until it is dismissed: nothing typed is dropped.
// Without JavaScript (or IndexedDB) the form posts as it always did.
(function () {
  "use strict";
  if (!window.indexedDB || !window.fetch || !window.Promise || !window.JSON) return;

  var DB = "nap-outbox";
  var STORE = "outbox";
  var NOTE = "nap.note";
  var words = document.getElementById("netstate");
  var sendingId = null;
  var failures = 0;
  var timer = null;
  var chain = Promise.resolve();
  var waitingBy = {};  // table → hands waiting to send (as last read)
  var sent = [];  // saved while this page is open: still shown until the fresh page is in
  var lastRead = [];  // the entries as last read

  function say(name) { return (words && words.getAttribute("data-" + name)) || ""; }
  function fill(template, name, value) { return (template || "").split("%(" + name + ")s").join(value); }

  // --- IndexedDB ----------------------------------------------------------------------
  var opened = null;
  function db() {
    if (!opened) {
      opened = new Promise(function (resolve, reject) {
        var req = indexedDB.open(DB, 1);
        req.onupgradeneeded = function () { req.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true }); };
        req.onsuccess = function () { resolve(req.result); };
        req.onerror = function () { reject(req.error); };
      });
    }
    return opened;
  }

  function run(mode, fn) {
    return db().then(function (d) {
      return new Promise(function (resolve, reject) {
        var tx = d.transaction(STORE, mode);
        var result = fn(tx.objectStore(STORE));
        tx.oncomplete = function () { resolve(result && "result" in result ? result.result : undefined); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  function all() {
    return run("readonly", function (s) { return s.getAll(); }).then(function (rows) {
      return (rows || []).sort(function (a, b) { return a.id - b.id; });
    });
  }
  function add(entry) { return run("readwrite", function (s) { return s.add(entry); }); }
  function put(entry) { return run("readwrite", function (s) { return s.put(entry); }); }
  function remove(id) { return run("readwrite", function (s) { return s.delete(id); }); }
  function get(id) { return run("readonly", function (s) { return s.get(id); }); }

  // --- what the server last said: the next hand's number per table, by revision -------
  function remember(table, revision, next) {
    try {
      var name = "nap.next." + table;
      var known = JSON.parse(localStorage.getItem(name) || "null");
      if (!known || revision >= known.revision) localStorage.setItem(name, JSON.stringify({ revision: revision, next: next }));
    } catch (e) { /* private mode: the page's own number is used */ }
  }
  function known(table) {
    try { return JSON.parse(localStorage.getItem("nap.next." + table) || "null"); } catch (e) { return null; }
  }

  // --- sending ------------------------------------------------------------------------
  function notify(entries) {
    lastRead = entries;
    waitingBy = {};
    entries.forEach(function (e) { if (e.state === "waiting") waitingBy[e.table] = (waitingBy[e.table] || 0) + 1; });
    entries = entries.filter(function (e) { return !e.quiet; });  // a form posting now: not news yet
    var waiting = entries.filter(function (e) { return e.state === "waiting"; }).length;
    var refused = entries.length - waiting;
    window.dispatchEvent(new CustomEvent("nap:outbox", { detail: { waiting: waiting, sending: sendingId !== null, refused: refused } }));
    show(entries);
  }
  function refresh() { return all().then(notify); }
  function net(up) { window.dispatchEvent(new CustomEvent("nap:net", { detail: { up: up } })); }

  function retryLater() {
    failures += 1;
    clearTimeout(timer);
    timer = setTimeout(drain, Math.min(30000, 1000 * Math.pow(2, failures - 1)));
  }

  // the JSON body: a new hand is sent under the number it was given; other commands as kept
  function bodyOf(entry) {
    if (entry.kind && entry.kind !== "hand") return entry.body;
    var body = entry.body || { facts: entry.facts, token: entry.token };
    return { number: entry.number, facts: body.facts, token: body.token };
  }

  function send(entry) {
    return fetch(entry.api, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(bodyOf(entry)),
    });
  }

  // the hand a correction or undo names, as the server has it now (null: no longer in play)
  function serverHand(entry, state) {
    var id = entry.body && entry.body.hand_id !== undefined ? entry.body.hand_id : entry.hand_id;
    return (state.hands || []).filter(function (h) { return h.id === id; })[0] || null;
  }

  // saved: forget it, but keep it on the sheet until the page shows that revision; a
  // correction queued after this one of the same hand is now based on the new version
  function saved(entry, data) {
    sent.push({ entry: entry, revision: Number(data.revision) || 0 });
    var follow = Promise.resolve();
    if (entry.kind === "correct" && data.hand) {
      follow = all().then(function (entries) {  // a correction or an undo of the same hand, queued after it
        return Promise.all(entries.filter(function (e) { return e.follows === entry.id && e.state === "waiting"; })
          .map(function (e) { e.body.version = data.hand.version; return put(e); }));
      });
    }
    return follow.then(function () { return remove(entry.id); }).then(function () { return "saved"; });
  }

  // One entry: "saved", "refused" (kept with the server's message) or "wait" (no network).
  function deliver(entry) {
    sendingId = entry.id;
    return refresh().then(function () { return send(entry); }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.status === 200 || r.status === 201) {
          if (data.hand && (entry.kind || "hand") === "hand") remember(entry.table, data.revision, data.hand.number + 1);
          return saved(entry, data);
        }
        if (r.status >= 500 || r.status === 408 || r.status === 429) return unquiet(entry);
        if (data.state) {
          remember(entry.table, data.state.revision, data.state.hands.length + 1);
          if ((entry.kind || "hand") === "hand") {  // another phone saved this number first: show its hand
            var same = data.state.hands.filter(function (h) { return h.number === entry.number; })[0];
            entry.taken = !!same;
            entry.server = same ? { version: same.version, number: same.number, facts: same.facts } : null;
          } else {
            var now = serverHand(entry, data.state);
            // an undo whose hand is out of play already (its answer was lost, or another phone undid it): done
            if (entry.kind === "undo" && r.status === 409 && !now) return saved(entry, data.state);
            entry.server = now ? { version: now.version, number: now.number, facts: now.facts } : null;
          }
        }
        if (entry.quiet) return remove(entry.id).then(function () { return "refused"; });  // its form post was answered
        entry.state = "refused";
        entry.status = r.status;
        entry.message = (data.error && data.error.message) || ("HTTP " + r.status);
        return put(entry).then(function () { return "refused"; });
      });
    }, function () { return unquiet(entry); });
  }

  // a hand whose form post did not get through is shown as waiting from now on
  function unquiet(entry) {
    if (!entry.quiet) return "wait";
    entry.quiet = false;
    return put(entry).then(function () { return "wait"; });
  }

  function drainNow() {
    return all().then(function (entries) {
      var queue = entries.filter(function (e) { return e.state === "waiting"; });
      function next(i) {
        if (i >= queue.length) { failures = 0; return "done"; }
        // read again: the one before may have rebased it (a correction's version), or it was taken back
        return get(queue[i].id).then(function (entry) {
          return entry && entry.state === "waiting" ? deliver(entry) : "gone";
        }).then(function (outcome) {
          if (outcome === "wait") { net(false); retryLater(); return "wait"; }
          net(true);
          return next(i + 1);
        });
      }
      return next(0);
    }).catch(function () { retryLater(); return "wait"; }).then(function (outcome) {
      sendingId = null;
      // what was sent is on the next page the live part fetches: fetch it now, once per drain
      if (sent.length) window.dispatchEvent(new CustomEvent("nap:changed"));
      return refresh().then(function () { return outcome; });
    });
  }

  // one drain at a time, in order; a drain asked for while one runs follows it
  function drain() {
    clearTimeout(timer);
    chain = chain.then(drainNow, drainNow);
    return chain;
  }

  // --- the scoresheet: what waits, what was refused -----------------------------------
  function shownRevision() {
    var live = document.querySelector("[data-live][data-revision]");
    return live ? Number(live.getAttribute("data-revision")) : Infinity;
  }

  function describe(e) {
    var kind = e.kind || "hand";
    if (kind === "hand") return fill(say("hand"), "n", String(e.number)) + " · " + e.label;
    return e.label;
  }

  // the hand another phone saved, as the server answered it: nothing typed here is lost beside it
  function serverLine(e, sheetUrl) {
    var p = document.createElement("span");
    p.className = "outbox-server";
    if (!e.server) return null;
    var f = e.server.facts || {};
    var what = f.misdeal ? say("misdeal") : (f.auction || []).join(", ") + (f.tricks !== undefined ? " · " + f.tricks : "");
    p.appendChild(document.createTextNode(fill(say("server"), "version", String(e.server.version)) + " "));
    var a = document.createElement("a");
    a.href = sheetUrl + "/hand/" + e.server.number;
    a.textContent = fill(say("hand"), "n", String(e.server.number)) + ": " + (f.dealer || "") + " · " + what;
    p.appendChild(a);
    return p;
  }

  function row(e, state, sheetUrl) {
    var li = document.createElement("li");
    li.className = "outbox-entry " + state;
    li.setAttribute("data-number", String(e.number));
    li.setAttribute("data-kind", e.kind || "hand");
    var what = document.createElement("span");
    what.textContent = describe(e);
    var words = document.createElement("span");
    words.className = "outbox-state";
    words.textContent = state === "refused" ? fill(say("refused"), "message", e.message)
      : state === "sending" ? say("sending") : say("waiting-one");
    li.appendChild(what);
    li.appendChild(document.createTextNode(" — "));
    li.appendChild(words);
    if (state !== "refused") return li;
    var server = serverLine(e, sheetUrl);
    if (server) li.appendChild(server);
    var dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "button";
    dismiss.textContent = say("dismiss");
    dismiss.addEventListener("click", function () { remove(e.id).then(refresh); });
    li.appendChild(dismiss);
    return li;
  }

  // "Hand N: X deals, Y is eldest hand" after the hands that wait: each passes the deal
  // to the left, a misdeal keeps it (as the engine's rulings do); after an undo that
  // waits, who deals is the server's to say
  function dealerLine(waiting) {
    var line = document.querySelector("[data-dealer-template]");
    if (!line || !waiting.length) return;
    var players = JSON.parse(line.getAttribute("data-players") || "[]");
    var order = seatedOrder(line, players.length);
    var dealer = Number(line.getAttribute("data-dealer"));
    var next = Number(line.getAttribute("data-number"));
    for (var i = 0; i < waiting.length; i++) {
      var e = waiting[i];
      var kind = e.kind || "hand";
      if (kind === "undo") { line.hidden = true; return; }
      if (kind !== "hand") continue;
      var facts = (e.body && e.body.facts) || e.facts || {};
      next = e.number + 1;
      if (!facts.misdeal) dealer = leftOf(order, dealer, 1);
    }
    var esc = function (t) { return String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); };
    line.innerHTML = line.getAttribute("data-dealer-template").split("%(n)s").join(String(next))
      .split("%(dealer)s").join(esc(players[dealer])).split("%(eldest)s").join(esc(players[leftOf(order, dealer, 1)]));
  }

  function show(entries) {
    var box = document.querySelector("[data-outbox-list]");
    if (!box) return;
    var table = box.getAttribute("data-outbox-list");
    var sheetUrl = box.getAttribute("data-sheet") || "";
    var mine = entries.filter(function (e) { return e.table === table; });
    var revision = shownRevision();
    // saved, but the page does not show it yet: still there, greyed, until the fresh page is in
    sent = sent.filter(function (s) { return s.revision > revision; });
    var list = box.querySelector("ol");
    list.textContent = "";
    sent.forEach(function (s) { if (s.entry.table === table) list.appendChild(row(s.entry, "sending", sheetUrl)); });
    mine.forEach(function (e) { list.appendChild(row(e, e.id === sendingId ? "sending" : e.state, sheetUrl)); });
    box.hidden = list.children.length === 0;
    var record = document.getElementById("record-hand");
    var waiting = mine.filter(function (e) { return e.state === "waiting" && !e.quiet; });
    var hands = waiting.filter(function (e) { return (e.kind || "hand") === "hand"; });
    if (record && record.getAttribute("data-label") && hands.length) {
      record.textContent = fill(record.getAttribute("data-label"), "n", String(hands[hands.length - 1].number + 1));
    }
    dealerLine(waiting);
  }

  // --- a note for the next page, shown there by note.js (as a flash message) ----------
  function leaveNote(text) { try { sessionStorage.setItem(NOTE, text); } catch (e) { /* no note */ } }

  // --- quick entry --------------------------------------------------------------------
  function labelOf(input) {
    var label = input && input.closest("label");
    return label ? label.textContent.trim() : "";
  }

  function read(form, button) {
    if (!button) return null;
    if (button.name === "misdeal") return { facts: { misdeal: true }, label: button.textContent.trim() };
    if (button.name === "all_pass") {
      return { facts: { lone_bid: { declarer: null, contract: null } }, label: button.textContent.trim() };
    }
    if (button.name !== "tricks") return null;
    var declarer = form.querySelector("input[name=declarer]:checked");
    var contract = form.querySelector("input[name=contract]:checked");
    var trumps = form.querySelector("input[name=trump]");
    var trump = form.querySelector("input[name=trump]:checked");
    if (!declarer) return { error: say("tap-declarer") };
    if (!contract) return { error: say("tap-contract") };
    if (trumps && !trump) return { error: say("tap-trump") };
    var facts = { lone_bid: { declarer: labelOf(declarer), contract: contract.value }, tricks: Number(button.value) };
    overcalled(form, contract.value, facts.lone_bid);
    var label = [labelOf(declarer), labelOf(contract)];
    if (trump) { facts.trump = trump.value; label.push(labelOf(trump)); }
    label.push(button.value);
    return { facts: facts, label: label.join(" · ") };
  }

  // A Wellington or Blücher names who bid Nap (and Wellington) before it (P-7, H-7).
  function overcalled(form, contract, lone) {
    var needs = { wellington: ["nap"], blucher: ["nap", "wellington"] }[contract] || [];
    needs.forEach(function (bid) {
      var seat = form.querySelector("input[name=" + bid + "_by]:checked");
      if (seat) lone[bid] = labelOf(seat);
    });
  }

  function token() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // who deals hand `number`, from a page made for hand `shown` dealt by `dealer`: the deal
  // passes left after each hand, but not after a misdeal (as the engine's rulings say);
  // null when an undo waits (who deals is then the server's to say)
  // The seats at the table now, clockwise (data-seated; players who left are not in it):
  // the deal passes left among them (issue 12).
  function seatedOrder(el, n) {
    var order = JSON.parse((el && el.getAttribute("data-seated")) || "null");
    if (!order || !order.length) { order = []; for (var i = 0; i < n; i++) order.push(i); }
    return order;
  }

  function leftOf(order, seat, steps) {
    var at = order.indexOf(seat);
    if (at < 0) return seat;
    return order[(((at + steps) % order.length) + order.length) % order.length];
  }

  function dealerFor(table, shown, dealer, order, entries, number) {
    var passes = number - shown;
    var undone = false;
    entries.forEach(function (e) {
      if (e.table !== table || e.state !== "waiting" || e.quiet) return;
      if (e.kind === "undo") undone = true;
      var facts = (e.body && e.body.facts) || e.facts || {};
      if ((e.kind || "hand") === "hand" && e.number >= shown && e.number < number && facts.misdeal) passes -= 1;
    });
    return undone ? null : leftOf(order, dealer, passes);
  }

  // the number of the hand being entered: the newest the server said, after what waits
  function numberFor(form, entries) {
    var table = form.getAttribute("data-outbox") || form.getAttribute("data-full-form");
    var mine = { revision: Number(form.getAttribute("data-revision")), next: Number(form.getAttribute("data-number")) };
    var k = known(table);
    var next = k && k.revision > mine.revision ? k.next : mine.next;
    entries.forEach(function (e) {
      if (e.table !== table || e.state !== "waiting") return;
      if ((e.kind || "hand") === "hand" && e.number >= next) next = e.number + 1;
      if (e.kind === "undo" && e.number < next) next = e.number;  // its place is free again
    });
    return next;
  }

  function showError(form, text) {
    var p = form.querySelector(".outbox-error");
    if (!p) {
      p = document.createElement("p");
      p.className = "errors outbox-error";
      p.setAttribute("role", "alert");
      form.insertBefore(p, form.firstChild);
    }
    p.textContent = text;
  }

  function quickEntry(form) {
    var table = form.getAttribute("data-outbox");
    var busy = false;
    remember(table, Number(form.getAttribute("data-revision")), Number(form.getAttribute("data-number")));
    all().then(function (entries) {
      var number = numberFor(form, entries);
      if (number !== Number(form.getAttribute("data-number"))) {
        var title = document.querySelector("[data-hand-title]");
        if (title) title.textContent = fill(title.getAttribute("data-hand-title"), "n", String(number));
        var line = document.querySelector("[data-dealer-line]");
        if (!line) return;
        var players = JSON.parse(line.getAttribute("data-players") || "[]");
        var order = seatedOrder(line, players.length);
        var seat = dealerFor(table, Number(form.getAttribute("data-number")), Number(line.getAttribute("data-dealer")),
                             order, entries, number);
        if (seat === null) { line.hidden = true; return; }  // the server says who deals when it arrives
        line.textContent = fill(fill(line.getAttribute("data-dealer-template"), "dealer", players[seat]),
                                "eldest", players[leftOf(order, seat, 1)]);
      }
    }).catch(function () { /* shown as the server sent it */ });

    form.addEventListener("submit", function (ev) {
      if (busy) { ev.preventDefault(); return; }  // a double tap saves once
      var got = read(form, ev.submitter);
      if (!got) return;  // not a save: the form posts as always
      if (got.error) {
        if (navigator.onLine !== false) return;  // the server explains, as always
        ev.preventDefault();
        showError(form, got.error);
        return;
      }
      busy = true;
      form.classList.add("busy");
      if (navigator.onLine !== false && !waitingBy[table]) {
        // online, nothing waiting before it: the form posts as always (the server answers as it
        // always did), and the outbox keeps the hand with the form's own token. Sent again later
        // (the post's answer never came), it saves nothing twice; the next page's outbox sends
        // it at once, is told "already saved", and forgets it.
        var own = form.querySelector("input[name=token]");
        add({ table: table, api: form.getAttribute("data-api"), number: Number(form.getAttribute("data-number")),
              token: (own && own.value) || token(), facts: got.facts, label: got.label, state: "waiting",
              quiet: true, at: Date.now() }).catch(function () { /* the post itself still goes */ });
        return;
      }
      ev.preventDefault();
      var entry;
      all().then(function (entries) {
        entry = { table: table, api: form.getAttribute("data-api"), number: numberFor(form, entries), token: token(),
                  facts: got.facts, label: got.label, state: "waiting", at: Date.now() };
        return add(entry);
      }).then(function (id) {
        entry.id = id;
        return drain();
      }).then(function () {
        return all();
      }).then(function (entries) {
        var now = entries.filter(function (e) { return e.id === entry.id; })[0];
        if (!now) {  // sent and saved
          leaveNote(fill(say("saved"), "n", String(entry.number)));
          location.assign(form.getAttribute("data-sheet") + "#hand-" + entry.number);
        } else if (now.state === "refused" && now.taken) {  // another phone saved this hand first: its version
          leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
          location.assign(form.getAttribute("data-hand") + "/" + now.number);
        } else if (now.state === "refused" && now.status === 409) {  // the evening is finished, or was undone
          leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
          location.assign(form.getAttribute("data-sheet"));
        } else if (now.state === "refused") {  // the rules refuse it: fix it here
          return remove(now.id).then(function () {
            showError(form, fill(say("refused"), "message", now.message));
            busy = false;
            form.classList.remove("busy");
          });
        } else {  // no network: it waits, and goes by itself
          location.assign(form.getAttribute("data-sheet"));
        }
        return undefined;
      }).catch(function () {
        // IndexedDB failed: post the form as it always did
        var keep = document.createElement("input");
        keep.type = "hidden";
        keep.name = ev.submitter.name;
        keep.value = ev.submitter.value;
        form.appendChild(keep);
        HTMLFormElement.prototype.submit.call(form);
      });
    });
  }

  // --- for the full form and undo (fullform.js) ----------------------------------------
  // queue(entry): keep it (state "waiting"), send what waits, and answer the entry as it
  // is now: undefined when sent and saved, else with its state ("waiting", "refused")
  window.napOutbox = {
    all: all, remove: remove, drain: drain, token: token, say: say, fill: fill, leaveNote: leaveNote,
    numberFor: numberFor, dealerFor: dealerFor, seatedOrder: seatedOrder, showError: showError, labelOf: labelOf,
    waiting: function (table) { return waitingBy[table] || 0; },
    queue: function (entry) {
      entry.state = "waiting";
      entry.at = Date.now();
      return add(entry).then(function (id) {
        entry.id = id;
        if (entry.quiet) return entry;
        return drain().then(all).then(function (entries) {
          return entries.filter(function (e) { return e.id === id; })[0];
        });
      });
    },
  };

  // --- start --------------------------------------------------------------------------
  var sheet = document.querySelector("[data-outbox-list]");
  var totals = document.querySelector("[data-next-hand]");
  var live = document.querySelector("[data-live][data-revision]");
  if (sheet && totals && live) {
    remember(sheet.getAttribute("data-outbox-list"), Number(live.getAttribute("data-revision")),
             Number(totals.getAttribute("data-next-hand")));
  }
  var form = document.querySelector("form[data-outbox]");
  if (form) quickEntry(form);
  window.addEventListener("online", function () { failures = 0; drain(); });
  window.addEventListener("nap:live", function () { show(lastRead.filter(function (e) { return !e.quiet; })); });
  drain();
})();
