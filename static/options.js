// Hide the options that do not apply: a <div data-applies="opt_end" data-values="hands ">
// is shown only while the field opt_end has one of the listed values (a ticked checkbox
// counts as "checked"). Without JavaScript every option stays shown; the server keeps
// an option that does not apply but leaves it out of the scoresheet, rules and PDF.
(function () {
  "use strict";
  var blocks = document.querySelectorAll("[data-applies]");
  if (!blocks.length) return;
  function current(name) {
    var inputs = document.getElementsByName(name);
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i];
      if (input.type === "checkbox") return input.checked ? "checked" : "";
      if (input.type === "radio") {
        if (input.checked) return input.value;
      } else {
        return input.value;
      }
    }
    return "";
  }
  function update() {
    for (var i = 0; i < blocks.length; i++) {
      var wanted = blocks[i].getAttribute("data-values").split(" ");
      blocks[i].hidden = wanted.indexOf(current(blocks[i].getAttribute("data-applies"))) < 0;
    }
  }
  document.addEventListener("change", update);
  update();
})();
