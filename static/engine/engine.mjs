// The engine under Pyodide: one start-up shared by the phone's worker (static/engine/worker.js)
// and the command line (static/engine/settle.mjs). Pyodide (CPython compiled to WebAssembly) is
// vendored under static/vendor/pyodide/ by scripts/setup; the engine comes as one zip built from
// the server's own source (scorer/web/engine_bundle.py): scorer.rules, scorer.evening, the
// evening file's schema and its jsonschema stack. Nothing here knows a rule of the game.

/** The folder of Pyodide's runtime files, next to this module (static/vendor/pyodide/). */
export const PYODIDE_DIR = new URL("../vendor/pyodide/", import.meta.url);

/** Where the bundle is unpacked in Pyodide's file system (put first on sys.path). */
export const ENGINE_DIR = "/engine";

/**
 * Start Pyodide and load the engine bundle.
 * @param {Function} loadPyodide  the vendored pyodide.mjs's loadPyodide
 * @param {ArrayBuffer|Uint8Array} bundle  the engine zip's bytes
 * @param {object} [options]  more options for loadPyodide (indexURL defaults to PYODIDE_DIR)
 * @returns {Promise<object>} the Pyodide instance, with the engine importable
 */
export async function startEngine(loadPyodide, bundle, options = {}) {
  const pyodide = await loadPyodide({
    indexURL: PYODIDE_DIR.protocol === "file:" ? decodeURIComponent(PYODIDE_DIR.pathname) : PYODIDE_DIR.href,
    stdout: () => {},
    stderr: () => {},
    ...options,
  });
  // a plain Uint8Array (Pyodide refuses Node's Buffer subclass)
  const bytes = ArrayBuffer.isView(bundle)
    ? new Uint8Array(bundle.buffer, bundle.byteOffset, bundle.byteLength)
    : new Uint8Array(bundle);
  pyodide.unpackArchive(bytes, "zip", { extractDir: ENGINE_DIR });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(ENGINE_DIR)})`);
  return pyodide;
}

/** The Python that runs `nap settle --json PATH` and answers [exit status, stdout, stderr]. */
export const SETTLE_PY = `
def _nap_settle(path, as_json=True):
    import contextlib, io
    from scorer.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["settle", "--json", path] if as_json else ["settle", path])
    return [status, out.getvalue(), err.getvalue()]
`;

/** The Python of provisional rulings (scorer/evening/provisional.py): the server's last evening
 * file, the waiting hands' facts (JSON) and the page's language in, {"report": `nap settle --json`'s
 * report of the evening with them, "refused": null or {"index", "number", "rule", "message",
 * "text"}} (JSON) out; "text" is the refusal as the server's answer words it, in that language
 * (scorer/evening/said.py, with the server's catalogs carried in the bundle). Its imports run once,
 * when the engine starts, not at the first tap. */
export const PROVISIONAL_PY = `
import json
from scorer.cli.main import ledger_report
from scorer.evening.provisional import provisional
from scorer.evening.said import language_of, refusal_text

def _nap_provisional(server_file, waiting, language="en"):
    evening, ledger, refused = provisional(server_file, json.loads(waiting))
    no = None if refused is None else {"index": refused.index, "number": refused.number,
                                       "rule": refused.rule, "message": str(refused.message),
                                       "text": refusal_text(refused.message, refused.rule, language_of(language))}
    return json.dumps({"report": ledger_report(evening, ledger), "refused": no}, ensure_ascii=False)
`;
