// The outbox's store: the commands this phone has not yet had answered, kept in IndexedDB
// ("nap-outbox", store "outbox", one entry per command, oldest first) so that a reload or
// a closed phone loses nothing; and what the server last said of each table (the next
// hand's number, by revision) in localStorage.

const DB = "nap-outbox";
const STORE = "outbox";

/** What every read or write of the outbox fails with when this phone cannot keep it:
 * IndexedDB refused to open (private mode, storage off), a transaction failed or was
 * aborted (the quota is exceeded, the disk is full). `cause`: the browser's error (a
 * DOMException such as QuotaExceededError), when it gave one. Issue 21, item 8. */
export class NotKept extends Error {
  constructor(cause) {
    super("this phone could not keep the outbox" + (cause && cause.name ? " (" + cause.name + ")" : ""));
    this.name = "NotKept";
    this.cause = cause || null;
  }
}

let opened = null;
function db() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => { req.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true }); };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(new NotKept(req.error));
      req.onblocked = () => reject(new NotKept(null));
    }).catch((e) => {
      opened = null;  // refused now: asked again next time (the phone may have room by then)
      throw e instanceof NotKept ? e : new NotKept(e);
    });
  }
  return opened;
}

function run(mode, fn) {
  return db().then((d) => new Promise((resolve, reject) => {
    let tx;
    let result;
    try {
      tx = d.transaction(STORE, mode);
      result = fn(tx.objectStore(STORE));
    } catch (e) {  // the connection was closed under us, a value it cannot store, …
      if (tx) { try { tx.abort(); } catch (ignored) { /* already over */ } }
      reject(new NotKept(e));
      return;
    }
    tx.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
    tx.onerror = tx.onabort = () => reject(new NotKept(tx.error));
  }));
}

/** Whether this browser can keep commands (else the forms post as they always did). */
export const usable = typeof indexedDB !== "undefined" && typeof fetch !== "undefined";

/** Every entry, oldest first. */
export function all() {
  return run("readonly", (s) => s.getAll()).then((rows) => (rows || []).sort((a, b) => a.id - b.id));
}
export function add(entry) { return run("readwrite", (s) => s.add(entry)); }
export function put(entry) { return run("readwrite", (s) => s.put(entry)); }
export function remove(id) { return run("readwrite", (s) => s.delete(id)); }
export function get(id) { return run("readonly", (s) => s.get(id)); }

/** Note the next hand's number of `table` as the server said it at `revision`. */
export function remember(table, revision, next) {
  try {
    const name = "nap.next." + table;
    const now = JSON.parse(localStorage.getItem(name) || "null");
    if (!now || revision >= now.revision) localStorage.setItem(name, JSON.stringify({ revision, next }));
  } catch (e) { /* private mode: the page's own number is used */ }
}

/** What the server last said of `table`: {revision, next}, or null. */
export function known(table) {
  try { return JSON.parse(localStorage.getItem("nap.next." + table) || "null"); } catch (e) { return null; }
}

/** A new command's token (docs/api.md, Idempotency). */
export function token() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.prototype.map.call(bytes, (b) => ("0" + b.toString(16)).slice(-2)).join("");
}
