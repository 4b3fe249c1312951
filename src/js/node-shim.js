// Prepended to the Emscripten glue (--extern-pre-js). Emscripten 3.1.6's Node code path uses
// `require` and `__dirname`, which an ES module does not have; give them to it under Node only.
// No top-level await: that would break bundlers and require(esm).
if (typeof process === 'object' && process.versions && process.versions.node && typeof require === 'undefined') {
  var require = process.getBuiltinModule('module').createRequire(import.meta.url);
  var __dirname = require('path').dirname(require('url').fileURLToPath(import.meta.url));
}
