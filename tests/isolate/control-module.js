// What the import map tests/isolate/run.mjs injects maps a bare specifier to: loading it
// shows the engine applied a map added after modules had loaded.
export const mapped = true;
