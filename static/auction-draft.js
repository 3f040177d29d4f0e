// russian36: the call-by-call auction survives a reload and leaving the page until the
// hand is saved. Each call is a round trip to the server; after it, the page's
// address becomes ?dealer=…&calls=… (so a reload shows the same auction instead of posting
// the last call again) and the auction is kept on this phone per table and hand number.
// Opening the hand again with no calls restores the kept auction. The server checks every
// call again; without JavaScript the form works as before.
(function () {
  "use strict";
  var form = document.querySelector("form[data-auction-draft]");
  if (!form || !window.localStorage || !window.history || !history.replaceState) return;
  var parts = form.getAttribute("data-auction-draft").split("/");
  var prefix = "nap.auction." + parts[0] + ".";
  var key = prefix + parts[1];
  var calls = (form.querySelector("input[name=calls]") || {}).value || "";
  var dealer = form.getAttribute("data-dealer");
  var base = location.pathname;

  function forgetOlder() {  // drafts of hands already saved are of no use
    for (var i = localStorage.length - 1; i >= 0; i--) {
      var k = localStorage.key(i);
      if (k && k.indexOf(prefix) === 0 && Number(k.slice(prefix.length)) < Number(parts[1])) localStorage.removeItem(k);
    }
  }

  try {
    forgetOlder();
    if (calls) {
      localStorage.setItem(key, JSON.stringify({ dealer: dealer, calls: calls }));
      history.replaceState(null, "", base + "?dealer=" + encodeURIComponent(dealer) + "&calls=" + encodeURIComponent(calls));
    } else if (location.search.indexOf("calls=") === -1 && localStorage.getItem(key)) {
      var kept = JSON.parse(localStorage.getItem(key));
      if (kept && kept.calls) {
        location.replace(base + "?dealer=" + encodeURIComponent(kept.dealer) + "&calls=" + encodeURIComponent(kept.calls));
        return;
      }
    } else {
      localStorage.removeItem(key);  // every call undone: nothing to keep
      if (location.search.indexOf("calls=") !== -1) history.replaceState(null, "", base);
    }
  } catch (e) { /* private mode or full storage: the auction is simply not kept */ }

  form.addEventListener("submit", function (ev) {
    var button = ev.submitter;
    if (button && (button.name === "save" || button.name === "misdeal")) {
      try { localStorage.removeItem(key); } catch (e) { /* nothing kept */ }
    }
  });
})();
