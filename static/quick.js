// Quick entry offers only what it can save. A Wellington or Blücher overcalls a bid made
// earlier in the same round (P-7, H-7), so the player who bid Nap (or Wellington) must
// speak before the declarer: the others are greyed out and cannot be tapped. In
// napoleao, "Everyone passed" makes the dealer the declarer (B-6): the tap selects the
// dealer and asks for the bid instead of saving. When one player only speaks before the
// declarer, that player is tapped as the Nap (or Wellington) bidder. Without JavaScript
// the server does all three.
(function () {
  "use strict";
  var form = document.querySelector("form.quick");
  if (!form) return;

  function speaks(input) {
    var label = input.closest("label");
    return label ? Number(label.getAttribute("data-speaks")) : 0;
  }

  // the one player who can have bid it is tapped for the table (and untapped again when
  // another declarer leaves more than one); the server does the same on saving
  function onlyOne(name, declared) {
    var open = Array.prototype.filter.call(form.querySelectorAll("input[name=" + name + "]"),
                                           function (input) { return !input.disabled; });
    open.forEach(function (input) {
      if (input.hasAttribute("data-only") && (open.length !== 1 || !declared)) {
        input.removeAttribute("data-only");
        input.checked = false;
      }
    });
    if (declared && open.length === 1 && !form.querySelector("input[name=" + name + "]:checked")) {
      open[0].checked = true;
      open[0].setAttribute("data-only", "");
    }
  }

  function limitEarlier() {
    var declarer = form.querySelector("input[name=declarer]:checked");
    var limit = declarer ? speaks(declarer) : Infinity;
    form.querySelectorAll("input[name=nap_by], input[name=wellington_by]").forEach(function (input) {
      var later = speaks(input) >= limit;
      input.disabled = later;
      input.closest("label").classList.toggle("later", later);
      if (later) { input.checked = false; input.removeAttribute("data-only"); }
    });
    onlyOne("nap_by", !!declarer);
    onlyOne("wellington_by", !!declarer);
  }

  form.addEventListener("change", function (event) {
    if (event.target.name === "declarer") limitEarlier();
  });
  limitEarlier();

  var allPass = form.querySelector("button[data-dealer-declares]");
  if (allPass) {
    allPass.addEventListener("click", function (event) {
      event.preventDefault();
      var dealer = form.querySelector("input[name=declarer][value='" + allPass.getAttribute("data-dealer-declares") + "']");
      if (dealer) { dealer.checked = true; limitEarlier(); }
      var note = document.getElementById("dealer-declares");
      if (!note) {
        note = document.createElement("p");
        note.id = "dealer-declares";
        note.className = "flash";
        note.setAttribute("role", "status");
        note.textContent = allPass.getAttribute("data-note");
        form.parentNode.insertBefore(note, form);
      }
      var contract = form.querySelector("input[name=contract]");
      if (contract) contract.focus();
    });
  }
})();
