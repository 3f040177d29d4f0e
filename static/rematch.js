// Rematch (issue 25 item 8): the button under a closed evening's winners sends the JSON
// command POST /api/e/<key>/rematch and opens the new evening it names (made now, or the
// one another phone made first), with the server's words for it as the page's note
// (static/note.js shows it as a flash message). A form placed by a live update carries no CSRF token,
// so with JavaScript the command is always the JSON one; without JavaScript the form
// posts (a fresh page has its token). A refusal is shown under the button.
(function () {
  "use strict";
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-rematch-api")) return;
    ev.preventDefault();
    var button = form.querySelector("button[type=submit]");
    if (button) {
      if (button.disabled) return;
      button.disabled = true;
    }
    fetch(form.getAttribute("data-rematch-api"), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" }, body: "{}"
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).then(function (got) {
      if (got.ok && got.answer.url) {
        try { window.sessionStorage.setItem("nap.note", String(got.answer.message || "")); } catch (e) { /* no note */ }
        window.location.assign(got.answer.url);
        return;
      }
      var error = got.answer.error || {};
      show(form, error.message || String(got.answer.message || ""));
    }).catch(function () {
      form.submit();  // no answer (offline?): the form post says why
    }).then(function () { if (button) button.disabled = false; });
  });

  function show(form, text) {
    var box = form.querySelector(".error-box");
    if (!box) {
      box = document.createElement("p");
      box.className = "error-box";
      box.setAttribute("role", "alert");
      form.appendChild(box);
    }
    box.textContent = text;
  }
})();
