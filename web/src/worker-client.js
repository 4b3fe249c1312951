// Talks to worker.js. run(kind, params) resolves with the result. Latest wins per key (the kind
// unless given): at most one request per key is in the worker at a time, and a newer request
// replaces the one still waiting here (its promise resolves to null, as does an answer that a
// newer request has made stale), so dragging a slider never makes the worker compute stale work.
// onProgress receives the progress a job reports (E4.6's load: bytes read).
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const inFlight = new Map(); // id -> { key, resolve, reject, onProgress }
const busy = new Set(); // keys with a request in the worker
const waiting = new Map(); // key -> the newest request not yet sent { kind, params, resolve, reject, onProgress }
let next = 0;

function send(key, request) {
  const id = next++;
  busy.add(key);
  inFlight.set(id, { key, ...request });
  worker.postMessage({ id, kind: request.kind, params: request.params });
}

worker.onmessage = ({ data: { id, result, error, progress } }) => {
  const p = inFlight.get(id);
  if (!p) return;
  if (progress !== undefined) {
    p.onProgress?.(progress);
    return;
  }
  inFlight.delete(id);
  busy.delete(p.key);
  const newer = waiting.get(p.key);
  if (newer) {
    waiting.delete(p.key);
    p.resolve(null);
    send(p.key, newer);
  } else if (error) p.reject(new Error(error));
  else p.resolve(result);
};
worker.onerror = (e) => console.error('worker:', e.message);

export function run(kind, params = {}, { key = kind, onProgress } = {}) {
  return new Promise((resolve, reject) => {
    const request = { kind, params, resolve, reject, onProgress };
    if (!busy.has(key)) {
      send(key, request);
      return;
    }
    waiting.get(key)?.resolve(null);
    waiting.set(key, request);
  });
}
