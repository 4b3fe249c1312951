// User timing of the page's drawing: each named step is a performance.measure ('aw: <name>'),
// seen in the browser's performance panel and read by the page tests, which report the longest
// of each (tests/web/scale.test.mjs) beside the long tasks they assert there are none of.

/** fn() measured as 'aw: name'; returns its result. */
export function timed(name, fn) {
  const start = performance.now();
  try {
    return fn();
  } finally {
    performance.measure(`aw: ${name}`, { start });
  }
}
