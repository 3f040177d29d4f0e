// Provisional rulings on a scorer's phone (README "The engine on the phone"): while hands wait
// in the outbox (outbox-view.js) the phone settles them with the server's own engine, run in a
// worker (static/engine/worker.js: Pyodide), from the server's last state (its evening file,
// /e/<key>/evening.json, kept in localStorage), and shows the totals, the pool and each waiting
// hand's ruling with its rule ids at once, marked "provisional" (dashed tiles, italic figures).
// The server's answer replaces them: the totals part is swapped by live.js when the hands are in.
//
// While the engine runs on this page and the network is down, "Record hand" opens quick entry
// in this same page (its <main> fetched through the service worker and swapped in, the URL
// pushed), and its save comes back to this scoresheet's nodes, kept as they were: the worker
// started once serves every tap (a new page would start Pyodide again, seconds on a phone).
// At the tap, the hand is settled after the waiting ones first (window.napEngine.check): one
// the rules refuse is refused there, in the server's words and the page's language, and is not
// kept. A hand's page and its correction form (the full form) open in place the same way, and a
// correction is checked at its tap after what waits ({correct: N, facts}: provisional.py); once
// it waits, the provisional totals show it. Online, or without the engine, each is its own page
// as before.
//
// Costly things happen only where they help: the engine starts when the network drops, or on an
// idle page of a phone that lost the network in the last half hour (its files are then fetched
// once and kept by the service worker, so the next outage finds them); the evening file is kept
// only on such a phone. Without WebAssembly, workers or storage, or when the engine fails, the
// page is exactly as before: hands "waiting to send".
import { differences, differsBody, provisionalOf } from "./ruling-diff.js";
import { say } from "./words.js";

const LOST = "nap.engine.lost";  // when this phone last lost the network (ms since the epoch)
const RECENT = 30 * 60 * 1000;
const SLOW = 3000;  // ms: a tap's check the engine has not answered by then is left to the server
const box = document.querySelector("[data-outbox-list]");
const live = document.querySelector("[data-live][data-revision]");

function read(name) {
  try { return JSON.parse(localStorage.getItem(name) || "null"); } catch (e) { return null; }
}
function write(name, value) {
  try { localStorage.setItem(name, JSON.stringify(value)); } catch (e) { /* full or refused: none kept */ }
}
function idle(fn) { (self.requestIdleCallback || ((f) => setTimeout(f, 200)))(fn); }
function signed(n) {
  const text = new Intl.NumberFormat(document.documentElement.lang || undefined).format(Math.abs(n));
  return n > 0 ? "+" + text : n < 0 ? "\u2212" + text : "0";
}

function main() {
  const table = box.getAttribute("data-outbox-list");
  const sheet = box.getAttribute("data-sheet");
  const KEPT = "nap.evening." + table;
  let worker = null;
  let entries = [];
  let asked = 0;
  const checks = new Map();  // id → resolve, of the checks asked at a tap (napEngine.check)
  let shown = null;  // the provisional ruling last shown (ruling-diff.provisionalOf), to compare with the server's

  const recentlyLost = () => Date.now() - (Number(read(LOST)) || 0) < RECENT;

  // the server's evening file at the revision this page shows (online only, on a phone that
  // lost the network lately)
  function keep() {
    const revision = live.getAttribute("data-revision");
    const kept = read(KEPT);
    if ((kept && kept.revision === revision) || !navigator.onLine) return;
    fetch(sheet + "/evening.json", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : null))
      .then((text) => { if (text) write(KEPT, { revision, text }); })
      .catch(() => {});
  }

  let ready = false;
  let failures = 0;

  function startWorker() {
    if (!worker) {
      try {
        worker = new Worker(new URL("./engine/worker.js", import.meta.url), { type: "module" });
      } catch (e) {
        return;  // no module workers: as before
      }
      worker.onmessage = (event) => answered(event.data || {});
      worker.onerror = (event) => {
        console.warn("nap engine: the worker failed", event && event.message);  // eslint-disable-line no-console
        worker = null; ready = false; document.documentElement.removeAttribute("data-engine");
        // a start that failed just as the network came back: tried again a little later, a few times
        failures += 1;
        if (navigator.onLine && failures < 4) setTimeout(startWorker, 3000 * failures);
      };
    }
    if (!ready) worker.postMessage({ id: 0 });  // start it now (again, after a start that failed)
  }

  function clear() {
    box.classList.remove("provisional");
    document.querySelectorAll(".provisional-note, .provisional-ruling").forEach((el) => el.remove());
    const totals = document.querySelector(".totals.provisional");
    if (!totals) return;
    totals.classList.remove("provisional");
    totals.querySelectorAll(".pts[data-server]").forEach((el) => {
      el.textContent = el.getAttribute("data-server");
      el.removeAttribute("data-server");
    });
  }

  // the hands and corrections that wait, in order ([] when an undo or anything else waits: the server's to say)
  function waitingHands() {
    const mine = entries.filter((e) => e.table === table && e.state === "waiting");
    if (mine.some((e) => !["hand", "correct"].includes(e.kind || "hand"))) return [];
    return mine;
  }
  const isHand = (e) => (e.kind || "hand") === "hand";
  // what the worker settles of a waiting entry: a new hand's facts, or {correct: N, facts} (provisional.py)
  function itemOf(e) {
    const facts = (e.body && e.body.facts) || e.facts;
    return isHand(e) ? facts : { correct: e.number, facts };
  }

  function ask() {
    const waiting = waitingHands();
    const kept = read(KEPT);
    if (!worker || !ready || !waiting.length || !kept) { clear(); return; }
    asked += 1;
    worker.postMessage({ id: asked, file: kept.text, waiting: waiting.map(itemOf), lang: document.documentElement.lang });
  }

  function answered(data) {
    if (checks.has(data.id)) { checks.get(data.id)(data); checks.delete(data.id); return; }
    if (data.ready) { ready = true; document.documentElement.setAttribute("data-engine", "ready"); ask(); return; }
    if (data.error) console.warn("nap engine:", data.error);  // eslint-disable-line no-console
    if (data.id !== asked || data.error || !data.report) { if (data.error) clear(); return; }
    const report = data.report;
    const waiting = waitingHands();
    const accepted = waiting.slice(0, data.refused ? data.refused.index : waiting.length);  // in the report
    const first = report.hands.length - accepted.filter(isHand).length;  // the server's own hands come first
    const news = waiting.filter(isHand);
    clear();
    if (!waiting.length) return;
    // the kept file is not what they follow
    if (news.length ? news[0].number !== first + 1 : waiting.some((e) => e.number > first)) return;
    shown = data.refused ? null : provisionalOf(report, news.map((e) => e.number));
    show(report, waiting, first, data.refused);
  }

  function show(report, waiting, first, refused) {
    const totals = document.querySelector(".totals");
    if (!totals) return;
    totals.classList.add("provisional");
    box.classList.add("provisional");  // the outbox's folded line says so (outbox-view.js)
    document.querySelectorAll(".later-note").forEach((el) => el.remove());
    const tiles = totals.querySelectorAll(".total:not(.pool) .pts");
    report.players.forEach((name, i) => {
      const el = tiles[i];
      if (!el) return;
      el.setAttribute("data-server", el.textContent);
      el.textContent = signed(report.totals[name]);
    });
    const pool = totals.querySelector(".total.pool .pts");
    if (pool) {
      pool.setAttribute("data-server", pool.textContent);
      pool.textContent = new Intl.NumberFormat(document.documentElement.lang || undefined).format(report.pool);
    }
    const note = document.createElement("p");
    note.className = "provisional-note";
    note.textContent = say("provisional-note");
    totals.parentNode.insertBefore(note, totals);
    waiting.forEach((e, i) => {
      const row = document.querySelector(`.outbox-entry[data-number="${e.number}"][data-kind="${e.kind || "hand"}"]`);
      if (!row) return;
      const span = document.createElement("span");
      span.className = "provisional-ruling";
      if (refused && i === refused.index) {
        span.classList.add("refused");
        span.textContent = say("provisional") + ": " + (refused.text || refused.message);
      } else if (!refused || i < refused.index) {
        const hand = report.hands[e.number - 1];  // a correction: the hand it corrects, as corrected
        if (!hand) return;
        const moves = Object.entries(hand.entries).filter(([, v]) => v).map(([k, v]) => k + " " + signed(v));
        span.textContent = say("provisional") + ": " + moves.join(", ") + " · " + hand.rules.join(" ");
      }
      if (span.textContent) row.appendChild(span);
    });
  }

  // every hand shown provisionally is on the server: its ruling stands; if it is not the one shown,
  // the phone says so and tells the server (POST /api/e/<key>/differs: logged there)
  function compare() {
    const provisional = shown;
    const api = box.getAttribute("data-api");
    if (!provisional || !api || waitingHands().length || !navigator.onLine) return;
    shown = null;
    fetch(api, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((state) => {
        const differ = differences(provisional, state);
        if (!differ || !differ.length) return;
        differs();
        fetch(api + "/differs", {
          method: "POST", credentials: "same-origin", cache: "no-store",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(differsBody(provisional, state)),
        }).catch(() => {});
      })
      .catch(() => {});
  }

  // The hand tapped on quick entry or the full form (`correct`: the number of the hand a correction
  // corrects), settled after those that wait: the refusal ({rule, text}) when the rules refuse it,
  // null when they do not or cannot say (no engine, an undo waiting, no kept evening, a slow or
  // failed worker: then the hand goes to the outbox as before).
  function check(facts, correct) {
    const waiting = waitingHands();
    const kept = read(KEPT);
    const mine = entries.filter((e) => e.table === table && e.state === "waiting");
    if (!worker || !ready || !kept || waiting.length !== mine.length) return Promise.resolve(null);
    const id = "tap-" + (checks.size + 1) + "-" + Date.now();
    const all = waiting.map(itemOf).concat([correct ? { correct, facts } : facts]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { checks.delete(id); resolve(null); }, SLOW);
      checks.set(id, (data) => {
        clearTimeout(timer);
        const refused = data && !data.error && data.refused;
        resolve(refused && refused.index === all.length - 1 ? refused : null);
      });
      worker.postMessage({ id, file: kept.text, waiting: all, lang: document.documentElement.lang });
    });
  }
  window.napEngine = { check };

  // quick entry in this page (above): the scoresheet's nodes are kept aside while it is shown
  const main = document.querySelector("main");
  const sheetUrl = location.href.split("#")[0];
  // this table's hand page and its correction form (/e/<key>/hand/N[/edit]): in place too, offline
  const HAND_PAGE = new RegExp("^" + new URL(sheet, location.href).pathname.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "/hand/\\d+(/edit)?$");
  let aside = null;  // the scoresheet's nodes and title while quick entry is shown
  let opening = false;

  function openQuick(href, push) {
    if (opening) return Promise.resolve();
    opening = true;
    // the copy the service worker keeps of the page (offline), else the network
    const kept = self.caches ? caches.match(href, { ignoreVary: true }).catch(() => null) : Promise.resolve(null);
    return kept.then((r) => r || fetch(href, { credentials: "same-origin" }))
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((text) => {
        const doc = new DOMParser().parseFromString(text, "text/html");
        const there = doc.querySelector("main");
        // quick entry, the full form (a correction), or a hand's page on the way to its correction
        const form = there && there.querySelector("form[data-outbox], form[data-full-form]");
        if (!form && !(there && HAND_PAGE.test(new URL(href, location.href).pathname))) throw new Error("not in place");
        const scripts = Array.from(there.querySelectorAll("script")).map((el) => ({ src: el.src, module: el.type === "module" }));
        there.querySelectorAll("script").forEach((el) => el.remove());
        if (form) form.setAttribute("data-in-place", "");
        if (!aside) {
          const nodes = document.createDocumentFragment();
          while (main.firstChild) nodes.appendChild(main.firstChild);
          aside = { nodes, title: document.title, scroll: window.scrollY };
        }
        main.replaceChildren(...Array.from(there.childNodes).map((n) => document.importNode(n, true)));
        document.title = doc.title;
        if (push) history.pushState({ nap: "quick" }, "", href);
        window.scrollTo(0, 0);
        const classic = scripts.filter((s) => !s.module && s.src);
        const modules = scripts.filter((s) => s.module && s.src);
        classic.forEach((s) => {  // quick.js: runs again on the new form
          const el = document.createElement("script");
          el.src = s.src;
          main.appendChild(el);
        });
        return Promise.all(modules.map((s) => import(s.src))).then((loaded) => {
          const quick = main.querySelector("form[data-outbox]");
          const full = main.querySelector("form[data-full-form]");
          const options = { back: () => backToSheet(true) };
          loaded.forEach((mod) => { if (mod.quickEntry && quick) mod.quickEntry(quick, options); });
          // the full form's module is the page's own (base.html: its hashed name), loaded already
          const own = document.querySelector("script[type=module][src*='/static/fullform.']");
          if (full && own) return import(own.src).then((mod) => mod.fullForm(full, options));
          return undefined;
        });
      })
      .finally(() => { opening = false; });
  }

  function backToSheet(push) {
    if (!aside) return;
    main.replaceChildren(aside.nodes);
    document.title = aside.title;
    const scroll = aside.scroll;
    aside = null;
    if (push) history.pushState({ nap: "sheet" }, "", sheetUrl);
    window.scrollTo(0, scroll);
    later({ detail: { entries } });  // said above the totals until the engine rules (or if it never does)
    // the page is back: drawn again over what waits (outbox-view.js: the list, "Record hand N", the
    // dealer line), and the provisional totals asked for (below)
    window.dispatchEvent(new CustomEvent("nap:live", { detail: { revision: Number(live.getAttribute("data-revision")) } }));
  }

  document.addEventListener("click", (ev) => {
    const away = ev.target && ev.target.closest ? ev.target.closest("a[href]") : null;
    if (aside && away && away.href.split("#")[0] === sheetUrl && !ev.defaultPrevented && !ev.button) {
      ev.preventDefault();  // quick entry's "← evening": the scoresheet kept aside, not a new page
      backToSheet(true);
      return;
    }
    const link = ev.target && ev.target.closest ? ev.target.closest("#record-hand, a[href]") : null;
    if (link && link.id !== "record-hand" && !(link.origin === location.origin && HAND_PAGE.test(link.pathname) && !link.search)) return;
    if (!link || !worker || !ready || navigator.onLine || ev.defaultPrevented || ev.button || ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
    ev.preventDefault();
    openQuick(link.href, true).catch((why) => {
      console.warn("nap: not in place:", String(why));  // eslint-disable-line no-console
      location.assign(link.href);
    });
  });
  window.addEventListener("popstate", (ev) => {
    if (ev.state && ev.state.nap === "quick") {
      openQuick(location.href, false).catch(() => location.reload());
    } else if (aside) {
      backToSheet(false);
    }
  });

  window.addEventListener("nap:outbox", (event) => {
    entries = (event.detail && event.detail.entries) || entries;
    ask();
    if (!entries.some((e) => e.table === table && e.state === "waiting")) compare();
  });
  window.addEventListener("nap:live", () => { if (recentlyLost()) idle(keep); ask(); });
  window.addEventListener("offline", () => { write(LOST, Date.now()); startWorker(); });
  window.addEventListener("online", () => idle(() => { keep(); startWorker(); }));
  if (!navigator.onLine) startWorker();
  else if (recentlyLost()) idle(() => { keep(); startWorker(); });
}

// "The server ruled differently…": one line above the scoresheet (outside its live part, which a
// fresh page replaces), once
function differs() {
  if (document.querySelector(".differs-note")) return;
  const live = document.querySelector("[data-live]");
  if (!live) return;
  const note = document.createElement("p");
  note.className = "flash differs-note";
  note.setAttribute("role", "status");
  note.textContent = say("differs");
  live.parentNode.insertBefore(note, live);
}

// A scorer's phone keeps what it has not sent (the outbox, the evening file): it asks the browser
// to keep the site's storage when space runs short (a viewer's phone, which keeps nothing, never asks)
if (box && navigator.storage && navigator.storage.persist) {
  navigator.storage.persisted().then((kept) => kept || navigator.storage.persist()).catch(() => {});
}

// While hands wait offline and no engine rules on them (no WebAssembly, a first outage, a start
// that failed or has not finished), the phone says once, above the totals, when rulings come.
function later(event) {
  const entries = (event.detail && event.detail.entries) || [];
  const table = box.getAttribute("data-outbox-list");
  const waiting = entries.some((e) => e.table === table && e.state === "waiting");
  const ruled = document.querySelector(".totals.provisional");
  let note = document.querySelector(".later-note");
  if (!waiting || navigator.onLine || ruled) { if (note) note.remove(); return; }
  const totals = document.querySelector(".totals");
  if (note || !totals) return;
  note = document.createElement("p");
  note.className = "later-note";
  note.setAttribute("role", "status");
  note.textContent = say("rulings-later");
  totals.parentNode.insertBefore(note, totals);
}

if (box) {
  window.addEventListener("nap:outbox", later);
  window.addEventListener("online", () => later({ detail: {} }));
}

if (box && live && typeof WebAssembly === "object" && typeof Worker === "function" && typeof localStorage !== "undefined") {
  main();
}
