// What changed, for the phones around the table: when live.js swaps in a fresh score
// (another phone saved or corrected a hand), the hands and totals that changed are
// highlighted for a few seconds and announced to screen readers (a polite live region):
// "Hand 7: Bob Three, 4 tricks".
(function () {
  "use strict";
  var region = document.createElement("p");
  region.className = "sr-only";
  region.setAttribute("aria-live", "polite");
  region.setAttribute("role", "status");
  document.body.appendChild(region);

  function byId(root, selector) {
    var map = {};
    root.querySelectorAll(selector).forEach(function (node, i) { map[node.id || String(i)] = node; });
    return map;
  }

  function mark(node) {
    node.classList.add("fresh");
    setTimeout(function () { node.classList.remove("fresh"); }, 4000);
  }

  document.addEventListener("nap:swapped", function (event) {
    var before = event.detail.before;
    var after = event.detail.after;
    var said = [];
    var old = byId(before, "tbody[id^=hand-]");
    after.querySelectorAll("tbody[id^=hand-]").forEach(function (hand) {
      var was = old[hand.id];
      if (was && was.innerHTML === hand.innerHTML) return;
      mark(hand);
      var what = hand.querySelector(".what td");
      said.push((what ? what.textContent : hand.textContent).replace(/\s+/g, " ").trim());
    });
    var totals = byId(before, ".bigtotals li, .total");
    after.querySelectorAll(".bigtotals li, .total").forEach(function (total, i) {
      var was = totals[total.id || String(i)];
      if (was && was.textContent === total.textContent) return;
      mark(total);
      if (!said.length || after.classList.contains("bigtotals")) said.push(total.textContent.replace(/\s+/g, " ").trim());
    });
    if (said.length) region.textContent = said.slice(0, 3).join(". ");
  });
})();
