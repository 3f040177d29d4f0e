// The outbox: no tap on quick entry is ever lost. The quick-entry save (declarer,
// contract, tricks; or everyone passed; or misdeal) becomes the JSON command
// POST /api/e/<key>/hands {"number", "facts", "token"} (docs/api.md; the common hand
// as "lone_bid", its auction made by the server). Each command is first kept in
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

  function send(entry) {
    return fetch(entry.api, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify({ number: entry.number, facts: entry.facts, token: entry.token }),
    });
  }

  // One entry: "saved", "refused" (kept with the server's message) or "wait" (no network).
  function deliver(entry) {
    sendingId = entry.id;
    return refresh().then(function () { return send(entry); }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.status === 200 || r.status === 201) {
          if (data.hand) remember(entry.table, data.revision, data.hand.number + 1);
          return remove(entry.id).then(function () { return "saved"; });
        }
        if (r.status >= 500 || r.status === 408 || r.status === 429) return unquiet(entry);
        if (data.state) {
          remember(entry.table, data.state.revision, data.state.hands.length + 1);
          entry.taken = data.state.hands.some(function (h) { return h.number === entry.number; });
        }
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
        return deliver(queue[i]).then(function (outcome) {
          if (outcome === "wait") { net(false); retryLater(); return "wait"; }
          net(true);
          return next(i + 1);
        });
      }
      return next(0);
    }).catch(function () { retryLater(); return "wait"; }).then(function (outcome) {
      sendingId = null;
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
  function show(entries) {
    var box = document.querySelector("[data-outbox-list]");
    if (!box) return;
    var table = box.getAttribute("data-outbox-list");
    var mine = entries.filter(function (e) { return e.table === table; });
    var list = box.querySelector("ol");
    list.textContent = "";
    mine.forEach(function (e) {
      var li = document.createElement("li");
      li.className = "outbox-entry " + (e.id === sendingId ? "sending" : e.state);
      li.setAttribute("data-number", String(e.number));
      var what = document.createElement("span");
      what.textContent = fill(say("hand"), "n", String(e.number)) + " · " + e.label;
      var state = document.createElement("span");
      state.className = "outbox-state";
      state.textContent = e.state === "refused" ? fill(say("refused"), "message", e.message)
        : e.id === sendingId ? say("sending") : say("waiting-one");
      li.appendChild(what);
      li.appendChild(document.createTextNode(" — "));
      li.appendChild(state);
      if (e.state === "refused") {
        var dismiss = document.createElement("button");
        dismiss.type = "button";
        dismiss.className = "button";
        dismiss.textContent = say("dismiss");
        dismiss.addEventListener("click", function () { remove(e.id).then(refresh); });
        li.appendChild(dismiss);
      }
      list.appendChild(li);
    });
    box.hidden = mine.length === 0;
    var record = document.getElementById("record-hand");
    var waiting = mine.filter(function (e) { return e.state === "waiting"; });
    if (record && record.getAttribute("data-label") && waiting.length) {
      var last = waiting[waiting.length - 1].number;
      record.textContent = fill(record.getAttribute("data-label"), "n", String(last + 1));
    }
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

  // the number of the hand being entered: the newest the server said, after what waits
  function numberFor(form, entries) {
    var table = form.getAttribute("data-outbox");
    var mine = { revision: Number(form.getAttribute("data-revision")), next: Number(form.getAttribute("data-number")) };
    var k = known(table);
    var next = k && k.revision > mine.revision ? k.next : mine.next;
    entries.forEach(function (e) {
      if (e.table === table && e.state === "waiting" && e.number >= next) next = e.number + 1;
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
        var dealer = document.querySelector("[data-dealer-line]");
        if (dealer) dealer.hidden = true;  // who deals it is the server's to say when it arrives
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
  drain();
})();
