// A plain static file server over build/site, as a host that knows nothing of this project would
// serve it: right MIME types, no COOP/COEP (so the page is not cross-origin isolated).
// sirv (the static handler Vite's own preview server is built on, maintained with it) rather than
// a hand-written one: path normalisation, traversal checks and MIME types are its job.
import { createServer } from 'node:http';
import sirv from 'sirv';

/** Serves `dir` on 127.0.0.1 (a free port); resolves with the node:http server, listening. */
export async function staticServer(dir) {
  const serve = sirv(dir, { dev: false, etag: false });
  const server = createServer((req, res) => serve(req, res, () => res.writeHead(404).end()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
