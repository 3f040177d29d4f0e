// Big totals keeps the screen awake while it is open (Screen Wake Lock API, where the
// browser has it): a phone propped up in the middle of the table should not go dark.
// The lock is dropped by the browser when the page is hidden and taken again when it
// is shown. Without the API (or JavaScript) the phone simply follows its own settings.
(function () {
  "use strict";
  if (!("wakeLock" in navigator)) return;
  var lock = null;

  function take() {
    if (document.visibilityState !== "visible" || lock) return;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      document.documentElement.setAttribute("data-awake", "1");
      sentinel.addEventListener("release", function () {
        lock = null;
        document.documentElement.removeAttribute("data-awake");
      });
    }).catch(function () { /* refused (battery saver, no user gesture): nothing to do */ });
  }

  document.addEventListener("visibilitychange", take);
  take();
})();
