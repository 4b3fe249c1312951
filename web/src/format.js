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
  const fmt = (v) =>
    Array.isArray(v) ? pyList(v, decimals) : Number.isInteger(v) && decimals === 0 ? String(v) : v.toFixed(decimals);
  return `[${values.map(fmt).join(', ')}]`;
}

/** A 1-row result as a vector (torch's squeeze(0)), for printing. */
export const vec = (t) => ({ toArray: () => Array.from(t.data) });

export const torchSize = (t) => `torch.Size([${t.shape.join(', ')}])`;
export const shapeTuple = (t) => `(${t.shape.join(', ')})`;

// Python's own printing, for E4.6 (document 004 prints Python lists of rounded floats and of tokens).

/**
 * Python's round(x, digits): the double's exact value rounded to `digits` decimals, an exact tie
 * to even. toFixed is correctly rounded but sends ties away from zero; only a dyadic x (0.125)
 * can be an exact tie.
 */
function pyRound(x, digits) {
  const scaled = x * 10 ** digits;
  if (Math.abs(scaled % 1) === 0.5 && scaled / 10 ** digits === x) {
    const even = 2 * Math.round(scaled / 2);
    return even / 10 ** digits;
  }
  return Number(x.toFixed(digits));
}

/** Python's repr of a float: 0.15, -0.03, 1.0, -0.0 (the shortest digits that read back, as JS). */
function pyFloat(x) {
  if (Object.is(x, -0)) return '-0.0';
  if (Number.isInteger(x)) return x.toFixed(1);
  return String(x);
}

/** `[round(v, digits) for v in values]` printed: [0.15, -0.16, 1.0]. */
export const pyRoundedList = (values, digits) =>
  `[${Array.from(values, (v) => pyFloat(pyRound(v, digits))).join(', ')}]`;

/** Python's repr of a str: single quotes unless the text has one and no double quote. */
export function pyStr(s) {
  if (s.includes("'") && !s.includes('"')) return `"${s.replace(/\\/g, '\\\\')}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * A list of strings as a notebook shows it (IPython's pretty printer, 79 columns): the items
 * fill each line, continuation lines indented by one space.
 */
export function pyStrList(items, width = 79) {
  const parts = items.map((s, i) => pyStr(s) + (i === items.length - 1 ? ']' : ','));
  if (!parts.length) return '[]';
  const lines = [];
  let line = `[${parts[0]}`;
  for (const part of parts.slice(1)) {
    if (line.length + 1 + part.length > width) {
      lines.push(line);
      line = ` ${part}`;
    } else {
      line += ` ${part}`;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

/**
 * An int64 tensor as torch prints it: `tensor([ 101, 4339, ...])`, values right-aligned to a
 * common width, as many per line as fit in 80 columns after `tensor(` (torch/_tensor_str.py).
 */
export function torchInts(values) {
  const cells = values.map(String);
  const width = Math.max(...cells.map((c) => c.length));
  const perLine = Math.max(1, Math.floor((80 - 'tensor('.length) / (width + 2)));
  const lines = [];
  for (let i = 0; i < cells.length; i += perLine)
    lines.push(
      cells
        .slice(i, i + perLine)
        .map((c) => c.padStart(width))
        .join(', '),
    );
  return `tensor([${lines.join(',\n        ')}])`;
}
