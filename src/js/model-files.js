// The files of a Hugging Face model folder, from wherever the user has them:
//   Node      a folder path (string); read with node:fs, found through process.getBuiltinModule
//             so that browser bundles never import a Node module
//   browsers  a FileList (file picker, a dropped folder) or File[]; or an object
//             { 'config.json': Blob | ArrayBuffer | Uint8Array, ... }
// Large files are read in chunks: Node into one reusable buffer, a Blob by slice().arrayBuffer()
// per chunk, an in-memory buffer as views of it. Nothing reads a whole weights file into JS.
import { describe } from './tensor.js';

function nodeFs(fn) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (!fs)
    throw new TypeError(
      `${fn}: a folder path needs Node (>= 20.16); in a browser pass a FileList, File[] or { name: Blob }`,
    );
  return fs;
}

/** The name of a file inside the folder: a dropped folder's File has 'folder/sub/x.json'. */
function relativeName(file) {
  const path = file.webkitRelativePath || file.name;
  const parts = path.split('/');
  return file.webkitRelativePath && parts.length > 1 ? parts.slice(1).join('/') : path;
}

/** One file: its size and reads of byte ranges. */
class BlobSource {
  constructor(blob) {
    this.blob = blob;
    this.size = blob.size;
  }
  async read(begin, end) {
    return new Uint8Array(await this.blob.slice(begin, end).arrayBuffer());
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
  async close() {}
}

class NodeFileSource {
  constructor(path, size, fs) {
    this.path = path;
    this.size = size;
    this.fs = fs;
    this.handle = null;
    this.buffer = null;
  }
  async open() {
    this.handle ??= await this.fs.promises.open(this.path, 'r');
    return this.handle;
  }
  /** Reads into a buffer reused by every call: the view is valid until the next read. */
  async read(begin, end) {
    const length = end - begin;
    if (!this.buffer || this.buffer.length < length) this.buffer = new Uint8Array(length);
    const handle = await this.open();
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(this.buffer, done, length - done, begin + done);
      if (bytesRead === 0)
        throw new Error(
          `${this.path}: the file ended at ${begin + done} bytes, ${this.size} were expected (did it change while loading?)`,
        );
      done += bytesRead;
    }
    return this.buffer.subarray(0, length);
  }
  async close() {
    await this.handle?.close();
    this.handle = null;
  }
}

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

  /** Bytes [begin, end) of a file (a view that may be reused by the next read of that file). */
  async read(name, begin = 0, end = this.size(name)) {
    return this.source(name).read(begin, Math.min(end, this.size(name)));
  }

  async text(name) {
    const bytes = await this.read(name);
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
   * The bytes of `ranges` ([begin, end) in file order) in chunks of at most `chunkBytes`:
   * yields { offset, bytes }, a view valid until the next chunk.
   */
  async *chunks(name, ranges, chunkBytes) {
    for (const [begin, end] of ranges) {
      for (let offset = begin; offset < end; offset += chunkBytes) {
        yield { offset, bytes: await this.read(name, offset, Math.min(end, offset + chunkBytes)) };
      }
    }
  }

  async close() {
    for (const s of this.sources.values()) await s.close();
  }
}

/**
 * Opens a model folder. `fn` names the calling function in messages.
 * @param {string | FileList | File[] | Record<string, Blob | ArrayBuffer | Uint8Array>} source
 */
export async function openModelFiles(source, fn) {
  const sources = new Map();
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
    for (const entry of await fs.promises.readdir(source, { withFileTypes: true })) {
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const path = `${source.replace(/\/+$/, '')}/${entry.name}`;
      const s = await fs.promises.stat(path).catch(() => null);
      if (s?.isFile()) sources.set(entry.name, new NodeFileSource(path, s.size, fs));
    }
    return new ModelFiles(sources, `the folder ${source}`);
  }
  const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;
  const list =
    typeof FileList === 'function' && source instanceof FileList
      ? Array.from(source)
      : Array.isArray(source)
        ? source
        : null;
  if (list) {
    for (const file of list) {
      if (!isBlob(file) || typeof file.name !== 'string') {
        throw new TypeError(`${fn}: a list of files must hold File objects, got ${describe(file)}`);
      }
      const name = relativeName(file);
      // a file at the folder's top wins over one of the same name in a subfolder
      if (!sources.has(name)) sources.set(name, new BlobSource(file));
    }
    return new ModelFiles(sources, 'the files given');
  }
  if (source !== null && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    for (const [name, value] of Object.entries(source)) {
      if (isBlob(value)) sources.set(name, new BlobSource(value));
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
