// A message another script left for this page ("Hand 4 saved.", "not saved: …"), shown
// like the server's flash messages. After a hand the page's script saved, the scoresheet
// shows it as after the form's post: "Hand 4 saved · Undo", while that hand is the last
// one; the Undo is a form that undo.js sends as the JSON undo command (data-undo-now).
// Loaded without defer right after <main>, so the message is on the page as soon as the
// page is, before the modules that handle the Undo start.
(function () {
  "use strict";
  var text = null;
  var saved = null;
  try {
    text = window.sessionStorage.getItem("nap.note");
    saved = JSON.parse(window.sessionStorage.getItem("nap.note.saved") || "null");
    window.sessionStorage.removeItem("nap.note");
    window.sessionStorage.removeItem("nap.note.saved");
  } catch (e) { return; }
  var main = document.querySelector("main");
  if (!text || !main) return;
  var note = document.createElement("p");
  note.className = "flash note";
  note.setAttribute("role", "status");
  note.textContent = text;
  var box = document.querySelector("[data-outbox-list][data-undo-api]");
  var next = document.querySelector("[data-next-hand]");
  var words = document.getElementById("netstate");
  if (saved && box && next && words && Number(next.getAttribute("data-next-hand")) === saved.number + 1) {
    note = document.createElement("div");
    note.className = "flash saved note";
    note.setAttribute("role", "status");
    var span = document.createElement("span");
    span.textContent = text;
    var form = document.createElement("form");
    form.setAttribute("data-undo-form", box.getAttribute("data-outbox-list"));
    form.setAttribute("data-undo-now", "");
    form.setAttribute("data-api", box.getAttribute("data-undo-api"));
    form.setAttribute("data-sheet", box.getAttribute("data-sheet"));
    [["number", saved.number], ["version", saved.version], ["hand_id", saved.id]].forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = String(pair[1]);
      form.appendChild(input);
    });
    var button = document.createElement("button");
    button.className = "button";
    button.type = "submit";
    button.textContent = words.getAttribute("data-undo-now");
    form.appendChild(button);
    note.appendChild(span);
    note.appendChild(form);
  }
  main.insertBefore(note, main.firstChild);
})();
