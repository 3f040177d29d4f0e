// A message another script left for this page (outbox.js: "Hand 4 saved.", "not saved: …"),
// shown like the server's flash messages. Loaded without defer right after <main>, so
// the message is on the page as soon as the page is: nothing else.
(function () {
  "use strict";
  var text = null;
  try {
    text = window.sessionStorage.getItem("nap.note");
    window.sessionStorage.removeItem("nap.note");
  } catch (e) { return; }
  var main = document.querySelector("main");
  if (!text || !main) return;
  var p = document.createElement("p");
  p.className = "flash note";
  p.setAttribute("role", "status");
  p.textContent = text;
  main.insertBefore(p, main.firstChild);
})();
