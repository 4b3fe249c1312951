// The hover text of an attention-weight cell: how the value was computed, read from the
// intermediates that scaledDotProductAttention returns (scores, scaled, masked, weights).
export function attentionDetail(r, { rows, cols, scale, offset = 0 }) {
  const m = r.weights.shape.at(-1);
  return (i, j) => {
    const k = offset + i * m + j;
    const masked = r.masked.data[k] === -Infinity;
    const f = (v) => v.toFixed(4);
    return (
      `${rows[i]} → ${cols[j]}: q·k = ${f(r.scores.data[k])}; × ${f(scale)} = ${f(r.scaled.data[k])}` +
      (masked ? '; masked → −∞' : '') +
      `; softmax over the row → ${f(r.weights.data[k])}`
    );
  };
}

/** Rows of an (n, m) slice of a flat tensor starting at offset. */
export function slice2d(t, n, m, offset = 0) {
  return Array.from({ length: n }, (_, i) => Array.from(t.data.subarray(offset + i * m, offset + (i + 1) * m)));
}
