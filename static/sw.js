// The service worker (served at /sw.js, scope "/", by scorer/views/offline.py, which puts
// its settings before this file as self.NAP: the version, the shell and the routes, all
// made by the server from the templates, the static files and Flask's URL rules).
// A table's scoresheet, quick entry, full form, hands' pages and correction forms, undo
// page and Big totals load without a network: pages are fetched network-first and the
// last good copy is kept; with no network the kept copy is shown (netstate.js says
// "Offline since …"). Opening a scoresheet online also keeps a fresh copy of the table's
// other pages and of its last hand's page and correction form, all in one answer
// (GET /e/<key>/kept), once per revision of the table (a scoresheet at a revision already
// warmed warms nothing; one the server puts off while it is busy, 503, is asked once more
// after its Retry-After); so does a change the
// page's live part shows (live.js asks by a message, and places each change in the kept
// copy of the page). Static files under hashed names
// (scorer/web/static_names.py) are taken from the kept shell without asking; any other
// static file is network-first too, the shell kept from installation. The caches are named by the version (a hash of
// what they hold): a new worker carries what the old ones kept into its own, then deletes them, when it takes over. Writes are never
// kept here: the page's outbox (outbox*.js) keeps and sends them as JSON commands. A
// write (POST) goes to the network as it is; when the network does not answer, the answer
// says it was not saved (issue 21, item 8), never a kept page as if it were: a JSON command
// gets 503 {"kept": false, "error": {"code": "offline", "message"}}, a form's post a
// "Not saved" page (503) whose link goes back to the form. Its words are in the table's
// language: the page registers /sw.js?lang=<lang> (register-sw.js), NAP.words.
/* global workbox */
var NAP = self.NAP;
// Workbox (core, routing, strategies) comes in this very answer, before this file
// (scorer/web/views/offline.py): an update check of the worker is one request, not five
var PAGES = "nap-pages-" + NAP.version;
var STATIC = "nap-static-" + NAP.version;
var PAGE_ROUTES = NAP.pages.map(function (source) { return new RegExp(source); });
var CHART = new RegExp(NAP.chart);

// the table page `path` is, as {key, number, sheet: whether it is the scoresheet}; null: none
function tablePage(path) {
  for (var i = 0; i < PAGE_ROUTES.length; i++) {
    var match = PAGE_ROUTES[i].exec(path);
    if (match) return { key: match.groups.key, number: match.groups.number, sheet: i === 0 };
  }
  return null;
}

function pathOf(template, key, number) {
  return template.split("{key}").join(key).split("{number}").join(String(number));
}

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

// the revision each table's pages were last kept at, or are being kept at now (this
// worker's lifetime): a scoresheet at the same revision warms nothing (issue 23 item 1)
var warmedAt = {};
var warming = {};

function warm(origin, key, sheet) {
  // the table's other pages, kept for when the network is gone: the last hand's too, all
  // in one answer (/e/<key>/kept?last=N, each page made by its own route: issue 23 item 1)
  return sheet.text().then(function (html) {
    var next = /data-next-hand="(\d+)"/.exec(html);
    var revision = /data-revision="(\d+)"/.exec(html);
    return { last: next && Number(next[1]) > 1 ? Number(next[1]) - 1 : 0, revision: revision ? revision[1] : null };
  }).catch(function () {
    return { last: 0, revision: null };
  }).then(function (seen) {
    if (seen.revision !== null && (warmedAt[key] === seen.revision || warming[key] === seen.revision)) {
      return undefined;
    }
    warming[key] = seen.revision;
    var url = origin + pathOf(NAP.kept, key) + (seen.last ? "?last=" + seen.last : "");
    // a busy server puts the warm-up off (503 {"later": true}, Retry-After: issue 23 item 2): asked
    // once more after that wait (a little more, so that a room's phones do not come back at
    // once), unless a newer revision is being kept by then; still busy, the table's next change asks
    function ask(again) {
      return fetch(url, WARM).then(function (r) {
        if (r.status === 503 && again) {
          // only a warm-up put off (not another 503: a database away, a proxy's page), after 1-60 s
          var after = Math.min(60, Math.max(1, Number(r.headers.get("Retry-After")) || 10));
          return r.json().catch(function () { return {}; }).then(function (answer) {
            if (!answer || answer.later !== true) return false;
            return new Promise(function (done) { setTimeout(done, after * (1 + Math.random() / 2) * 1000); })
              .then(function () { return warming[key] === seen.revision ? ask(false) : false; });
          });
        }
        if (r.status !== 200 || r.redirected) return false;
        return r.json().then(function (answer) {
          return caches.open(PAGES).then(function (cache) { return keepAll(cache, origin, answer.pages || []); });
        });
      });
    }
    return ask(true).catch(function () { return false; }).then(function (kept) {
      if (seen.revision !== null && kept) warmedAt[key] = seen.revision;
      if (warming[key] === seen.revision) delete warming[key];
    });
  });
}

// a warm-up asks as a phone's own page would (its cookies), never from the HTTP cache, and
// says it is one (X-Nap-Warm): the server then neither takes nor leaves a message in the
// session and writes no cookie for it (scorer/web/quiet.py, issue 25 item 5)
var WARM = { credentials: "same-origin", cache: "no-store", headers: { "X-Nap-Warm": "1" } };

// each page of the answer kept under its own address, one after the other; true when all are
function keepAll(cache, origin, pages) {
  return pages.reduce(function (done, page) {
    return done.then(function (ok) {
      var response = new Response(page.html, { status: 200, headers: page.headers });
      return cache.put(origin + page.path, response).then(function () { return ok; }, function () { return false; });
    });
  }, Promise.resolve(true));
}

workbox.routing.registerRoute(
  function (ctx) { return ctx.request.mode === "navigate" && ctx.sameOrigin && tablePage(ctx.url.pathname) !== null; },
  function (ctx) {
    var page = tablePage(ctx.url.pathname);
    return pages.handle({ event: ctx.event, request: ctx.request }).then(function (response) {
      // a scoresheet fresh from the network: keep the table's other pages fresh too
      if (page.sheet && response && response.status === 200 && navigator.onLine !== false) {
        ctx.event.waitUntil(warm(ctx.url.origin, page.key, response.clone()));
      }
      return response;
    });
  }
);

// the fresh page live.js fetches to swap in (a table page's own address, with the header
// X-Nap-Live): from the network only, and kept as that page's offline copy before the page
// gets it, so that a reload with no network (or with the server down) never shows an older
// score than the page already showed. (Fetched past the worker, the copy kept was the one
// of the last navigation, and a reload went back to it: the table-chaos test found it.)
workbox.routing.registerRoute(
  function (ctx) {
    return ctx.sameOrigin && ctx.request.mode !== "navigate" && ctx.request.method === "GET" &&
      ctx.request.headers.get("X-Nap-Live") === "1" && tablePage(ctx.url.pathname) !== null;
  },
  function (ctx) {
    return fetch(ctx.request).then(function (response) {
      if (response.status !== 200 || response.redirected) return response;
      var kept = response.clone();
      return caches.open(PAGES).then(function (cache) { return cache.put(ctx.request.url, kept); })
        .then(function () { return response; }, function () { return response; });
    });
  }
);

// a page's live part changed (live.js): keep the table's scoresheet and its other pages fresh
self.addEventListener("message", function (event) {
  var page = tablePage((event.data && event.data.warm) || "");
  if (!page) return;
  var origin = self.location.origin;
  var sheet = origin + pathOf(NAP.sheet, page.key);
  event.waitUntil(fetch(sheet, WARM).then(function (r) {
    if (r.status !== 200 || r.redirected) return undefined;
    return caches.open(PAGES).then(function (cache) { return cache.put(sheet, r.clone()); })
      .then(function () { return warm(origin, page.key, r); });
  }).catch(function () { return undefined; }));
});

// ---------------------------------------------------------------- writes: never kept here
var WORDS = NAP.words || {};

function esc(text) {
  return String(text || "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function wantsJson(request, url) {
  return url.pathname.indexOf("/api/") === 0 || (request.headers.get("Accept") || "").indexOf("json") !== -1 ||
    (request.headers.get("Content-Type") || "").indexOf("json") !== -1;
}

// what a write the network did not answer gets: nothing was saved, and it says so
function notKept(request, url) {
  var headers = { "Cache-Control": "no-store" };
  if (wantsJson(request, url)) {
    headers["Content-Type"] = "application/json";
    return new Response(JSON.stringify({ kept: false, error: { code: "offline", message: WORDS.json } }),
                        { status: 503, headers: headers });
  }
  headers["Content-Type"] = "text/html; charset=utf-8";
  var back = request.referrer && new URL(request.referrer).origin === url.origin ? request.referrer : url.href;
  var html = "<!doctype html><html lang=\"" + esc(WORDS.lang) + "\"><head><meta charset=\"utf-8\">" +
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" + esc(WORDS.title) + "</title>" +
    "<link rel=\"stylesheet\" href=\"" + NAP.css + "\"></head><body><main class=\"not-kept\">" +
    "<h1>" + esc(WORDS.title) + "</h1><p class=\"errors\" role=\"alert\">" + esc(WORDS.page) + "</p>" +
    "<p><a class=\"button\" href=\"" + esc(back) + "\" onclick=\"history.back(); return false;\">" +
    esc(WORDS.back) + "</a></p></main></body></html>";
  return new Response(html, { status: 503, headers: headers });
}

workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin; },
  function (ctx) {
    return fetch(ctx.request).catch(function () { return notKept(ctx.request, ctx.url); });
  },
  "POST"
);

// the phone's engine (static/phone.js starts it on a scorer's phone only): Pyodide's runtime at
// its pinned version and the engine bundle with its worker, each kept cache-first under a cache
// named by its hash (NAP.pyodide, NAP.engine), so that it is there offline and a new version of
// the app does not fetch Pyodide's 13 MB again
var PYODIDE = "nap-pyodide-" + NAP.pyodide;
var ENGINE = "nap-engine-" + NAP.engine;
var ENGINE_FILES = /^\/(engine\/nap-engine\.zip|static\/engine\/)/;
workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && ENGINE_FILES.test(ctx.url.pathname); },
  new workbox.strategies.CacheFirst({ cacheName: ENGINE, plugins: [keepOk] })
);
workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && ctx.url.pathname.indexOf("/static/vendor/pyodide/") === 0; },
  new workbox.strategies.CacheFirst({ cacheName: PYODIDE, plugins: [keepOk] })
);

// a static file under its hashed name (scorer/web/static_names.py) never changes: the kept
// copy is used without asking; any other static file is asked for first
var HASHED = /\.[0-9a-f]{12}\.[A-Za-z0-9]+$/;
var kept = new workbox.strategies.CacheFirst({ cacheName: STATIC, plugins: [keepOk], matchOptions: MATCH });
workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && ctx.url.pathname.indexOf("/static/") === 0 && HASHED.test(ctx.url.pathname); },
  kept
);
workbox.routing.registerRoute(
  function (ctx) { return ctx.sameOrigin && ctx.url.pathname.indexOf("/static/") === 0; },
  statics
);

// a table's running-totals chart (an <img> on the scoresheet): the last one drawn is
// shown offline instead of a broken picture
workbox.routing.registerRoute(function (ctx) { return ctx.sameOrigin && CHART.test(ctx.url.pathname); }, pages);

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(STATIC).then(function (cache) { return cache.addAll(NAP.shell); }));
  self.skipWaiting();
});

// copy into `into` each entry of the cache `name` it does not hold yet
function carry(name, into) {
  return Promise.all([caches.open(name), caches.open(into)]).then(function (both) {
    return both[0].keys().then(function (requests) {
      return Promise.all(requests.map(function (request) {
        return both[1].match(request, MATCH).then(function (held) {
          if (held) return undefined;
          return both[0].match(request, MATCH).then(function (old) { return old && both[1].put(request, old); });
        });
      }));
    });
  });
}

// this version's caches only: the ones an older worker filled are deleted, but what they
// kept is carried over first. A new version (a deploy) must not cost the phone the pages
// it kept for offline: deleted, the correction form and the table's other pages were gone
// until the next scoresheet online, and a phone whose network dropped meanwhile got no
// page at all (found by tests/test_offline.py while the files changed under a run). The
// pages carried link the old hashed static files, so those are carried too (a file that
// did not change has the same hashed name: nothing is doubled).
self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    var old = names.filter(function (name) {
      return /^nap-(pages|static|pyodide|engine)-/.test(name) &&
        [PAGES, STATIC, PYODIDE, ENGINE].indexOf(name) < 0;
    });
    // the pages and the static files they use are carried over; the engine's caches are
    // named by their contents' hashes, so an old one holds nothing the new one wants
    var carried = old.filter(function (name) { return /^nap-(pages|static)-/.test(name); });
    return Promise.all(carried.map(function (name) {
      return carry(name, name.indexOf("nap-pages-") === 0 ? PAGES : STATIC).catch(function () { return undefined; });
    })).then(function () {
      return Promise.all(old.map(function (name) { return caches.delete(name); }));
    });
  }).then(function () { return self.clients.claim(); }));
});
