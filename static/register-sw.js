// Install the service worker (static/sw.js, served at /sw.js for the whole site), which
// keeps the tables' pages for when the network is gone, registered with the page's
// language (<html lang>) so that what it says offline ("Not saved") is in that language.
// Nothing else.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  var lang = document.documentElement.getAttribute("lang") || "";
  navigator.serviceWorker.register("/sw.js?lang=" + encodeURIComponent(lang), { scope: "/" }).catch(function () {
    // no service worker (private mode, plain HTTP off localhost): the app works online as before
  });
})();
