// The service worker (served at /sw.js, scope "/"): the scoresheet, quick entry, the full
// form, a hand's page and its correction form, the undo page and Big totals of the
// tables this phone has open load without a network. Pages are fetched network-first
// and the last good copy is kept; with no network the kept copy is shown (the page's
// netstate.js says "Offline since …"). Opening a scoresheet online also keeps a fresh
// copy of that table's quick entry, full form, undo page and Big totals, and of its
// last hand's page and correction form; so does a change the page's live part shows
// (live.js asks by a message). Static files are network-first too, with the
// app's own scripts and styles kept from installation. Writes are never handled here:
// the page's outbox (outbox.js, fullform.js) keeps and sends them.
/* global workbox */
importScripts("/static/vendor/workbox/workbox-sw.js");
workbox.setConfig({ modulePathPrefix: "/static/vendor/workbox/", debug: false });

var PAGES = "nap-pages-v1";
var STATIC = "nap-static-v1";
var SHELL = [
  "/static/app.css", "/static/live.js", "/static/netstate.js", "/static/outbox.js", "/static/register-sw.js",
  "/static/note.js", "/static/fullform.js",
  "/static/quick.js",
  "/static/auction-draft.js",
  "/static/fresh.js",
  "/static/wakelock.js",
  "/static/icon.svg", "/static/icon-192.png", "/static/manifest.webmanifest",
];
// a table's scoresheet, quick entry, Big totals, full form, undo page, a hand and its correction form
var TABLE_PAGE = /^\/e\/([A-Za-z0-9_-]+)(\/quick|\/big|\/hand|\/undo|\/hand\/\d+|\/hand\/\d+\/edit)?$/;
// the forms whose post is already in the page's outbox (a backup under the form's token)
var KEPT_POST = /^\/e\/[A-Za-z0-9_-]+\/(quick|hand|undo|hand\/\d+\/edit)$/;

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

function warm(origin, key, sheet) {
  // the table's other pages, kept for when the network is gone: the last hand's too
  return sheet.text().then(function (html) {
    var next = /data-next-hand="(\d+)"/.exec(html);
    var tails = ["/quick", "/big", "/hand", "/undo"];
    if (next && Number(next[1]) > 1) tails.push("/hand/" + (Number(next[1]) - 1), "/hand/" + (Number(next[1]) - 1) + "/edit");
    return tails;
  }).catch(function () { return ["/quick", "/big"]; }).then(function (tails) {
    return caches.open(PAGES).then(function (cache) { return fetchAll(cache, origin, key, tails); });
  });
}

function fetchAll(cache, origin, key, tails) {
  return Promise.all(tails.map(function (tail) {
    var url = origin + "/e/" + key + tail;
    return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.status === 200 && !r.redirected) return cache.put(url, r);
      return undefined;
    }).catch(function () { return undefined; });
  }));
}

workbox.routing.registerRoute(
  function (ctx) { return ctx.request.mode === "navigate" && ctx.sameOrigin && TABLE_PAGE.test(ctx.url.pathname); },
  function (ctx) {
    var match = TABLE_PAGE.exec(ctx.url.pathname);
    return pages.handle({ event: ctx.event, request: ctx.request }).then(function (response) {
      // a scoresheet fresh from the network: keep the table's other pages fresh too
      if (!match[2] && response && response.status === 200 && navigator.onLine !== false) {
        ctx.event.waitUntil(warm(ctx.url.origin, match[1], response.clone()));
      }
      return response;
    });
  }
);

// quick entry, the full form, a correction or undo posted while the network says it is there
// but is not: the command is already in the page's outbox (outbox.js), so show the kept
// scoresheet, where it waits, not an error page
workbox.routing.registerRoute(
  function (ctx) { return ctx.request.mode === "navigate" && ctx.sameOrigin && KEPT_POST.test(ctx.url.pathname); },
  function (ctx) {
    return fetch(ctx.request).catch(function () {
      return Response.redirect(ctx.url.origin + /^\/e\/[A-Za-z0-9_-]+/.exec(ctx.url.pathname)[0], 303);
    });
  },
  "POST"
);

// a page's live part changed (live.js): keep the table's scoresheet and its other pages fresh
self.addEventListener("message", function (event) {
  var match = TABLE_PAGE.exec((event.data && event.data.warm) || "");
  if (!match) return;
  var origin = self.location.origin;
  var sheet = origin + "/e/" + match[1];
  event.waitUntil(fetch(sheet, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
    if (r.status !== 200 || r.redirected) return undefined;
    return caches.open(PAGES).then(function (cache) { return cache.put(sheet, r.clone()); })
      .then(function () { return warm(origin, match[1], r); });
  }).catch(function () { return undefined; }));
});

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
