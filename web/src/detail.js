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

/** The (n, m) matrix of a flat tensor's data from `offset`, as the heat maps take it (no copy). */
export const matrixOf = (t, n, m, offset = 0) => ({ data: t.data, offset, n, m });
