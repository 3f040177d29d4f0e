#!/usr/bin/env node
// node static/engine/settle.mjs [--text] FILE
// node static/engine/settle.mjs [--text] --serve     (file names on stdin, JSON answers on stdout)
//
// Settles an evening file with the phone's engine (the server's own Python engine under
// Pyodide, static/engine/engine.mjs) and prints exactly what `nap settle --json FILE` prints:
// the same standard output, the same refusal on standard error ("nap: FILE: message (rule)"),
// the same exit status (0, or 2 for a file that cannot be read or settled). --text prints the
// text table of `nap settle FILE`. Needs Node 18+ and `./scripts/setup` (which puts Pyodide and
// the engine bundle under static/vendor/pyodide/); NAP_ENGINE_BUNDLE names another bundle.
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { PROVISIONAL_PY, PYODIDE_DIR, SETTLE_PY, startEngine } from "./engine.mjs";

const args = process.argv.slice(2);
const asJson = !args.includes("--text");
const serve = args.includes("--serve");
const files = args.filter((a) => a !== "--text" && a !== "--serve");
if (files.length !== (serve ? 0 : 1)) {
  process.stderr.write("usage: node static/engine/settle.mjs [--text] FILE | [--text] --serve\n");
  process.exit(2);
}
const file = files[0];

const bundlePath = process.env.NAP_ENGINE_BUNDLE || new URL("nap-engine.zip", PYODIDE_DIR);
let loadPyodide;
let bundle;
try {
  ({ loadPyodide } = await import(new URL("pyodide.mjs", PYODIDE_DIR)));
  bundle = readFileSync(bundlePath);
} catch (error) {
  process.stderr.write(`settle.mjs: Pyodide or the engine bundle is missing under ${PYODIDE_DIR.pathname} ` +
                       `(run ./scripts/setup): ${error.message}\n`);
  process.exit(3);
}
const pyodide = await startEngine(loadPyodide, bundle);
pyodide.runPython(SETTLE_PY);
pyodide.runPython(PROVISIONAL_PY);

// The file goes into Pyodide's own file system at the same absolute path, and Python's working
// folder is this one, so FILE names it as it does for `nap` (and its errors quote it the same).
const FS = pyodide.FS;
const here = process.cwd();
FS.mkdirTree(here);
FS.chdir(here);
const settle = pyodide.globals.get("_nap_settle");

/** [exit status, stdout, stderr] of `nap settle --json NAME` (or the text table), run by Pyodide. */
function settleFile(name, json) {
  const where = resolve(name);
  try {
    if (statSync(where).isDirectory()) {
      FS.mkdirTree(where); // Python says "Is a directory", as nap does
    } else {
      FS.mkdirTree(dirname(where));
      FS.writeFile(where, readFileSync(where));
    }
  } catch {
    // unreadable or missing: Python finds nothing there and says so, as nap does
  }
  try {
    const answer = settle(name, json);
    const result = answer.toJs();
    answer.destroy();
    return result;
  } finally {
    try {
      FS.analyzePath(where).exists && (FS.isDir(FS.stat(where).mode) ? FS.rmdir(where) : FS.unlink(where));
    } catch {
      // a folder that is not empty stays
    }
  }
}

if (serve) {
  // One Pyodide for many files (tests/test_engine_parity.py): one file name per line on standard
  // input, one JSON line [status, stdout, stderr] per file on standard output.
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  // A line that is a JSON array [FILE, [facts, ...], LANG?] asks for the provisional rulings of
  // the waiting hands after the evening FILE (static/engine/worker.js's answer, as JSON text; a
  // refusal's words in LANG, English by default).
  const provisional = pyodide.globals.get("_nap_provisional");
  for await (const line of lines) {
    if (line.startsWith("[")) {
      const [name, waiting, lang] = JSON.parse(line);
      process.stdout.write(JSON.stringify(provisional(readFileSync(name, "utf-8"), JSON.stringify(waiting),
                                                      lang || "en")) + "\n");
    } else if (line) {
      process.stdout.write(JSON.stringify(settleFile(line, asJson)) + "\n");
    }
  }
} else {
  const [status, out, err] = settleFile(file, asJson);
  process.stdout.write(out);
  process.stderr.write(err);
  process.exitCode = status;
}
