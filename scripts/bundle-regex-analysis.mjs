// Build step (scripts/build.sh): the ReDoS analysis that src/js/tokenizer-patterns.js runs on a
// tokenizer.json's patterns, as one ES module in the package:
//   dist/regex-analysis.js   export { analyse, JS, NFA, RegExpParser }
// scslre (analyse) and refa (JS, NFA), with regexp-ast-analysis and @eslint-community/regexpp
// (RegExpParser) under them, are CommonJS only: shipped as dependencies they would break the consumers that load
// ES modules as they are (Rollup without its CommonJS plugin, a static page with an import map:
// tests/consumers). esbuild bundles them (dev dependencies, pinned) into one file, minified,
// each package's MIT licence at its top.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const out = fileURLToPath(new URL('../dist/regex-analysis.js', import.meta.url));
const PACKAGES = ['scslre', 'refa', 'regexp-ast-analysis', '@eslint-community/regexpp'];

const licences = PACKAGES.map((name) => {
  const dir = dirname(require.resolve(`${name}/package.json`));
  const { version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const text = readFileSync(join(dir, 'LICENSE'), 'utf8').trim();
  return `${name} ${version} (${license})\n\n${text}`;
});

const result = await build({
  stdin: {
    contents:
      "export { analyse } from 'scslre';\nexport { JS, NFA } from 'refa';\nexport { RegExpParser } from '@eslint-community/regexpp';\n",
    resolveDir: process.cwd(),
  },
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  write: false,
  logLevel: 'warning',
});
const header = `/*!\n * ReDoS analysis for attention-wasm's tokenizer check, bundled from:\n *\n${licences
  .join('\n\n')
  .split('\n')
  .map((l) => ` * ${l}`.trimEnd())
  .join('\n')}\n */\n`;
writeFileSync(out, header + result.outputFiles[0].text);
console.log(`build: dist/regex-analysis.js (${(result.outputFiles[0].contents.length / 1024).toFixed(0)} KiB)`);
