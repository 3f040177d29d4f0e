// Big totals keeps the screen awake while it is open (Screen Wake Lock API, where the
// browser has it): a phone propped up in the middle of the table should not go dark.
// The browser drops the lock when the page is hidden; it is taken again when the page is
// shown. The system may also drop it while the page stays in view (battery saver, a
// system dialog): then it is asked for again at once. A refusal is not argued with: the
// next request waits until the page is shown again, so nothing loops. Without the API
// (or JavaScript) the phone simply follows its own settings.
(function () {
  "use strict";
  if (typeof navigator === "undefined" || !("wakeLock" in navigator)) return;
  var lock = null;
  var asking = false;
  var refused = false;   // refused while this showing of the page: wait for the next one
  var retakes = 0;       // taken again after a release, while this showing of the page
  var MOST_RETAKES = 5;  // a system that grants and drops at once is not asked forever

  function visible() { return document.visibilityState === "visible"; }

  function take() {
    if (!visible() || lock || asking || refused) return;
    asking = true;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      asking = false;
      lock = sentinel;
      document.documentElement.setAttribute("data-awake", "1");
      sentinel.addEventListener("release", function () {
        if (lock === sentinel) lock = null;
        document.documentElement.removeAttribute("data-awake");
        if (visible() && retakes < MOST_RETAKES) {
          retakes += 1;
          take();
        }
      });
    }).catch(function () {
      // refused (battery saver, no user gesture): ask again only when the page is next shown
      asking = false;
      refused = true;
    });
  }

  document.addEventListener("visibilitychange", function () {
    if (!visible()) return;
    refused = false;
    retakes = 0;
    take();
  });
  take();
})();
