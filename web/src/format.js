// Printing helpers: the documents print NumPy arrays (001, 004) and Python lists (003); torch
// tensors print themselves (Tensor#toString). Values are always computed elsewhere.

/** Rows of a 1-D or 2-D tensor as nested JS arrays. */
export function rows(t) {
  const a = t.toArray();
  return Array.isArray(a[0]) ? a : [a];
}

/**
 * NumPy's repr of a float array after `.round(decimals)`, e.g. `[0.   0.99 0.   0.01]`:
 * shortest digits per value, fraction padded on the right and integer part (with sign) on the
 * left to a common width, elements separated by one space, rows on new lines.
 */
export function numpyString(t, decimals) {
  const nested = t.toArray();
  const flat = Array.isArray(nested[0]) ? nested.flat() : nested;
  const parts = flat.map((v) => {
    let s = (Math.round(v * 10 ** decimals) / 10 ** decimals).toFixed(decimals);
    if (/^-0\.?0*$/.test(s) && v > -0.5 * 10 ** -decimals) s = s.slice(1); // numpy keeps -0. only for a negative zero
    s = s.replace(/0+$/, '');
    const [int, frac] = s.split('.');
    return { int, frac };
  });
  const wi = Math.max(...parts.map((p) => p.int.length));
  const wf = Math.max(...parts.map((p) => p.frac.length));
  const cells = parts.map((p) => `${p.int.padStart(wi)}.${p.frac.padEnd(wf)}`);
  if (!Array.isArray(nested[0])) return `[${cells.join(' ')}]`;
  const n = nested[0].length;
  const lines = nested.map((_, i) => `[${cells.slice(i * n, (i + 1) * n).join(' ')}]`);
  return `[${lines.join('\n ')}]`;
}

/** A Python list as 003 prints it: integers as `4`, otherwise `decimals` places (`0.5`). */
export function pyList(values, decimals = 1) {
  const fmt = (v) => (Array.isArray(v) ? pyList(v, decimals)
    : Number.isInteger(v) && decimals === 0 ? String(v) : v.toFixed(decimals));
  return `[${values.map(fmt).join(', ')}]`;
}

/** A 1-row result as a vector (torch's squeeze(0)), for printing. */
export const vec = (t) => ({ toArray: () => Array.from(t.data) });

export const torchSize = (t) => `torch.Size([${t.shape.join(', ')}])`;
export const shapeTuple = (t) => `(${t.shape.join(', ')})`;

