// Install the service worker (static/sw.js, served at /sw.js for the whole site), which
// keeps the tables' pages for when the network is gone. Nothing else.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
    // no service worker (private mode, plain HTTP off localhost): the app works online as before
  });
})();
