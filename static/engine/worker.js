// The phone's engine in a dedicated worker (a module worker, started by static/phone.js on a
// scorer's page only): Pyodide and the engine bundle (static/engine/engine.mjs), started once and
// kept for the page's life. Each message {id, file, waiting, lang} (the server's last evening file,
// the facts of the hands waiting in the outbox, in order, the page's language) is answered
// {id, report, refused} (refused.text: the refusal in that language, as the server words it): the
// provisional rulings of scorer/evening/provisional.py with `nap settle --json`'s report. A
// message without `file` only starts the engine ({id, ready: true}). Errors: {id, error}.
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
import { PROVISIONAL_PY, startEngine } from "./engine.mjs";

let engine = null;

function start() {
  if (!engine) {
    engine = (async () => {
      // built by the server from the source it runs (scorer/web/views/offline.py)
      const answer = await fetch(new URL("/engine/nap-engine.zip", self.location.href));
      if (!answer.ok) throw new Error("no engine bundle (" + answer.status + ")");
      const pyodide = await startEngine(loadPyodide, await answer.arrayBuffer());
      pyodide.runPython(PROVISIONAL_PY);
      return pyodide.globals.get("_nap_provisional");
    })();
    engine.catch(() => { engine = null; });  // a failed start may be tried again
  }
  return engine;
}

self.onmessage = async (event) => {
  const { id, file, waiting, lang } = event.data || {};
  try {
    const provisional = await start();
    if (file === undefined) {
      self.postMessage({ id, ready: true });
      return;
    }
    self.postMessage({ id, ...JSON.parse(provisional(file, JSON.stringify(waiting || []), lang || "en")) });
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
  }
};
