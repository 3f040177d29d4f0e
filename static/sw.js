// The service worker (served at /sw.js, scope "/"): the scoresheet, quick entry and Big
// totals of the tables this phone has open load without a network. Pages are fetched
// network-first and the last good copy is kept; with no network the kept copy is shown
// (the page's netstate.js says "Offline since …"). Opening a scoresheet online also
// keeps a fresh copy of that table's quick entry and Big totals. Static files are
// network-first too, with the app's own scripts and styles kept from installation.
// Writes are never handled here: the page's outbox (outbox.js) keeps and sends them.
/* global workbox */
importScripts("/static/vendor/workbox/workbox-sw.js");
workbox.setConfig({ modulePathPrefix: "/static/vendor/workbox/", debug: false });

var PAGES = "nap-pages-v1";
var STATIC = "nap-static-v1";
var SHELL = [
  "/static/app.css", "/static/live.js", "/static/netstate.js", "/static/outbox.js", "/static/register-sw.js",
  "/static/note.js",
  "/static/quick.js",
  "/static/auction-draft.js",
  "/static/fresh.js",
  "/static/wakelock.js",
  "/static/icon.svg", "/static/icon-192.png", "/static/manifest.webmanifest",
];
// a table's scoresheet, quick entry and Big totals
var TABLE_PAGE = /^\/e\/([A-Za-z0-9_-]+)(\/quick|\/big)?$/;

var keepOk = {
  // keep only complete answers of the page asked for (not an error page, not a redirect)
  cacheWillUpdate: function (args) {
    var r = args.response;
    return Promise.resolve(r && r.status === 200 && !r.redirected ? r : null);
  },
};

// the pages vary by language and cookie: the phone's own copy is the one wanted
var MATCH = { ignoreVary: true };
var pages = new workbox.strategies.NetworkFirst(
  { cacheName: PAGES, networkTimeoutSeconds: 4, plugins: [keepOk], matchOptions: MATCH });
var statics = new workbox.strategies.NetworkFirst(
  { cacheName: STATIC, networkTimeoutSeconds: 4, plugins: [keepOk], matchOptions: MATCH });

function warm(origin, key) {
  // the table's other pages, kept for when the network is gone
  return caches.open(PAGES).then(function (cache) {
    return Promise.all(["/quick", "/big"].map(function (tail) {
      var url = origin + "/e/" + key + tail;
      return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
        if (r.status === 200 && !r.redirected) return cache.put(url, r);
        return undefined;
      }).catch(function () { return undefined; });
    }));
  });
}

workbox.routing.registerRoute(
  function (ctx) { return ctx.request.mode === "navigate" && ctx.sameOrigin && TABLE_PAGE.test(ctx.url.pathname); },
  function (ctx) {
    var match = TABLE_PAGE.exec(ctx.url.pathname);
    return pages.handle({ event: ctx.event, request: ctx.request }).then(function (response) {
      // a scoresheet fresh from the network: keep its quick entry and Big totals fresh too
      if (!match[2] && response && response.status === 200 && navigator.onLine !== false) {
        ctx.event.waitUntil(warm(ctx.url.origin, match[1]));
      }
      return response;
    });
  }
);

// quick entry posted while the network says it is there but is not: the hand is already in
// the page's outbox (outbox.js), so show the kept scoresheet, where it waits, not an error page
workbox.routing.registerRoute(
  function (ctx) { return ctx.request.mode === "navigate" && ctx.sameOrigin && /^\/e\/[A-Za-z0-9_-]+\/quick$/.test(ctx.url.pathname); },
  function (ctx) {
    return fetch(ctx.request).catch(function () {
      return Response.redirect(ctx.url.origin + ctx.url.pathname.replace(/\/quick$/, ""), 303);
    });
  },
  "POST"
);

workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && ctx.url.pathname.indexOf("/static/") === 0; },
  statics
);

// a table's running-totals chart (an <img> on the scoresheet): the last one drawn is
// shown offline instead of a broken picture
workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && /^\/e\/[A-Za-z0-9_-]+\/chart\.svg$/.test(ctx.url.pathname); },
  pages
);

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(STATIC).then(function (cache) { return cache.addAll(SHELL); }));
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});
