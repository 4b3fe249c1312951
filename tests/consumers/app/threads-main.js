// A user's app that opts into threads: a module Worker (a page's main thread may not block on the
// pool's threads) runs threads-worker.js; the page shows what it computed.
const worker = new Worker(new URL('./threads-worker.js', import.meta.url), { type: 'module' });
const show = (result) => {
  document.querySelector('#result').textContent = JSON.stringify(result);
};
worker.onmessage = ({ data }) => show(data);
worker.onerror = (e) => show({ error: e.message });
