// The page must compute every example: none of the documents' printed outputs may appear as a
// literal in its sources (web/), neither as a printed string nor as a run of numbers in any
// layout (commas, spaces, brackets, trailing zeros).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forbiddenRuns, forbiddenStrings } from './oracles.mjs';

const web = fileURLToPath(new URL('../../web', import.meta.url));
const files = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.(js|mjs|html|css|json)$/.test(n) ? [p] : [];
  });

/** Maximal runs of numbers separated only by spaces, commas, brackets (e.g. "[0.18 0.25]"). */
function numberRuns(text) {
  const runs = [];
  const re = /-?\d+(?:\.\d+)?(?:[\s,[\]]+-?\d+(?:\.\d+)?)*/g;
  for (const m of text.matchAll(re)) runs.push(m[0].match(/-?\d+(?:\.\d+)?/g).map(Number));
  return runs;
}
const contains = (run, sub) =>
  run.some((_, i) => i + sub.length <= run.length && sub.every((v, k) => Math.abs(run[i + k] - v) < 1e-12));

test("web/ sources contain none of the documents' printed results", () => {
  const sources = files(web);
  assert.ok(sources.length > 5, 'found the page sources');
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    const name = relative(web, file);
    for (const s of forbiddenStrings) assert.ok(!text.includes(s), `${name} contains the literal ${JSON.stringify(s)}`);
    const runs = numberRuns(text);
    for (const sub of forbiddenRuns)
      assert.ok(!runs.some((r) => contains(r, sub)), `${name} contains the number run [${sub.join(', ')}]`);
  }
});

test('the scan itself finds a pasted result', () => {
  const runs = numberRuns('const x = [ 0.2912,  0.0106, 0.0982 ];');
  assert.ok(runs.some((r) => contains(r, [0.2912, 0.0106, 0.0982])));
});
