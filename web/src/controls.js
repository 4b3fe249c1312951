// Reading the page's controls.

/**
 * The integer typed into the input `name` inside `scope`, truncated and clamped to [min, max];
 * min when the input is empty or not a number.
 */
export function intValue(scope, name, min, max) {
  const v = Math.trunc(Number(scope.querySelector(`[name=${name}]`).value));
  return Number.isFinite(v) ? Math.max(min, Math.min(max, v)) : min;
}

/** The largest seed torch.manual_seed takes here (A.manualSeed: [0, 2^53)). */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;
