// The full form, a correction (its claim included) and undo with no network: each
// becomes the JSON command it will send (docs/api.md) and waits in the outbox
// (outbox.js, window.napOutbox), shown at once on the scoresheet as "waiting to send",
// and sent in order with the rest:
//   a new hand    POST /api/e/<key>/hands                      {"number", "facts", "token"}
//   a correction  POST /api/e/<key>/hands/<hand_id>/versions   {"version", "facts", "token"}
//   undo          POST /api/e/<key>/undo                       {"hand_id", "version"}
// The facts are the form's, players by name; a correction carries what the form does not
// show (further claims, the record of play, an override) as the page's hand had them,
// as the form post does. Online (nothing waiting) the forms post as they always did, the
// outbox keeping the command under the form's own token as a backup. Undo with hands
// still waiting on this phone takes back the last of them (it was never sent).
// Without JavaScript (or IndexedDB) the forms post as they always did.
(function () {
  "use strict";
  var box = window.napOutbox;
  if (!box) return;
  var say = box.say, fill = box.fill;

  function noop() { return undefined; }
  function checked(form, name) {
    var input = form.querySelector("input[name='" + name + "']:checked");
    return input ? input.value : null;
  }
  function ticked(form, name) {
    var input = form.querySelector("input[name='" + name + "']");
    return !!(input && input.checked);
  }
  function text(form, name) {
    var input = form.querySelector("input[name='" + name + "']");
    return input ? input.value.trim() : "";
  }
  function offline(table) { return navigator.onLine === false || box.waiting(table) > 0; }

  // the form posted as always, once the outbox could not keep the command
  function post(form, button) {
    var keep = document.createElement("input");
    keep.type = "hidden";
    keep.name = button.name;
    keep.value = button.value;
    form.appendChild(keep);
    HTMLFormElement.prototype.submit.call(form);
  }

  // --- the form's facts (HandFormBase.hand_data, by name) ----------------------------
  function claimOf(form, names) {
    var kind = checked(form, "claim_kind");
    if (!kind) return null;
    var seat = function (value) { return value && names[Number(value)] !== undefined ? names[Number(value)] : null; };
    var claim = { kind: kind, accused: seat(checked(form, "claim_accused")), upheld: checked(form, "claim_upheld") !== "no" };
    var by = seat(checked(form, "claim_by"));
    if (by !== null) claim.by = by;
    var trick = checked(form, "claim_trick");
    if (trick) claim.trick = Number(trick);
    var suit = checked(form, "claim_suit");
    if (suit) claim.suit_led = suit;
    var card = text(form, "claim_card").toUpperCase();
    if (card) claim.card = card;
    var evidence = text(form, "claim_evidence").toUpperCase();
    if (evidence) claim.evidence = evidence;
    var held = text(form, "claim_cards_held");
    if (/^\d+$/.test(held)) claim.cards_held = Number(held);
    if (ticked(form, "claim_before")) claim.before_speaking = true;
    return claim;
  }

  function speaking(dealer, n) {
    var order = [];
    for (var i = 0; i < n; i++) order.push((dealer + 1 + i) % n);
    return order;
  }

  function factsOf(form, button, names) {
    var dealer = Number(checked(form, "dealer"));
    if (!(dealer >= 0 && dealer < names.length)) return null;  // the server explains
    if (button.name === "misdeal") return { dealer: names[dealer], misdeal: true };
    var auction = form.hasAttribute("data-sequence") ? text(form, "calls").split(",").filter(Boolean)
      : speaking(dealer, names.length).map(function (seat) { return checked(form, "call_" + seat) || "pass"; });
    var facts = { dealer: names[dealer], auction: auction };
    var tricks = checked(form, "tricks");
    if (tricks) facts.tricks = Number(tricks);
    var trump = checked(form, "trump");
    if (trump) facts.trump = trump;
    if (ticked(form, "purchase")) facts.purchase = true;
    if (ticked(form, "widow")) facts.widow = true;
    var peeks = names.filter(function (name, seat) { return ticked(form, "peek_" + seat); });
    if (peeks.length) facts.peeks = peeks;
    var claim = claimOf(form, names);
    if (claim) facts.claims = [claim];
    return facts;
  }

  // a correction keeps what the form does not show, as the form post does (hands.py _facts_from)
  function withKept(facts, kept) {
    if (kept.override) facts.override = kept.override;
    if (facts.misdeal) return facts;
    var claims = (facts.claims || []).concat((kept.claims || []).slice(1));
    if (claims.length) facts.claims = claims;
    if (kept.record) facts.record = kept.record;
    return facts;
  }

  // "Bob · Three · 3 · ⚑ Revoke": what was typed, for the outbox's list
  function labelOf(form, facts, names) {
    if (facts.misdeal) return say("misdeal");
    var parts = [];
    if (form.hasAttribute("data-sequence")) {
      var said = form.querySelector("fieldset p.next strong");
      if (said) parts.push(said.textContent.trim());
    } else {
      var top = null;
      speaking(names.indexOf(facts.dealer), names.length).forEach(function (seat) {
        var input = form.querySelector("input[name='call_" + seat + "']:checked");
        var pill = input && input.closest("label");
        if (input && input.value !== "pass") top = names[seat] + " · " + (pill.getAttribute("data-name") || box.labelOf(input));
      });
      parts.push(top || say("all-passed"));
    }
    if (facts.tricks !== undefined) parts.push(String(facts.tricks));
    var kind = form.querySelector("input[name=claim_kind]:checked");
    if (facts.claims && kind) parts.push("⚑ " + box.labelOf(kind));
    return parts.join(" · ");
  }

  // --- a new hand: its number and dealer come after the hands waiting on this phone --
  function placeNewHand(form, names) {
    var table = form.getAttribute("data-full-form");
    box.all().then(function (entries) {
      var number = box.numberFor(form, entries);
      var shown = Number(form.getAttribute("data-number"));
      if (number === shown) return;
      var seat = box.dealerFor(table, shown, Number(checked(form, "dealer")), box.seatedOrder(form, names.length), entries,
                               number);
      var title = form.parentNode.querySelector("h1");
      if (title) title.textContent = fill(say("hand"), "n", String(number));
      Array.prototype.forEach.call(form.querySelectorAll("button[name=save]"), function (b) {  // "Save hand N"
        b.textContent = b.textContent.replace(String(shown), String(number));
      });
      var line = form.parentNode.querySelector("p.next");
      if (line) line.hidden = true;  // the speaking-order marks are the kept page's
      if (seat === null) return;
      var radio = form.querySelector("input[name=dealer][value='" + seat + "']");
      if (radio) radio.checked = true;
    }).catch(noop);
  }

  function after(form, entry, now) {
    var sheet = form.getAttribute("data-sheet");
    var page = sheet + "/hand/" + entry.number;
    if (!now) {  // sent and saved
      box.leaveNote(fill(say(entry.kind === "correct" ? "corrected" : "saved"), "n", String(entry.number)));
      location.assign(entry.kind === "correct" ? page : sheet + "#hand-" + entry.number);
    } else if (now.state === "refused" && now.status === 422) {  // the rules refuse it: fix it here
      return box.remove(now.id).then(function () {
        box.showError(form, fill(say("refused"), "message", now.message));
        return "again";
      });
    } else if (now.state === "refused") {  // another phone changed it first: the server's version, and ours beside it
      box.leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
      location.assign(now.taken || entry.kind === "correct" ? sheet + "/hand/" + now.number : sheet);
    } else {  // no network: it waits, and goes by itself
      location.assign(sheet);
    }
    return undefined;
  }

  function fullForm(form) {
    var table = form.getAttribute("data-full-form");
    var names = JSON.parse(form.getAttribute("data-players") || "[]");
    var editing = form.hasAttribute("data-editing");
    var kept = editing ? JSON.parse(form.getAttribute("data-kept") || "{}") : null;
    var busy = false;
    if (!editing) placeNewHand(form, names);

    form.addEventListener("submit", function (ev) {
      var button = ev.submitter;
      if (!button) return;
      if (button.name === "call" || button.name === "undo_call") {  // a step of the auction: the server's
        if (navigator.onLine !== false) return;
        ev.preventDefault();
        box.showError(form, say("needs-network"));
        return;
      }
      if (button.name !== "save" && button.name !== "misdeal") return;
      if (busy) { ev.preventDefault(); return; }  // a double tap saves once
      var facts = factsOf(form, button, names);
      if (!facts) return;
      var own = text(form, "token");
      var entry = { table: table, kind: "hand", api: form.getAttribute("data-api") + "/hands",
                    number: Number(text(form, "number")) || Number(form.getAttribute("data-number")) };
      if (editing) {
        var handId = Number(text(form, "hand_id"));
        var version = Number(text(form, "version"));
        if (!(handId > 0 && version > 0)) return;  // the server explains
        facts = withKept(facts, kept);
        entry.kind = "correct";
        entry.api = form.getAttribute("data-api") + "/hands/" + handId + "/versions";
        entry.hand_id = handId;
        entry.body = { version: version, facts: facts, token: own || box.token() };
        entry.label = fill(say("correct"), "n", String(entry.number)) + " · " + labelOf(form, facts, names);
      } else {
        entry.body = { facts: facts, token: own || box.token() };
        entry.label = labelOf(form, facts, names);
      }
      busy = true;
      if (!offline(table)) {  // online: the form posts as always, its command kept as a backup
        entry.quiet = true;
        box.queue(entry).catch(noop);
        return;
      }
      ev.preventDefault();
      box.all().then(function (entries) {
        if (editing) {  // a correction of a correction that waits: based on what that one saves
          var before = entries.filter(function (e) {
            return e.table === table && e.state === "waiting" && !e.quiet && e.hand_id === entry.hand_id;
          });
          if (before.length) entry.follows = before[before.length - 1].id;
        } else {
          entry.number = box.numberFor(form, entries);
        }
        entry.body.token = box.token();  // a kept page's token is the same on every visit: one each
        return box.queue(entry);
      }).then(function (now) {
        return after(form, entry, now);
      }).then(function (outcome) {
        if (outcome === "again") busy = false;
      }).catch(function () { post(form, button); });
    });
  }

  // --- undo ---------------------------------------------------------------------------
  function undoForm(form) {
    var table = form.getAttribute("data-undo-form");
    var sheet = form.getAttribute("data-sheet");
    var button = form.querySelector("button[type=submit]");
    var takeBack = null;
    box.all().then(function (entries) {
      var hands = entries.filter(function (e) {
        return e.table === table && e.state === "waiting" && !e.quiet && (e.kind || "hand") === "hand";
      });
      if (!hands.length) return;
      takeBack = hands[hands.length - 1];  // the last hand is one that waits here: it is taken back
      var title = document.querySelector("[data-undo-title]");
      if (title) title.textContent = fill(title.getAttribute("data-undo-title"), "n", String(takeBack.number));
      var what = document.querySelector("[data-undo-what]");
      if (what) what.textContent = takeBack.label;
      var units = document.querySelector("[data-undo-units]");
      if (units) units.hidden = true;
      if (button) button.textContent = fill(say("undo"), "n", String(takeBack.number));
    }).catch(noop);

    form.addEventListener("submit", function (ev) {
      if (takeBack) {
        ev.preventDefault();
        var gone = takeBack;
        takeBack = null;
        box.remove(gone.id).then(function () {
          box.leaveNote(fill(say("taken-back"), "n", String(gone.number)));
          location.assign(sheet);
        }).catch(noop);
        return;
      }
      var number = Number(text(form, "number"));
      var handId = Number(text(form, "hand_id"));
      var version = Number(text(form, "version"));
      if (!(number > 0 && handId > 0 && version > 0)) return;
      var entry = { table: table, kind: "undo", api: form.getAttribute("data-api"), number: number, hand_id: handId,
                    body: { hand_id: handId, version: version }, label: fill(say("undo"), "n", String(number)) };
      if (!offline(table)) {
        entry.quiet = true;
        box.queue(entry).catch(noop);
        return;
      }
      ev.preventDefault();
      if (button) button.disabled = true;
      box.all().then(function (entries) {
        var before = entries.filter(function (e) {
          return e.table === table && e.state === "waiting" && !e.quiet && e.hand_id === handId;
        });
        if (before.length) entry.follows = before[before.length - 1].id;  // undo what its correction saved
        return box.queue(entry);
      }).then(function (now) {
        if (!now) box.leaveNote(fill(say("undone"), "n", String(number)));
        else if (now.state === "refused") box.leaveNote(fill(say("refused"), "message", now.message) + " (" + now.label + ")");
        location.assign(sheet);
      }).catch(function () { HTMLFormElement.prototype.submit.call(form); });
    });
  }

  var full = document.querySelector("form[data-full-form]");
  if (full) fullForm(full);
  var undo = document.querySelector("form[data-undo-form]");
  if (undo) undoForm(undo);
})();
