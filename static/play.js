// The record of play without a page load per card: progressive enhancement of the
// form in templates/play.html. A tap on a card adds it to the tricks shown in the page
// and to the hidden "record" field ("AS 2S 3S 4S|KS …"); Undo and Clear work in the
// page too; Save posts the whole record once and the server reads and checks it
// (scorer/rules/play.py). Without JavaScript every tap posts the form, as before.
// The declarer leads the first trick, the winner of each trick leads the next
// (P-9, P-11, H-9, R-10, B-7, B-9); the highest trump wins, else the highest card of
// the suit led; trump is the named suit (B-7) or the suit of the first lead: all of it
// is rules.walkTricks, checked against the engine's reading of records.
import { walkTricks } from "./rules.js";

(function () {
  var form = document.querySelector("form[data-play]");
  if (!form || form.dataset.enhance !== "1") return;
  var players = JSON.parse(form.dataset.players);
  var n = players.length;
  var declarer = Number(form.dataset.declarer);
  var named = form.dataset.trump || "";
  var field = form.querySelector("input[name=record]");
  var list = document.getElementById("play-tricks");
  var cards = document.getElementById("play-cards");
  var next = document.getElementById("play-next");
  var tricks = (field.value || "").split("|")
    .map(function (t) { return t.trim() ? t.trim().split(/\s+/) : []; })
    .filter(function (t) { return t.length > 0; });

  // who played each card, who won each complete trick, and who plays next (null: nobody)
  function walk() { return walkTricks(tricks, n, declarer, named); }

  function strong(text) {
    var el = document.createElement("strong");
    el.textContent = text;
    return el;
  }

  // a player's name isolated from the cards and arrows beside it (<bdi>), as the server's page has it
  function bdi(name) {
    var el = document.createElement("bdi");
    el.textContent = name;
    return el;
  }

  function render() {
    var w = walk();
    field.value = tricks.map(function (t) { return t.join(" "); }).join("|");
    list.textContent = "";
    tricks.forEach(function (trick, t) {
      var li = document.createElement("li");
      trick.forEach(function (card, i) {
        if (i > 0) li.appendChild(document.createTextNode(" · "));
        li.appendChild(bdi(players[w.seats[t][i]]));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(strong(card));
      });
      if (t < w.winners.length) {
        li.appendChild(document.createTextNode(" → "));
        var winner = document.createElement("strong");
        winner.appendChild(bdi(players[w.winners[t]]));
        li.appendChild(winner);
      }
      list.appendChild(li);
    });
    list.hidden = tricks.length === 0;
    var played = {};
    tricks.forEach(function (t) { t.forEach(function (c) { played[c] = true; }); });
    form.querySelectorAll("button[name=card]").forEach(function (b) { b.hidden = !!played[b.value]; });
    cards.hidden = w.next === null;
    next.textContent = "";
    if (w.next !== null) {  // "X plays:", the name in a <bdi>
      var parts = form.dataset.plays.split("{who}");
      parts.forEach(function (part, i) {
        if (i > 0) next.appendChild(bdi(players[w.next]));
        if (part) next.appendChild(document.createTextNode(part));
      });
    }
    form.querySelectorAll("button[name=undo], button[name=clear]").forEach(function (b) {
      b.hidden = tricks.length === 0;
    });
    var reading = document.getElementById("play-reading");  // the server's reading of the record it sent
    if (reading) reading.hidden = true;
  }

  form.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button || !form.contains(button)) return;
    var last = tricks[tricks.length - 1];
    if (button.name === "card") {
      if (walk().next === null) { event.preventDefault(); return; }
      if (!last || last.length === n) tricks.push([button.value]);
      else last.push(button.value);
    } else if (button.name === "undo") {
      if (last) { last.pop(); if (!last.length) tricks.pop(); }
    } else if (button.name === "clear") {
      tricks = [];
    } else {
      return;  // Save: the form posts the whole record once
    }
    event.preventDefault();
    render();
    var focus = cards.hidden ? form.querySelector("button[name=save]")
      : form.querySelector("button[name=card]:not([hidden])");
    if (focus && (button.hidden || button.name === "clear")) focus.focus();
  });
})();
