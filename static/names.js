// One job: this phone remembers the players' names it has typed (localStorage) and
// offers them as suggestions (the <datalist id="known-names">) in every name field
// marked data-remember. Nothing leaves the phone; without JavaScript the fields are plain.
(function () {
  "use strict";
  var KEY = "nap.names";
  var LIMIT = 60;

  function load() {
    try {
      var names = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      return Array.isArray(names) ? names.filter(function (n) { return typeof n === "string"; }) : [];
    } catch (e) {
      return [];
    }
  }

  function save(typed) {
    var names = load();
    typed.forEach(function (name) {
      name = name.trim();
      if (!name) return;
      names = names.filter(function (n) { return n.toLowerCase() !== name.toLowerCase(); });
      names.unshift(name);  // the most recent first
    });
    try {
      window.localStorage.setItem(KEY, JSON.stringify(names.slice(0, LIMIT)));
    } catch (e) { /* private mode or full: suggestions are a nicety */ }
  }

  function fill(list) {
    list.textContent = "";
    load().forEach(function (name) {
      var option = document.createElement("option");
      option.value = name;
      list.appendChild(option);
    });
  }

  function start() {
    var list = document.getElementById("known-names");
    if (list) fill(list);
    document.querySelectorAll("form").forEach(function (form) {
      if (!form.querySelector("[data-remember]")) return;
      form.addEventListener("submit", function () {
        var typed = [];
        form.querySelectorAll("[data-remember]").forEach(function (field) { typed.push(field.value); });
        save(typed);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
