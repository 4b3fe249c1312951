// Talks to worker.js. run(kind, params) resolves with the result. Latest wins per key (the kind
// unless given): at most one request per key is in the worker at a time, and a newer request
// replaces the one still waiting here (its promise resolves to null, as does an answer that a
// newer request has made stale), so dragging a slider never makes the worker compute stale work.
// onProgress receives the progress a job reports (a load: bytes read; a generation: its steps).
//
// The watchdog: a job that runs past its time bound (timeBound: 30 s; a model load 60 s plus
// 1 s per 20 MB of files; a generation 60 s plus 20 ms per prompt character; counted again from
// each progress message it sends) is ended by terminating the worker, which is the only way to
// stop a JavaScript or wasm call that does not return. Its promise rejects with a message saying so;
// a fresh worker starts, the jobs that were waiting are sent to it, and onRestart's listeners
// learn that what the old worker held (the reader's model) is gone. The bound counts from the
// moment the worker starts the job ({id, started}), not while it waits behind another.
// Test hook (tests/web/watchdog.test.mjs): the page's URL may set the base bound in
// milliseconds (?watchdog=2000) and make the first job of one kind never return (?stall=load).
const query = new URLSearchParams(globalThis.location?.search ?? '');
const BASE_MS = Number(query.get('watchdog')) || 30000;
let stallKind = query.get('stall');

/**
 * A job's time bound in milliseconds: loads (E4.6's, the LM's) get twice the base and 1 s per
 * 20 MB of files; a generation twice the base and 20 ms per character of its prompt (the prompt
 * runs through the model before the first step; each step counts the bound again).
 */
export function timeBound(kind, params) {
  if (kind === 'generate') return 2 * BASE_MS + 20 * (params.prompt?.length ?? 0);
  if (kind !== 'load' && kind !== 'lmLoad') return BASE_MS;
  const bytes = (params.files ?? []).reduce((sum, f) => sum + (f.size ?? 0), 0);
  return 2 * BASE_MS + (bytes / 20e6) * 1000;
}

let worker = null;
const inFlight = new Map(); // id -> { key, kind, params, resolve, reject, onProgress, timer }
const busy = new Set(); // keys with a request in the worker
const waiting = new Map(); // key -> the newest request not yet sent { kind, params, resolve, reject, onProgress }
const restartListeners = new Set();
let next = 0;
/** How many times the watchdog restarted the worker (read by the page tests). */
export const watchdog = { restarts: 0, last: null };

function send(key, request) {
  const id = next++;
  busy.add(key);
  inFlight.set(id, { key, ...request, timer: null });
  let params = request.params;
  if (stallKind === request.kind) {
    stallKind = null; // once
    params = { ...params, stall: true };
  }
  worker.postMessage({ id, kind: request.kind, params });
}

function finish(id) {
  const p = inFlight.get(id);
  clearTimeout(p.timer);
  inFlight.delete(id);
  busy.delete(p.key);
  return p;
}

function onMessage({ data: { id, result, error, progress, started } }) {
  const p = inFlight.get(id);
  if (!p) return;
  if (started) {
    const ms = timeBound(p.kind, p.params);
    p.timer = setTimeout(() => expire(id, ms), ms);
    return;
  }
  if (progress !== undefined) {
    // a sign of life: the bound counts again from here (a generation's steps, a load's chunks)
    if (p.timer) {
      clearTimeout(p.timer);
      const ms = timeBound(p.kind, p.params);
      p.timer = setTimeout(() => expire(id, ms), ms);
    }
    p.onProgress?.(progress);
    return;
  }
  finish(id);
  const newer = waiting.get(p.key);
  if (newer) {
    waiting.delete(p.key);
    p.resolve(null);
    send(p.key, newer);
  } else if (error) p.reject(new Error(error));
  else p.resolve(result);
}

/** The watchdog: job `id` ran past its bound. */
function expire(id, ms) {
  const p = finish(id);
  const message = `the page's worker was stopped after ${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s on '${p.kind}' (past its time bound) and restarted`;
  watchdog.restarts++;
  watchdog.last = message;
  worker.terminate();
  const others = [...inFlight.values()]; // sent to the old worker, not done: send again
  inFlight.clear();
  busy.clear();
  start();
  p.reject(new Error(message));
  for (const o of others) send(o.key, o);
  for (const listener of restartListeners) listener(message);
}

function start() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = onMessage;
  worker.onerror = (e) => console.error('worker:', e.message);
}
start();

/** Calls listener(message) after the watchdog restarted the worker (its state is gone). */
export function onRestart(listener) {
  restartListeners.add(listener);
}

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

// the page tests reach the jobs and the watchdog through the test hook's page only
if (query.has('watchdog')) globalThis.awWorker = { run, watchdog, timeBound };
