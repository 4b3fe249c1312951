// Which build init() loads. The package ships each module twice: compiled for WebAssembly SIMD128
// (every engine with SIMD) and for relaxed SIMD (-mrelaxed-simd: the kernels' multiply-adds are
// the fused f32x4.relaxed_madd; Chrome/Edge 114+, Firefox 153 ESR, Node 22+, Node 20 with
// --experimental-wasm-relaxed-simd, not Safari). The engine says which it runs by validating a
// tiny module that uses one relaxed instruction, as wasm-feature-detect's relaxedSimd() does.
import { describe } from './validate.js';

/** The `simd` values init() accepts. */
export const SIMD_CHOICES = ['auto', 'relaxed', 'simd128'];

// (module (func (result v128)
//   (f32x4.relaxed_madd (v128.const i64x2 0 0) (v128.const i64x2 0 0) (v128.const i64x2 0 0))))
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)]; // v128.const, 16 zero bytes
const F32X4_RELAXED_MADD = [0xfd, 0x85, 0x02]; // prefix 0xfd, opcode 0x105 (LEB128)

/** A module whose one function computes `op` on three zero vectors; `op` an instruction's bytes. */
export function ternaryV128Module(op) {
  const body = [0x00, ...V128_ZERO, ...V128_ZERO, ...V128_ZERO, ...op, 0x0b]; // no locals ... end
  const code = [0x01, body.length, ...body]; // one function body
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // "\0asm", version 1
    0x01,
    0x05,
    0x01,
    0x60,
    0x00,
    0x01,
    0x7b, // type section: one type, () -> v128
    0x03,
    0x02,
    0x01,
    0x00, // function section: one function, type 0
    0x0a,
    code.length,
    ...code, // code section
  ]);
}

let relaxedSupported;
/** Whether this engine runs WebAssembly relaxed SIMD (validated once). */
export function relaxedSimdSupported() {
  relaxedSupported ??= typeof WebAssembly === 'object' && WebAssembly.validate(ternaryV128Module(F32X4_RELAXED_MADD));
  return relaxedSupported;
}

/**
 * The SIMD flavour to load: 'relaxed' where the engine validates relaxed SIMD, else 'simd128';
 * `simd` 'relaxed' or 'simd128' forces one (an Error if the engine cannot run relaxed).
 * @param {'auto' | 'relaxed' | 'simd128'} simd
 * @returns {'relaxed' | 'simd128'}
 */
export function chooseSimd(simd) {
  if (!SIMD_CHOICES.includes(simd)) {
    const got = typeof simd === 'string' ? JSON.stringify(simd) : describe(simd);
    throw new TypeError(`init: simd must be ${SIMD_CHOICES.map((s) => `'${s}'`).join(', ')}, got ${got}`);
  }
  if (simd === 'simd128') return 'simd128';
  if (relaxedSimdSupported()) return 'relaxed';
  if (simd === 'relaxed') {
    throw new Error(
      "init: simd: 'relaxed' asks for the relaxed-SIMD build, but this engine does not support " +
        'WebAssembly relaxed SIMD (Chrome/Edge 114+, Firefox 153 ESR, Node 22+, or Node 20 with --experimental-wasm-relaxed-simd); ' +
        "use simd: 'simd128', or leave simd out to pick the fastest build the engine runs",
    );
  }
  return 'simd128';
}

/** The .wasm file of a build, beside the glue in dist/. */
export function wasmFileName(simd, threaded) {
  return `attention_wasm${simd === 'relaxed' ? '_relaxed' : ''}${threaded ? '_mt' : ''}.wasm`;
}

/**
 * How an entry point of the package loads the builds (init's second argument).
 * @typedef {object} Platform
 * @property {number} cores the machine's logical cores (threads: 'auto')
 * @property {string} [simd] the default of init's `simd` option
 * @property {(simd: 'relaxed' | 'simd128') => Promise<object>} singleThread the factory options that
 *   give the single-thread build's glue the .wasm of this flavour
 * @property {(simd: 'relaxed' | 'simd128') => Promise<{create: Function, options: object}>} [threaded]
 *   the threaded build's factory and its options; absent where the entry point does not reach it
 */

/**
 * `attention-wasm` in browsers and bundlers: the single-thread build only, so that bundles never
 * hold the threaded one (threads.js adds it). The glue finds attention_wasm.wasm itself; the
 * relaxed-SIMD binary is named here in the form bundlers recognise (new URL of a literal and
 * import.meta.url), so that they emit it too, and the glue is pointed at it.
 * @type {Platform}
 */
export const browserPlatform = {
  cores: globalThis.navigator?.hardwareConcurrency ?? 1,
  async singleThread(simd) {
    if (simd === 'simd128') return {};
    const url = new URL('./attention_wasm_relaxed.wasm', import.meta.url).href;
    return { locateFile: (path, prefix) => (path.endsWith('.wasm') ? url : prefix + path) };
  },
};
