// The files of a Hugging Face model folder, from wherever the user has them:
//   Node      a folder path (string); read with node:fs, found through process.getBuiltinModule
//             so that browser bundles never import a Node module
//   browsers  a FileList (file picker, a dropped folder) or File[]; or an object
//             { 'config.json': Blob | ArrayBuffer | Uint8Array, ... }
// Large files are read in chunks into a destination the caller gives (the wasm staging buffer):
// Node reads each chunk straight into it with a synchronous read, a Blob by slice().arrayBuffer()
// per chunk, an in-memory buffer as views of it. Nothing reads a whole weights file into JS, and in
// Node a chunk is in memory once (a q8 load's peak: docs/performance.md).
import { describe } from './tensor.js';

function nodeFs(fn) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (!fs)
    throw new TypeError(
      `${fn}: a folder path needs Node (>= 20.16); in a browser pass a FileList, File[] or { name: Blob }`,
    );
  return fs;
}

/**
 * A folder given as a URL (a URL object, of this realm or another, as Node's fs recognises one by
 * its href and protocol; or a string starting 'file://'): its path (node:url's fileURLToPath).
 * Anything else as it is ('file:x' without the slashes is a relative path, as fs reads it).
 */
function filePath(source, fn) {
  const isUrl =
    source !== null &&
    typeof source === 'object' &&
    typeof source.href === 'string' &&
    typeof source.protocol === 'string';
  if (!(isUrl || (typeof source === 'string' && /^file:\/\//i.test(source)))) return source;
  const href = isUrl ? source.href : source;
  if (isUrl && source.protocol !== 'file:')
    throw new TypeError(`${fn}: only local folders are read, nothing is downloaded; got the URL ${href}`);
  const url = globalThis.process?.getBuiltinModule?.('node:url');
  if (!url)
    throw new TypeError(
      `${fn}: a file: URL needs Node (>= 20.16); in a browser pass a FileList, File[] or { name: Blob }`,
    );
  try {
    return url.fileURLToPath(href);
  } catch (e) {
    throw new TypeError(`${fn}: ${href} is not a file: URL of a folder (${e.message})`);
  }
}

/** The name of a file inside the folder: a dropped folder's File has 'folder/sub/x.json'. */
function relativeName(file) {
  const path = file.webkitRelativePath || file.name;
  const parts = path.split('/');
  return file.webkitRelativePath && parts.length > 1 ? parts.slice(1).join('/') : path;
}

/** One file: its size and reads of byte ranges. */
class BlobSource {
  constructor(blob, name) {
    this.blob = blob;
    this.name = name;
    this.size = blob.size;
  }
  async read(begin, end) {
    let buffer;
    try {
      buffer = await this.blob.slice(begin, end).arrayBuffer();
    } catch (e) {
      // an object shaped as a Blob whose slice() or arrayBuffer() fails: the file named
      throw new Error(`${this.name}: reading bytes [${begin}, ${end}) failed: ${e?.message ?? e}`, { cause: e });
    }
    const bytes = new Uint8Array(buffer);
    // a Blob's bytes are fixed; an object shaped as one (ModelFileBlob) is checked
    if (bytes.length !== end - begin)
      throw new Error(
        `${this.name}: bytes [${begin}, ${end}) read as ${bytes.length} bytes (the file's size was given as ${this.size})`,
      );
    return bytes;
  }
  async readInto(begin, end, target) {
    const bytes = await this.read(begin, end);
    target().set(bytes);
  }
  async close() {}
}

class BufferSource {
  constructor(bytes) {
    this.bytes = bytes;
    this.size = bytes.length;
  }
  async read(begin, end) {
    return this.bytes.subarray(begin, end);
  }
  async readInto(begin, end, target) {
    target().set(this.bytes.subarray(begin, end));
  }
  async close() {}
}

/** The event loop gets a turn: Node's reads of a chunk are synchronous, so a load yields after each. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

class NodeFileSource {
  constructor(path, size, fs) {
    this.path = path;
    this.size = size;
    this.fs = fs;
    this.handle = null;
  }
  async open() {
    this.handle ??= await this.fs.promises.open(this.path, 'r');
    return this.handle;
  }
  ended(at) {
    return new Error(
      `${this.path}: the file ended at ${at} bytes, ${this.size} were expected (did it change while loading?)`,
    );
  }
  /** Bytes [begin, end) in a new buffer (the small files, the safetensors header). */
  async read(begin, end) {
    const handle = await this.open();
    const bytes = new Uint8Array(end - begin);
    for (let done = 0; done < bytes.length;) {
      const { bytesRead } = await handle.read(bytes, done, bytes.length - done, begin + done);
      if (bytesRead === 0) throw this.ended(begin + done);
      done += bytesRead;
    }
    return bytes;
  }
  /**
   * Bytes [begin, end) straight into target() (the wasm staging view, taken right before the read:
   * nothing can grow the wasm heap during a synchronous read, so the view stays attached); then
   * the event loop gets a turn.
   */
  async readInto(begin, end, target) {
    const { fd } = await this.open();
    const into = target();
    for (let done = 0; done < into.length;) {
      const bytesRead = this.fs.readSync(fd, into, done, into.length - done, begin + done);
      if (bytesRead === 0) throw this.ended(begin + done);
      done += bytesRead;
    }
    await nextTurn();
  }
  async close() {
    await this.handle?.close();
    this.handle = null;
  }
}

// The most bytes a text file of a folder is read with (checked before it is read: a file from a
// user is untrusted). tokenizer.json files of real models reach ~35 MB (Gemma's); the configs
// and vocab.txt are KBs to a few MB.
const TEXT_LIMITS = { 'tokenizer.json': 256 * 2 ** 20 };
const TEXT_LIMIT = 32 * 2 ** 20;
/** The most files a FileList (or File[]) of a model folder may hold. */
const MAX_FILES = 10000;
/** A sentence-transformers module's folder inside a model folder (modules.json's paths: 1_Pooling). */
const MODULE_FOLDER = /^\d+_[A-Za-z]\w*$/;

export class ModelFiles {
  /** @param {Map<string, object>} sources name -> source; @param {string} where */
  constructor(sources, where) {
    this.sources = sources;
    this.where = where;
  }

  get names() {
    return [...this.sources.keys()];
  }
  has(name) {
    return this.sources.has(name);
  }
  size(name) {
    return this.source(name).size;
  }

  source(name) {
    const s = this.sources.get(name);
    if (!s) throw new Error(`${name} is missing from ${this.where} (it has: ${this.names.join(', ') || 'no files'})`);
    return s;
  }

  /** Bytes [begin, end) of a file (a view of the caller's buffer for an in-memory file). */
  async read(name, begin = 0, end = this.size(name)) {
    return this.source(name).read(begin, Math.min(end, this.size(name)));
  }

  /** The whole of a small file (a config, a vocabulary): over its limit (TEXT_LIMITS) an Error, unread. */
  async whole(name) {
    const limit = TEXT_LIMITS[name] ?? TEXT_LIMIT;
    if (this.size(name) > limit)
      throw new RangeError(
        `${name}: ${this.size(name)} bytes is more than the ${limit / 2 ** 20} MiB such a file may have (is it the right file?)`,
      );
    return this.read(name);
  }

  async text(name) {
    const bytes = await this.whole(name);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new Error(`${name}: not UTF-8 text`);
    }
  }

  async json(name) {
    const text = await this.text(name);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Error(`${name}: invalid JSON: ${e.message}`);
    }
  }

  /**
   * Reads bytes [begin, end) of a file into the view target() returns (called once, right before
   * the bytes are written into it: a wasm memory view must be taken after any await).
   * @param {string} name @param {number} begin @param {number} end
   * @param {() => Uint8Array} target a view of end - begin bytes
   */
  async readInto(name, begin, end, target) {
    if (end > this.size(name)) throw new RangeError(`${name}: bytes [${begin}, ${end}) are past its end`);
    await this.source(name).readInto(begin, end, target);
  }

  async close() {
    for (const s of this.sources.values()) await s.close();
  }
}

/**
 * Opens a model folder. `fn` names the calling function in messages.
 * @param {string | URL | FileList | File[] | Record<string, Blob | ArrayBuffer | Uint8Array>} source
 */
export async function openModelFiles(source, fn) {
  const sources = new Map();
  source = filePath(source, fn);
  if (typeof source === 'string') {
    const fs = nodeFs(fn);
    let stat;
    try {
      stat = await fs.promises.stat(source);
    } catch (e) {
      const error =
        e.code === 'ENOENT'
          ? new Error(
              `${fn}: there is no folder ${source}: only local folders are read, nothing is downloaded; pass the path of a model folder you have (as save_pretrained() writes it, or downloaded once, e.g. huggingface-cli download NAME --local-dir DIR)`,
            )
          : new Error(`${fn}: cannot open the model folder ${source}: ${e.message}`);
      error.code = e.code;
      throw error;
    }
    if (!stat.isDirectory())
      throw new TypeError(
        `${fn}: ${source} is not a folder (pass the model's folder, with config.json and model.safetensors)`,
      );
    // the folder's files, and those of its sentence-transformers modules' folders (1_Pooling/,
    // 2_Normalize/, ...: modules.json's paths, a number then _) by their relative names, as a
    // FileList of the folder names them; other folders (runs/, onnx/, .git/) are not listed
    const top = source.replace(/\/+$/, '');
    const list = async (sub) => {
      for (const entry of await fs.promises.readdir(sub ? `${top}/${sub}` : top, { withFileTypes: true })) {
        const name = sub ? `${sub}/${entry.name}` : entry.name;
        const s = await fs.promises.stat(`${top}/${name}`).catch(() => null);
        if (s?.isFile()) {
          if (sources.size >= MAX_FILES)
            throw new RangeError(
              `${fn}: the folder ${source} has more than the ${MAX_FILES} files a model folder may have (in it and its module folders)`,
            );
          sources.set(name, new NodeFileSource(`${top}/${name}`, s.size, fs));
        } else if (s?.isDirectory() && !sub && MODULE_FOLDER.test(entry.name)) await list(entry.name);
      }
    };
    await list('');
    return new ModelFiles(sources, `the folder ${source}`);
  }
  // a Blob, or any object shaped as one (index.d.ts's ModelFileBlob: size, slice().arrayBuffer())
  const isBlob = (x) =>
    (typeof Blob === 'function' && x instanceof Blob) ||
    (x !== null &&
      typeof x === 'object' &&
      Number.isSafeInteger(x.size) &&
      x.size >= 0 &&
      typeof x.slice === 'function');
  // a FileList, or an array-like shaped as one (ModelFileList: length, item())
  const isFileList = (x) =>
    (typeof FileList === 'function' && x instanceof FileList) ||
    (x !== null && typeof x === 'object' && Number.isSafeInteger(x.length) && typeof x.item === 'function');
  const list = isFileList(source) || Array.isArray(source) ? source : null;
  if (list) {
    // a folder has tens of files: a list's length is checked before anything is read of it
    if (list.length > MAX_FILES)
      throw new RangeError(`${fn}: a list of ${list.length} files, more than the ${MAX_FILES} a model folder may have`);
    for (const file of Array.from(list)) {
      if (!isBlob(file) || typeof file.name !== 'string') {
        throw new TypeError(`${fn}: a list of files must hold File objects, got ${describe(file)}`);
      }
      const name = relativeName(file);
      // two files of one name (two folders' files dropped together) would make the model whichever came first
      if (sources.has(name))
        throw new Error(`${fn}: the list of files has two named ${name}: give the files of one model folder`);
      sources.set(name, new BlobSource(file, name));
    }
    return new ModelFiles(sources, 'the files given');
  }
  const prototype = source !== null && typeof source === 'object' ? Object.getPrototypeOf(source) : undefined;
  if (prototype === Object.prototype || prototype === null) {
    for (const [name, value] of Object.entries(source)) {
      if (isBlob(value)) sources.set(name, new BlobSource(value, name));
      else if (value instanceof ArrayBuffer) sources.set(name, new BufferSource(new Uint8Array(value)));
      else if (value instanceof Uint8Array) sources.set(name, new BufferSource(value));
      else
        throw new TypeError(`${fn}: file '${name}' must be a Blob, ArrayBuffer or Uint8Array, got ${describe(value)}`);
    }
    return new ModelFiles(sources, 'the files given');
  }
  throw new TypeError(
    `${fn}: source must be a folder path (Node), a FileList, File[] or { name: Blob | ArrayBuffer | Uint8Array }, got ${describe(source)}`,
  );
}
