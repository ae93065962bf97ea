// The sql.js that Braid bundles. sql.js keeps every database in an in-memory file system of
// Emscripten's; Braid's index mounts a folder of host files into that file system
// (src/core/index/hostFiles.ts), so that SQLite reads and writes an index file page by page instead
// of Braid loading and saving it whole. Two small changes to sql.js's JavaScript make that
// possible, applied here as the bundle is built (node_modules stays as npm installed it):
// - the file system object is handed out as `braidFS` (sql.js does not export it);
// - `new Database(name)` with a string opens the file of that name instead of a new in-memory one;
// and a third keeps the build's debug messages (a line on stderr each time the wasm memory grows)
// off the console.
// They are made to the unminified build (dist/sql-wasm-debug.js, with its own wasm): in the
// minified one the file system's functions are renamed and inlined. Each change names the exact
// text it replaces, and the build fails if sql.js no longer has it.
import fs from 'node:fs';
import path from 'node:path';

/** The wasm file that goes with the JavaScript this plugin bundles, in node_modules/sql.js/dist. */
export const SQL_JS_WASM = 'sql-wasm-debug.wasm';

const GLUE = 'sql-wasm-debug.js';

const CHANGES = [
  {
    what: "keep the unminified build's debug messages off the console",
    find: 'var runtimeDebug = true;',
    replace: 'var runtimeDebug = false;',
  },
  {
    what: 'hand out the file system as braidFS',
    find: '    Module["Database"] = Database;\n',
    replace: '    Module["Database"] = Database;\n    Module["braidFS"] = FS;\n',
  },
  {
    what: 'open a named file for new Database(name)',
    find: '        this.filename = "dbfile_" + (0xffffffff * Math.random() >>> 0);\n        if (data != null) {\n',
    replace:
      '        this.filename = typeof data === "string" ? data : "dbfile_" + (0xffffffff * Math.random() >>> 0);\n        if (data != null && typeof data !== "string") {\n',
  },
];

/** sql.js's JavaScript with Braid's changes; throws naming the change sql.js no longer allows. */
export function patchedSqlJs(source) {
  let text = source;
  for (const change of CHANGES) {
    const at = text.indexOf(change.find);
    if (at < 0 || text.indexOf(change.find, at + 1) >= 0)
      throw new Error(`sql.js changed: cannot ${change.what} (its text is not found exactly once in ${GLUE}); see scripts/sqlJsBuild.mjs`);
    text = text.slice(0, at) + change.replace + text.slice(at + change.find.length);
  }
  return text;
}

/** An esbuild plugin: `import('sql.js')` bundles the changed sql.js. */
export function sqlJsWithHostFiles(root) {
  const dist = fs.realpathSync(path.join(root, 'node_modules', 'sql.js', 'dist'));
  const glue = path.join(dist, GLUE);
  return {
    name: 'sql.js-host-files',
    setup(build) {
      build.onResolve({ filter: /^sql\.js$/ }, () => ({ path: glue }));
      build.onLoad({ filter: /sql-wasm-debug\.js$/ }, (args) =>
        args.path === glue ? { contents: patchedSqlJs(fs.readFileSync(glue, 'utf8')), loader: 'js', resolveDir: dist } : undefined,
      );
    },
  };
}
