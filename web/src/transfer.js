// What a worker's answer can hand over rather than copy: the buffers of the typed arrays in a
// job's result. The model explorer's attentions at 512 tokens are 75 MB per sentence (6 layers x
// 12 heads x 512 x 512 float32); copied, their arrival would be one long task on the page's main
// thread, transferred it costs nothing. Shared memory (the threaded build's) is never
// transferable, and is left out.

/** The ArrayBuffers behind the typed arrays in `value` (plain objects and arrays, any depth). */
export function transferables(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) found.add(value.buffer);
  } else if (Array.isArray(value)) {
    for (const v of value) transferables(v, found);
  } else if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value)) transferables(v, found);
  }
  return [...found];
}
