// Bad model folders and bad inputs, each a clear Error naming the file and the tensor (or the
// config field); after each the module keeps working and malloc's bytes in use are back to their
// baseline. Folders are built in memory ({ name: Uint8Array }) from a good fixture, changed one
// thing at a time. The C++ boundary is called directly too: it checks again what JS checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import { distilbertHeader, loadFixture, S1 } from './fixtures.mjs';

const A = await library();
const good = await loadFixture('distilbert-f32'); // prefixed names, masked-LM head
const baseline = A.memoryStats().allocatedBytes;

/** The module still computes and holds nothing more than before. */
function assertHealthy(label) {
  const out = A.matmul(
    { data: Float32Array.of(1, 2, 3, 4), shape: [2, 2] },
    { data: Float32Array.of(1, 0, 0, 1), shape: [2, 2] },
  );
  assert.deepEqual(Array.from(out.data), [1, 2, 3, 4], `${label}: the module still works`);
  assert.equal(A.memoryStats().allocatedBytes, baseline, `${label}: malloc is back to its baseline`);
}

const utf8 = (x) => new TextEncoder().encode(typeof x === 'string' ? x : JSON.stringify(x));

/** The fixture's safetensors split into its header object and data bytes, and put back together. */
function splitFile(bytes) {
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}
function joinFile(header, data, lengthField, json = utf8(header)) {
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setUint32(0, lengthField ?? json.length, true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}
/** The tensors in file order: [name, entry]. */
const inOrder = (header) =>
  Object.entries(header)
    .filter(([n]) => n !== '__metadata__')
    .sort((a, b) => a[1].data_offsets[0] - b[1].data_offsets[0]);

/** The good folder with some files replaced (undefined removes one). */
function folder(changes) {
  const files = { ...good.files, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete files[k];
  return files;
}
/** The good folder with model.safetensors rebuilt by change(header, data) -> {header, data, lengthField}. */
function withWeights(change) {
  const { header, data } = splitFile(good.files['model.safetensors']);
  const r = change(structuredClone(header), data);
  return folder({ 'model.safetensors': joinFile(r.header, r.data, r.lengthField) });
}
/** Removes a tensor: its entry and its bytes, the later offsets moved down. */
function withoutTensor(header, data, name) {
  const [begin, end] = header[name].data_offsets;
  delete header[name];
  for (const [, e] of inOrder(header))
    if (e.data_offsets[0] >= end) e.data_offsets = e.data_offsets.map((o) => o - (end - begin));
  return { header, data: new Uint8Array([...data.subarray(0, begin), ...data.subarray(end)]) };
}

async function rejects(source, kind, pattern, label) {
  await assert.rejects(
    A.loadPretrained(source),
    (e) => {
      assert.equal(e.constructor, kind, `${label}: ${e.constructor.name}: ${e.message}`);
      assert.match(e.message, pattern, label);
      return true;
    },
    label,
  );
  assertHealthy(label);
}

const W = 'distilbert.transformer.layer.1.ffn.lin1.weight';

test('bad model.safetensors files: the file, the tensor and the rule named; nothing kept', async () => {
  const { header, data } = splitFile(good.files['model.safetensors']);
  const order = inOrder(header);
  const cases = [
    [
      'truncated file',
      folder({
        'model.safetensors': good.files['model.safetensors'].subarray(0, good.files['model.safetensors'].length - 100),
      }),
      Error,
      /^loadPretrained: model\.safetensors: truncated file: the tensors need \d+ bytes of data but only \d+ follow the header \(safetensors: MetadataIncompleteBuffer\)/,
    ],
    [
      'header length past the end',
      withWeights((h, d) => ({ header: h, data: d, lengthField: 10 ** 8 })),
      Error,
      /model\.safetensors: truncated file: the header length says 100000000 bytes .*InvalidHeaderLength/,
    ],
    [
      'header length over the limit',
      withWeights((h, d) => ({ header: h, data: d, lengthField: 2 ** 31 })),
      Error,
      /HeaderTooLarge/,
    ],
    [
      'offsets far outside the data',
      withWeights((h, d) => {
        const last = inOrder(h).at(-1)[1];
        last.data_offsets = last.data_offsets.map((o) => o + 2 ** 40);
        return { header: h, data: d };
      }),
      Error,
      new RegExp(
        `model\\.safetensors: tensor '${order.at(-1)[0].replaceAll('.', '\\.')}': data_offsets \\[\\d+, \\d+\\]: a hole of \\d+ bytes .*InvalidOffset`,
      ),
    ],
    [
      'overlapping offsets',
      withWeights((h, d) => {
        const [, second] = inOrder(h)[1];
        second.data_offsets = second.data_offsets.map((o) => o - 4);
        return { header: h, data: d };
      }),
      Error,
      new RegExp(
        `tensor '${order[1][0].replaceAll('.', '\\.')}': data_offsets .*: it overlaps tensor '${order[0][0].replaceAll('.', '\\.')}'.*InvalidOffset`,
      ),
    ],
    [
      'a hole',
      withWeights((h, d) => {
        for (const [, e] of inOrder(h).slice(3)) e.data_offsets = e.data_offsets.map((o) => o + 16);
        const [, third] = inOrder(h)[2];
        const cut = third.data_offsets[1];
        return { header: h, data: new Uint8Array([...d.subarray(0, cut), ...new Uint8Array(16), ...d.subarray(cut)]) };
      }),
      Error,
      /a hole of 16 bytes before it .*InvalidOffset/,
    ],
    [
      'an unknown dtype',
      withWeights((h, d) => {
        h[W].dtype = 'F24';
        return { header: h, data: d };
      }),
      Error,
      new RegExp(`model\\.safetensors: tensor '${W.replaceAll('.', '\\.')}': unknown dtype "F24"`),
    ],
    [
      'dtype x shape != bytes',
      withWeights((h, d) => {
        h[W].shape = [37, 17];
        return { header: h, data: d };
      }),
      Error,
      new RegExp(
        `tensor '${W.replaceAll('.', '\\.')}': shape \\[37, 17\\] of F32 needs 2516 bytes but data_offsets .* hold 2664 \\(safetensors: TensorInvalidInfo\\)`,
      ),
    ],
    [
      'a tensor the config needs is missing',
      withWeights((h, d) => withoutTensor(h, d, W)),
      Error,
      /^loadPretrained: model\.safetensors: tensor 'transformer\.layer\.1\.ffn\.lin1\.weight' is missing \(looked for 'distilbert\.transformer\.layer\.1\.ffn\.lin1\.weight', 'transformer\.layer\.1\.ffn\.lin1\.weight'\); config\.json \(model_type distilbert\) needs it/,
    ],
    [
      'a needed tensor of a dtype not read',
      withWeights((h, d) => {
        h[W].dtype = 'I32';
        return { header: h, data: d };
      }),
      TypeError,
      new RegExp(
        `model\\.safetensors: tensor '${W.replaceAll('.', '\\.')}' has dtype I32; only F32, F16 and BF16 are read`,
      ),
    ],
    [
      'a shape that disagrees with config.json',
      folder({ 'config.json': utf8({ ...good.config, hidden_dim: 36 }) }),
      Error,
      /model\.safetensors: tensor 'distilbert\.transformer\.layer\.0\.ffn\.lin1\.weight' has shape \[37, 18\]; config\.json \(vocab_size 30522, dim 18, n_heads 3, hidden_dim 36, max_position_embeddings 40\) needs \[36, 18\]/,
    ],
    [
      'not a safetensors file at all',
      folder({ 'model.safetensors': utf8('PK\u0003\u0004 a zip file') }),
      Error,
      /model\.safetensors: .*(HeaderTooLarge|InvalidHeaderLength)/,
    ],
  ];
  for (const [label, source, kind, pattern] of cases) await rejects(source, kind, pattern, label);
});

test('bad config.json: invalid JSON, another model_type, absurd sizes refused before allocating', async () => {
  await rejects(
    folder({ 'config.json': utf8('{"model_type": "distilbert",') }),
    Error,
    /^loadPretrained: config\.json: invalid JSON: /,
    'invalid JSON',
  );
  // JSON text then a NUL byte and more (nlohmann's lexer took the NUL for the end): refused
  const withNul = (bytes) => new Uint8Array([...bytes, 0, ...utf8('junk')]);
  await rejects(
    folder({ 'config.json': withNul(good.files['config.json']) }),
    Error,
    new RegExp(
      `^loadPretrained: config\\.json: a NUL byte at offset ${good.files['config.json'].length} \\(not JSON text\\)$`,
    ),
    'a NUL byte in config.json',
  );
  // a config or vocabulary larger than such files are is refused before it is read or copied
  // into the heap (a 500 MB config.json grew the heap to 1 GiB before its check)
  const heapBefore = A.memoryStats().heapBytes;
  const huge = new Uint8Array(32 * 2 ** 20 + 1);
  for (const name of ['config.json', 'tokenizer_config.json', 'vocab.txt'])
    await rejects(
      folder({ [name]: huge, ...(name === 'vocab.txt' ? { 'tokenizer.json': undefined } : {}) }),
      RangeError,
      new RegExp(
        `^loadPretrained: ${name.replace('.', '\\.')}: 33554433 bytes is more than the 32 MiB such a file may have`,
      ),
      `a ${name} of 32 MiB + 1`,
    );
  assert.equal(A.memoryStats().heapBytes, heapBefore, 'the heap did not grow');
  const { header, data } = splitFile(good.files['model.safetensors']);
  const headerBytes = utf8(header);
  await rejects(
    folder({ 'model.safetensors': joinFile(header, data, undefined, withNul(headerBytes)) }),
    Error,
    new RegExp(
      `^loadPretrained: model\\.safetensors: header: a NUL byte at offset ${headerBytes.length} \\(not JSON text\\)$`,
    ),
    'a NUL byte in the header',
  );
  // a header that describes far more than any checkpoint (an ignored tensor of 300000 dims): refused
  // as the parser counts, before its document grows the heap
  await rejects(
    withWeights((h, d) => ({
      header: { ...h, huge: { dtype: 'F32', shape: new Array(300000).fill(0), data_offsets: [0, 0] } },
      data: d,
    })),
    RangeError,
    /^loadPretrained: model\.safetensors: header: more than 262144 JSON values$/,
    'a header of too many values',
  );
  assertHealthy('config.json and header JSON');
  await rejects(
    folder({ 'config.json': utf8('[1, 2]') }),
    Error,
    /config\.json: expected a JSON object, got an array/,
    'an array',
  );
  await rejects(
    folder({ 'config.json': utf8({ ...good.config, model_type: 'roberta' }) }),
    Error,
    /config\.json: model_type 'roberta' is not supported \(supported: distilbert, bert, gpt2, llama, qwen2\)/,
    'roberta',
  );
  await rejects(
    folder({ 'config.json': utf8({ dim: 18 }) }),
    Error,
    /config\.json: model_type is missing/,
    'no model_type',
  );
  await rejects(
    folder({ 'config.json': utf8({ ...good.config, activation: 'silu' }) }),
    Error,
    /config\.json: activation 'silu' is not supported \(supported: gelu, gelu_new, gelu_pytorch_tanh, relu\)/,
    'silu',
  );
  await rejects(
    folder({ 'config.json': utf8({ ...good.config, dim: '18' }) }),
    TypeError,
    /config\.json: dim must be an integer, got "18"/,
    'a string size',
  );
  await rejects(
    folder({ 'config.json': utf8({ model_type: 'bert', position_embedding_type: 'relative_key' }) }),
    Error,
    /position_embedding_type 'relative_key' is not supported/,
    'relative positions',
  );
  const heap = A.memoryStats().heapBytes;
  const absurd = [
    [{ dim: 1e9 }, /config\.json: hidden size \(dim\) must be in \[1, 16384\], got 1000000000/],
    [{ n_layers: 1e6 }, /number of layers \(n_layers\) must be in \[1, 256\], got 1000000/],
    [{ vocab_size: 1e12 }, /vocab_size must be in \[1, 4000000\], got 1000000000000/],
    [{ n_heads: 4 }, /the number of heads 4 must divide the hidden size 18/],
    [{ hidden_dim: -3 }, /feed-forward size .* must be in \[1, 65536\], got -3/],
    [
      { dim: 16384, hidden_dim: 65536, n_layers: 100, n_heads: 16 },
      /the parameters would take \d+ floats, more than the 536870912 \(2 GiB\) the wasm heap can hold/,
    ],
    [{ max_position_embeddings: 2 ** 40 }, /max_position_embeddings must be in \[1, 65536\]/],
  ];
  for (const [change, pattern] of absurd)
    await rejects(
      folder({ 'config.json': utf8({ ...good.config, ...change }) }),
      RangeError,
      pattern,
      JSON.stringify(change),
    );
  assert.equal(A.memoryStats().heapBytes, heap, 'absurd sizes are refused before anything is allocated');
});

test('config.json fields transformers reads otherwise than their default: refused, not computed another way', async () => {
  const fixtures = Object.fromEntries(
    await Promise.all(
      ['bert-f32', 'gpt2-tiny', 'llama-tiny', 'qwen2-tiny'].map(async (n) => [n, await loadFixture(n)]),
    ),
  );
  const edited = (name, change) => ({
    ...fixtures[name].files,
    'config.json': utf8({ ...fixtures[name].config, ...change }),
  });
  for (const [name, change, kind, pattern] of [
    // BertEmbeddings adds positions only `if position_embedding_type == "absolute"`: None adds none
    ['bert-f32', { position_embedding_type: null }, Error, /position_embedding_type null is not supported/],
    // GPT-2's eager attention scales only `if scale_attn_weights`
    ['gpt2-tiny', { scale_attn_weights: null }, Error, /scale_attn_weights null is not supported/],
    // a causal model's task classes: the tied LM head would give vocabulary logits, not the task's
    [
      'gpt2-tiny',
      { architectures: ['GPT2ForSequenceClassification'] },
      Error,
      /architectures\[0\] 'GPT2ForSequenceClassification' is a task model of model_type gpt2/,
    ],
    [
      'qwen2-tiny',
      { architectures: ['Qwen2ForTokenClassification'] },
      Error,
      /'Qwen2ForTokenClassification' is a task model of model_type qwen2/,
    ],
    // transformers 4.x takes `type`, 5 `rope_type`: two that disagree are not guessed between
    [
      'llama-tiny',
      { rope_scaling: { type: 'linear', rope_type: 'default', factor: 4 } },
      Error,
      /rope_scaling: rope_type 'default' and type 'linear' disagree/,
    ],
    ['llama-tiny', { partial_rotary_factor: 0.5 }, Error, /partial_rotary_factor 0\.5 is not supported \(only 1\.0\)/],
    [
      'qwen2-tiny',
      { layer_types: ['full_attention', 'sliding_attention'] },
      Error,
      /layer_types\[1\] 'sliding_attention' is not supported/,
    ],
    ['qwen2-tiny', { layer_types: 'full_attention' }, TypeError, /layer_types must be a list/],
  ])
    await rejects(edited(name, change), kind, pattern, `${name} ${JSON.stringify(change)}`);
  // what stays accepted: the defaults spelled out, every layer full attention, and the task
  // class's base model asked for by head: 'none' (AutoModelForCausalLM's reading of the folder)
  for (const [name, change, options] of [
    ['llama-tiny', { partial_rotary_factor: 1, rope_scaling: { type: 'linear', rope_type: 'linear', factor: 2 } }],
    ['qwen2-tiny', { layer_types: ['full_attention', 'full_attention'] }],
    ['bert-f32', { position_embedding_type: 'absolute' }],
    ['gpt2-tiny', { architectures: ['GPT2ForSequenceClassification'] }, { head: 'none' }],
  ]) {
    const model = await A.loadPretrained(edited(name, change), options);
    model.dispose();
  }
  assertHealthy('config fields');
});

test(
  'hostile JSON and files: linear-time parses, duplicate keys and names, bounded messages and headers',
  { timeout: 120_000 },
  async () => {
    // 300,000 empty objects (2.1 MB of config.json, within its 2^20 values): nlohmann's callback
    // parser rescanned the enclosing array after each object (100,000 took 46 s, these ~7 min); the
    // linear parse takes a second or two. The timeout above is that difference, not a speed figure.
    const objects = `[${new Array(300000).fill('{}').join(',')}]`;
    const config = JSON.stringify(good.config).replace(/}$/, `, "junk": ${objects}}`);
    const model = await A.loadPretrained(folder({ 'config.json': utf8(config) }));
    model.dispose();
    // a key twice in the header: named (it was reported as a hole before another tensor)
    const { header, data } = splitFile(good.files['model.safetensors']);
    const [first] = inOrder(header)[0];
    const text = JSON.stringify(header).replace(/}$/, `, ${JSON.stringify(first)}: ${JSON.stringify(header[first])}}`);
    await rejects(
      folder({ 'model.safetensors': joinFile(null, data, undefined, utf8(text)) }),
      Error,
      new RegExp(`model\\.safetensors: header: the key '${first.replace(/\./g, '\\.')}' appears twice in one object`),
      'a duplicate tensor',
    );
    // a key of a million \u0002 (the byte that begins an API name in the C++ side's messages) twice:
    // the message's names were looked for from each of them to its end (320,000: 18 s)
    const marks = '\u0002'.repeat(1_000_000);
    const marked = JSON.stringify(header).replace(
      /}$/,
      `, "${'\\u0002'.repeat(1_000_000)}": 1, ${JSON.stringify(marks)}: 2}`,
    );
    await assert.rejects(
      A.loadPretrained(folder({ 'model.safetensors': joinFile(null, data, undefined, utf8(marked)) })),
      (e) => /appears twice in one object/.test(e.message) && e.message.length < 4200,
    );
    assertHealthy('a key of a million name marks');
    // a message quoting a hostile value is cut (a shape of 200,000 dims was a 600 KB message)
    const long = structuredClone(header);
    long[first].shape = new Array(200000).fill(1);
    await assert.rejects(
      A.loadPretrained(folder({ 'model.safetensors': joinFile(long, data) })),
      (e) => e.message.length < 4200 && /characters cut/.test(e.message),
    );
    assertHealthy('a long message');
    // a header longer than loadPretrained reads (the format allows 100 MB), refused before it is read
    const bigHeader = new Uint8Array(8 + 17 * 2 ** 20);
    new DataView(bigHeader.buffer).setUint32(0, 17 * 2 ** 20, true);
    await rejects(
      folder({ 'model.safetensors': bigHeader }),
      RangeError,
      /model\.safetensors: a header of 17825792 bytes, more than the 16 MiB loadPretrained reads/,
      'a 17 MiB header',
    );
    // integers past any size: a RangeError, not "must be an integer"
    await rejects(
      folder({ 'config.json': utf8(JSON.stringify(good.config).replace(/"dim":\s*\d+/, '"dim": 9007199254740993')) }),
      RangeError,
      /config\.json: dim 9007199254740993 is out of range/,
      'dim 2^53 + 1',
    );
    await rejects(
      folder({
        'config.json': utf8(JSON.stringify(good.config).replace(/}$/, ', "num_labels": 18446744073709551615}')),
      }),
      RangeError,
      /config\.json: num_labels 18446744073709551615 is not in \[1, 4000000\]/,
      'num_labels 2^64 - 1 (it read as -1)',
    );
    // a list of files with two of one name; a Blob-shaped source whose reads fail: the file named
    const files = Object.entries(good.files).map(([n, b]) => new File([b], n));
    await rejects(
      [...files, new File([good.files['config.json']], 'config.json')],
      Error,
      /the list of files has two named config\.json/,
      'two config.json',
    );
    const failing = { size: 100, slice: () => null };
    await rejects(
      folder({ 'model.safetensors': failing }),
      Error,
      /model\.safetensors: reading bytes \[0, 8\) failed/,
      'slice() gives null',
    );
  },
);

test('missing files: a .bin (pickle) checkpoint, a sharded one, no config.json', async () => {
  await rejects(
    folder({ 'model.safetensors': undefined, 'pytorch_model.bin': new Uint8Array(64) }),
    Error,
    /loadPretrained: the files given has pytorch_model\.bin but no model\.safetensors: only safetensors checkpoints are read \(a \.bin is a Python pickle/,
    '.bin',
  );
  await rejects(
    folder({ 'model.safetensors': undefined, 'model.safetensors.index.json': utf8({}) }),
    Error,
    /sharded checkpoint .* only a single model\.safetensors is read/,
    'sharded',
  );
  await rejects(
    folder({ 'model.safetensors': undefined }),
    Error,
    /model\.safetensors is missing from the files given \(it has: config\.json, /,
    'no weights',
  );
  await rejects(
    folder({ 'config.json': undefined }),
    Error,
    /config\.json is missing from the files given/,
    'no config',
  );
  await assert.rejects(A.loadPretrained('/nonexistent/folder'), {
    message:
      /^loadPretrained: there is no folder \/nonexistent\/folder: only local folders are read, nothing is downloaded/,
  });
  await assert.rejects(A.loadPretrained(`${good.dir}/config.json`), { name: 'TypeError', message: /is not a folder/ });
  await assert.rejects(A.loadPretrained(42), {
    name: 'TypeError',
    message:
      /source must be a folder path \(Node\), a FileList, File\[\] or \{ name: Blob \| ArrayBuffer \| Uint8Array \}, got number/,
  });
  await assert.rejects(A.loadPretrained({ 'config.json': 'text' }), {
    name: 'TypeError',
    message: /file 'config\.json' must be a Blob, ArrayBuffer or Uint8Array, got string/,
  });
  assertHealthy('missing files');
});

test('a weights file that shrinks while it loads (Node reads each chunk straight into the wasm heap): an Error naming the file and where it ended', async () => {
  const { mkdtempSync, cpSync, truncateSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'aw-shrink-'));
  try {
    cpSync(good.dir, dir, { recursive: true });
    const weights = join(dir, 'model.safetensors');
    const file = good.files['model.safetensors'];
    const dataStart = 8 + new DataView(file.buffer, file.byteOffset).getUint32(0, true);
    // cut the file after the header was read (every tensor is read: the masked-LM head is loaded),
    // so the first chunk of tensor data finds its end
    const cut = dataStart + 100;
    for (const dtype of ['fp32', 'q8']) {
      cpSync(join(good.dir, 'model.safetensors'), weights);
      const progress = [];
      await assert.rejects(
        A.loadPretrained(dir, {
          dtype,
          onProgress: (p) => {
            if (progress.push(p.loaded) === 1) truncateSync(weights, cut);
          },
        }),
        {
          message: `loadPretrained: ${weights}: the file ended at ${cut} bytes, ${file.length} were expected (did it change while loading?)`,
        },
        dtype,
      );
      assert.equal(progress.length, 1, `${dtype}: no progress after the short read`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assertHealthy('shrinking file');
});

test('bad inputs: text longer than the maximum, empty text, ids out of range, ragged batches', async () => {
  const model = await A.loadPretrained(good.dir); // max_position_embeddings 40
  const long = 'the river bank '.repeat(20);
  assert.throws(() => model.tokenizer.encode(long), {
    name: 'RangeError',
    message: /the text has 62 tokens, more than the model's maximum of 40 \(pass \{ truncation: true \}/,
  });
  assert.throws(() => model.embed([S1, long]), RangeError);
  assert.deepEqual(model.embed(long, { truncation: true }).shape, [1, 18]);
  assert.throws(() => model.forward(new Array(41).fill(1996)), {
    name: 'RangeError',
    message: "model.forward: inputIds has sequence length 41, longer than the model's maxPositions 40",
  });
  // an empty text is [CLS] [SEP], as transformers encodes it, and embeds as sentence-transformers does
  assert.deepEqual(model.tokenizer.encode('').tokens, ['[CLS]', '[SEP]']);
  assert.deepEqual(model.embed('').shape, [1, 18]);
  assert.throws(() => model.embed([]), TypeError);
  assert.throws(() => model.forward([]), {
    name: 'RangeError',
    message: 'model.forward: inputIds is empty (no tokens)',
  });
  assert.throws(() => model.forward([101, 30522, 102]), {
    name: 'RangeError',
    message: 'model.forward: inputIds at [0, 1] = 30522 is not a token id in [0, 30522)',
  });
  assert.throws(() => model.forward([101, -1]), {
    name: 'RangeError',
    message: 'model.forward: inputIds at [0, 1] = -1 is not a token id in [0, 30522)',
  });
  assert.throws(() => model.forward([101, 1.5]), {
    name: 'RangeError',
    message: 'model.forward: inputIds[0][1] = 1.5 is not an integer id',
  });
  assert.throws(() => model.forward({ inputIds: [[101, 102], [101]] }), {
    name: 'RangeError',
    message: /inputIds row 1 has 1 values, expected 2 \(pad the batch/,
  });
  assert.throws(() => model.forward({ inputIds: [[101, 102]], attentionMask: [[1, 2]] }), {
    name: 'RangeError',
    message: 'model.forward: attentionMask[0][1] = 2 is not 0 or 1',
  });
  assert.throws(() => model.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0, 0]] }), {
    name: 'TypeError',
    message: /tokenTypeIds are not an input of distilbert/,
  });
  assert.throws(() => model.forward({ inputIds: [[101]], extra: 1 }), {
    name: 'TypeError',
    message: /unknown input field 'extra'/,
  });
  assert.throws(() => model.forward('text'), { name: 'TypeError', message: /input is a string; tokenize it first/ });
  for (const ids of [new Uint32Array([101, 102]), new Float32Array([101, 102])])
    assert.throws(() => model.forward(ids), {
      name: 'TypeError',
      message: new RegExp(`^model\\.forward: input must be token ids .*got ${ids.constructor.name}`),
    });
  // an encoding with its overflowing windows: the first window runs, as an encoding without them
  const windows = model.tokenizer.encode(long, { truncation: true, returnOverflowingTokens: true });
  assert.ok(windows.overflowing.length > 0);
  const { overflowing, ...first } = windows;
  assert.deepEqual(model.forward(windows).lastHiddenState.data, model.forward(first).lastHiddenState.data);
  assert.deepEqual(model.forward(overflowing[0]).lastHiddenState.shape[1], overflowing[0].inputIds.length);
  assert.throws(() => model.forward([101], { outputAttentions: 1 }), {
    name: 'TypeError',
    message: /outputAttentions must be a boolean/,
  });
  assert.throws(() => model.forward([101], { attentions: true }), {
    name: 'TypeError',
    message: /unknown option 'attentions'/,
  });
  assert.throws(() => model.wordEmbeddings([2 ** 40]), RangeError);
  assert.throws(() => model.wordEmbeddings([30522]), {
    name: 'RangeError',
    message: 'model.wordEmbeddings: ids[0] = 30522 is not a token id in [0, 30522)',
  });
  assert.throws(() => model.embed('x', { pooling: 'max' }), {
    name: 'TypeError',
    message: /pooling must be 'mean' or 'cls'/,
  });
  assert.deepEqual(model.forward([101, 2924, 102]).lastHiddenState.shape, [1, 3, 18], 'still works');
  model.dispose();
  assertHealthy('inputs');

  const bert = await A.loadPretrained((await loadFixture('bert-f16')).dir);
  assert.throws(() => bert.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0, 2]] }), {
    name: 'RangeError',
    message: 'model.forward: tokenTypeIds at [0, 1] = 2 is not in [0, 2)',
  });
  bert.dispose();
  assertHealthy('bert inputs');
});

// The raw glue, as a page's own code could call it: the C++ side reads config.json and the
// header itself (src/models/checkpoint.cpp), and checks every chunk and handle.
test('the C++ boundary trusts nothing: config bytes, header, chunk order and ranges, handles', () => {
  const raw = A.raw;
  const P = 'transformer.layer.0.';
  const table = (edit) => distilbertHeader({}, edit);
  const cfg = table().config;
  const good = table();
  const size = 8 + good.header.length + good.dataBytes;
  const fails = (result, pattern, label) => {
    assert.equal(typeof result?.error, 'string', `${label}: expected an error`);
    assert.match(result.error, pattern, label);
    assert.equal(A.memoryStats().allocatedBytes, baseline, `${label}: nothing kept`);
  };
  const open = (config, t = good, fileSize = 8 + t.header.length + t.dataBytes) =>
    raw._modelOpen(utf8(config), t.header, fileSize, 'fp32', 'auto');
  const edited = (name, change) =>
    table((h) => {
      Object.assign(h[name], change);
      return h;
    });
  fails(
    raw._modelOpen('{}', good.header, size, 'fp32', 'auto'),
    /config\.json must have Uint8Array data/,
    'config as a string',
  );
  fails(
    raw._modelOpen(utf8(cfg), [1, 2], size, 'fp32', 'auto'),
    /model\.safetensors: header must have Uint8Array data/,
    'header as an array',
  );
  fails(open({ ...cfg, dim: '4' }), /config\.json: dim must be an integer, got "4"/, 'string size');
  fails(open({ ...cfg, dim: 4.5 }), /config\.json: dim must be an integer, got number 4\.5/, 'fractional size');
  fails(open({ ...cfg, model_type: 't5' }), /model_type 't5' is not supported/, 'model_type');
  fails(
    raw._modelOpen(utf8(cfg), good.header, -1, 'fp32', 'auto'),
    /the file size must be an integer number of bytes/,
    'size',
  );
  fails(
    raw._modelOpen(utf8(cfg), good.header, size, 'int4', 'auto'),
    /^dtype must be 'fp32' or 'q8', got 'int4'$/,
    'dtype',
  );
  fails(
    open(cfg, edited('embeddings.LayerNorm.bias', { shape: [3] })),
    /shape \[3\] of F32 needs 12 bytes but data_offsets \[\d+, \d+\] hold 16 \(safetensors: TensorInvalidInfo\)/,
    'byte length',
  );
  fails(
    open(cfg, edited(`${P}attention.k_lin.weight`, { data_offsets: [336, 400] })),
    /tensor 'transformer\.layer\.0\.attention\.k_lin\.weight': data_offsets \[336, 400\]: it overlaps tensor/,
    'overlap',
  );
  fails(open(cfg, good, size - 4), /truncated file: the tensors need \d+ bytes of data but only \d+ follow/, 'past');
  fails(
    open(cfg, edited('embeddings.word_embeddings.weight', { dtype: 'I32' })),
    /model\.safetensors: tensor 'embeddings\.word_embeddings\.weight' has dtype I32; only F32, F16 and BF16 are read/,
    'dtype',
  );
  fails(
    open(cfg, edited('embeddings.word_embeddings.weight', { data_offsets: [-8, 152] })),
    /data_offsets must be \[begin, end\] non-negative integers/,
    'negative offset',
  );
  fails(
    open({ ...cfg, dim: 8 }),
    /tensor 'embeddings\.word_embeddings\.weight' has shape \[10, 4\]; config\.json \(vocab_size 10, dim 8, .*\) needs \[10, 8\]/,
    'a config that disagrees',
  );
  assert.match(raw._safetensorsHeaderLength(new Uint8Array(4), 4).error, /HeaderTooSmall/);

  const { handle, stagingBytes, ranges, dataStart } = open(cfg);
  assert.ok(handle > 0 && stagingBytes > 0);
  assert.deepEqual(ranges, [[0, good.dataBytes]]);
  assert.equal(dataStart, 8 + good.header.length);
  const view = raw._modelStagingView(handle);
  view.set(new Uint8Array(64).fill(0x3f));
  assert.match(
    raw._modelWrite(handle, 64, 64).error,
    /bytes from 64 arrived, but the next expected byte is 0 \(writes must follow the file order\)/,
  );
  assert.match(
    raw._modelWrite(handle, good.dataBytes - 8, 64).error,
    /chunk \[\d+, \d+\) is outside the \d+ bytes of data/,
  );
  assert.match(raw._modelWrite(handle, 0, stagingBytes + 1).error, /chunk length \d+ is not in \[0, \d+\]/);
  assert.equal(raw._modelWrite(handle, 0, 64), undefined);
  assert.match(
    raw._modelFinish(handle).error,
    /model\.safetensors: tensor 'embeddings\.word_embeddings\.weight': only 64 of its 160 bytes were read \(truncated file\?\)/,
  );
  assert.match(
    raw._modelForward(handle, new Int32Array(1), null, null, 1, 1, false, false, false, null).error,
    /the model has not finished loading/,
  );
  assert.equal(raw._modelDispose(handle), true);
  assert.equal(raw._modelDispose(handle), false);
  assert.match(
    raw._modelForward(handle, new Int32Array(1), null, null, 1, 1, false, false, false, null).error,
    /no model with handle \d+ \(disposed\?\)/,
  );
  assert.match(raw._modelWrite(999, 0, 0).error, /no model with handle 999/);
  assertHealthy('raw');
});

// snake_case words of a message outside its quotes ('input_ids' quoted is the caller's own key).
const snakeCase = (message) => message.replace(/'[^']*'/g, "''").match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? [];

test('every error a model call raises names the JS arguments: no snake_case name in any message', async () => {
  assert.deepEqual(snakeCase("encoder.forward: input_ids at [0, 1]; unknown input field 'token_type_ids'"), [
    'input_ids',
  ]);
  const distilbert = await A.loadPretrained(good.dir); // vocabulary 30522, 40 positions, no token types
  const bert = await A.loadPretrained((await loadFixture('bert-f16')).dir);
  const raw =
    (model, ids, mask = null, types = null, N = 1, L = ids.length) =>
    () => {
      const r = A.raw._modelForward(model.handle, ids, mask, types, N, L, false, false, false, null);
      throw new Error(r.error); // the boundary's message as the wrapper would throw it
    };
  const disposed = await A.loadPretrained(good.dir);
  disposed.dispose();
  // [call, message]: every check of model.forward, model.wordEmbeddings and model.embed, in JS and
  // at the C++ boundary (the raw glue, which checks again what JS checked)
  const cases = [
    [() => distilbert.forward(new Array(41).fill(1996)), /^model\.forward: inputIds has sequence length 41/],
    [() => distilbert.forward([]), /^model\.forward: inputIds is empty/],
    [() => distilbert.forward([101, 30522]), /^model\.forward: inputIds at \[0, 1\] = 30522 is not a token id/],
    [() => distilbert.forward([101, 1.5]), /^model\.forward: inputIds\[0\]\[1\] = 1\.5/],
    [() => distilbert.forward({ inputIds: [[101, 102], [101]] }), /^model\.forward: inputIds row 1 has 1 values/],
    [
      () => distilbert.forward({ inputIds: [[101]], attentionMask: [[1], [1]] }),
      /^model\.forward: attentionMask has 2 rows/,
    ],
    [
      () => distilbert.forward({ inputIds: [[101]], attentionMask: [[2]] }),
      /^model\.forward: attentionMask\[0\]\[0\] = 2/,
    ],
    [
      () => distilbert.forward({ inputIds: [[101]], tokenTypeIds: [[0]] }),
      /^model\.forward: tokenTypeIds are not an input of distilbert/,
    ],
    [() => distilbert.forward({ input_ids: [[101]] }), /^model\.forward: unknown input field 'input_ids'/],
    [() => distilbert.forward({ inputIds: 'x' }), /^model\.forward: inputIds must be an array of token ids/],
    [() => distilbert.forward(null), /^model\.forward: input must be token ids/],
    [
      () => distilbert.forward([101], { output_attentions: true }),
      /^model\.forward: unknown option 'output_attentions'/,
    ],
    [
      () => distilbert.forward([101], { outputHiddenStates: 1 }),
      /^model\.forward: outputHiddenStates must be a boolean/,
    ],
    [
      () => bert.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0, 2]] }),
      /^model\.forward: tokenTypeIds at \[0, 1\] = 2/,
    ],
    [
      () => bert.forward({ inputIds: [[101]], tokenTypeIds: [[0.5]] }),
      /^model\.forward: tokenTypeIds\[0\]\[0\] = 0\.5/,
    ],
    [() => distilbert.wordEmbeddings([30522]), /^model\.wordEmbeddings: ids\[0\] = 30522 is not a token id/],
    [() => distilbert.wordEmbeddings([0.5]), /^model\.wordEmbeddings: ids\[0\] = 0\.5 is not an integer id/],
    [() => distilbert.wordEmbeddings('bank'), /^model\.wordEmbeddings: ids must be number\[\] or Int32Array/],
    [() => distilbert.embed([]), /^model\.embed: texts must be a string or a non-empty array/],
    [() => distilbert.embed('x', { pooling: 'max' }), /^model\.embed: pooling must be 'mean' or 'cls'/],
    [() => distilbert.embed('x', { batchSize: 0 }), /^model\.embed: batchSize must be a positive integer/],
    [() => distilbert.embed('x', { batch_size: 2 }), /^model\.embed: unknown option 'batch_size'/],
    [() => disposed.forward([101]), /^model\.forward: the model has been disposed/],
    [raw(distilbert, Int32Array.of(101, 30522)), /^model\.forward: inputIds at \[0, 1\] = 30522/],
    [
      raw(distilbert, new Int32Array(41)),
      /^model\.forward: inputIds has sequence length 41, longer than the model's maxPositions 40$/,
    ],
    [
      raw(distilbert, Int32Array.of(101, 102), Uint8Array.of(1, 2)),
      /^model\.forward: attentionMask at \[0, 1\] = 2 must be 0 or 1$/,
    ],
    [
      raw(distilbert, Int32Array.of(101), null, Int32Array.of(0)),
      /^model\.forward: tokenTypeIds are not an input of distilbert/,
    ],
    [
      raw(bert, Int32Array.of(101), null, Int32Array.of(5)),
      /^model\.forward: tokenTypeIds at \[0, 0\] = 5 is not in \[0, 2\)$/,
    ],
    [raw(distilbert, new Float32Array(2)), /^model\.forward: inputIds/],
    [raw(distilbert, Int32Array.of(101, 102), new Int32Array(2)), /^model\.forward: attentionMask/],
    [raw(bert, Int32Array.of(101, 102), null, new Uint8Array(2)), /^model\.forward: tokenTypeIds/],
    [raw(distilbert, new Int32Array(1), null, null, 1, 2), /^model\.forward: inputIds/],
  ];
  for (const [run, pattern] of cases) {
    assert.throws(
      run,
      (e) => {
        assert.match(e.message, pattern);
        assert.deepEqual(snakeCase(e.message), [], `a snake_case name in: ${e.message}`);
        return true;
      },
      String(pattern),
    );
  }
  distilbert.dispose();
  bert.dispose();
  assertHealthy('model messages');
});

test('a folder as a file: URL (URL object or string) loads as its path does; other URLs are refused', async () => {
  const { pathToFileURL } = await import('node:url');
  const { loadTokenizer } = await import('attention-wasm');
  const fx = await loadFixture('distilbert-f32');
  const byPath = await A.loadPretrained(fx.dir);
  const ids = byPath.tokenizer.encode(S1);
  const want = byPath.forward(ids).lastHiddenState.data;
  // a URL of another realm (a polyfill, a test environment's) is known by its href and protocol
  const foreign = { href: pathToFileURL(fx.dir).href, protocol: 'file:', pathname: pathToFileURL(fx.dir).pathname };
  for (const source of [pathToFileURL(fx.dir), pathToFileURL(fx.dir).href, foreign]) {
    const model = await A.loadPretrained(source);
    assert.deepEqual(model.forward(ids).lastHiddenState.data, want, String(source));
    model.dispose();
    assert.deepEqual((await loadTokenizer(source)).encode(S1).inputIds, ids.inputIds);
  }
  byPath.dispose();
  await assert.rejects(A.loadPretrained(new URL('https://huggingface.co/distilbert-base-uncased')), {
    name: 'TypeError',
    message:
      'loadPretrained: only local folders are read, nothing is downloaded; got the URL https://huggingface.co/distilbert-base-uncased',
  });
  await assert.rejects(A.loadPretrained('file:///nonexistent/folder'), {
    name: 'Error',
    message: /^loadPretrained: there is no folder \/nonexistent\/folder: only local folders are read/,
  });
  // 'file:' without '//' is a relative path, as fs reads it
  await assert.rejects(A.loadPretrained('file:nonexistent'), {
    name: 'Error',
    message: /^loadPretrained: there is no folder file:nonexistent: only local folders are read/,
  });
});
