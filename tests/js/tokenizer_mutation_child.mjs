// One mutated tokenizer.json (tokenizer_mutations.test.mjs): loads it with loadTokenizer, encodes
// texts that a catastrophic pattern would hang on, then checks that the shipped tokenizer still
// works. Prints one JSON line: { load, encodes, healthy }. Run as a child so that a hang is a
// timeout of this process, not of the test runner.
import { readFileSync } from 'node:fs';
import { loadTokenizer } from 'attention-wasm';

const bytes = readFileSync(process.argv[2]);
const texts = [
  'a'.repeat(40) + '!',
  'x'.repeat(3000) + 'y',
  ' '.repeat(3000) + 'x',
  'Write a poem about a man fishing on a river bank.',
  "l'été [MASK] 世界 😀 0123456789",
];
const result = { load: 'ok', encodes: [], healthy: false };
let tokenizer = null;
try {
  tokenizer = await loadTokenizer({ 'tokenizer.json': bytes });
} catch (e) {
  result.load = `${e?.name}: ${e?.message}`;
}
if (tokenizer) {
  for (const text of texts) {
    try {
      result.encodes.push(tokenizer.encode(text, { truncation: true }).inputIds.length);
    } catch (e) {
      result.encodes.push(`${e?.name}: ${String(e?.message).slice(0, 200)}`);
    }
  }
  try {
    tokenizer.encode('Question?', { textPair: 'Answer', truncation: true });
  } catch (e) {
    result.encodes.push(`${e?.name}: ${String(e?.message).slice(0, 200)}`);
  }
}
const shipped = await loadTokenizer('bert-base-uncased');
result.healthy = shipped.encode('Question?', { textPair: 'Answer' }).inputIds.join() === '101,3160,1029,102,3437,102';
console.log(JSON.stringify(result));
