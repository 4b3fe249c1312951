// Talks to worker.js. run(kind, params) resolves with the result; a newer request of the same
// kind supersedes an older one still waiting (its promise resolves to null), so dragging a
// slider never queues stale work.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const pending = new Map();
const latest = new Map();
let next = 0;
worker.onmessage = ({ data: { id, result, error } }) => {
  const p = pending.get(id);
  pending.delete(id);
  if (!p) return;
  if (latest.get(p.kind) !== id) p.resolve(null);
  else if (error) p.reject(new Error(error));
  else p.resolve(result);
};
worker.onerror = (e) => console.error('worker:', e.message);

export function run(kind, params = {}) {
  const id = next++;
  latest.set(kind, id);
  return new Promise((resolve, reject) => {
    pending.set(id, { kind, resolve, reject });
    worker.postMessage({ id, kind, params });
  });
}
