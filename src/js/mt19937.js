// MT19937 (Matsumoto and Nishimura's Mersenne Twister, 1998) with torch.rand's float32 uniform on
// top: the stream the library's C++ generator gives after `A.manualSeed(seed)`, one `A.rand(1)`
// per draw. It mirrors src/random/torch_generator.{hpp,cpp} (TorchGenerator, after PyTorch's
// CPUGeneratorImpl): the engine is std::mt19937 seeded with init_genrand(seed & 0xffffffff)
// (aten/src/ATen/core/MT19937RNGEngine.h), and a uniform is (u32 & (2^24 - 1)) * 2^-24
// (TorchGenerator::uniform_float, transformation::uniform_real<float> in TransformationHelper.h).
// lm.generate's `seed` draws from one of these per generation, so a seeded generation neither
// reads nor moves the instance's generator, and interleaved generations or other random calls
// between its steps do not change its tokens.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;

export class MT19937 {
  /** `seed`: an integer in [0, 2^53), as A.manualSeed takes; only its low 32 bits seed the engine. */
  constructor(seed) {
    if (typeof seed !== 'number')
      throw new TypeError(`MT19937: seed must be an integer in [0, 2^53), got ${typeof seed}`);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new RangeError(`MT19937: seed must be an integer in [0, 2^53), got ${seed}`);
    const mt = new Uint32Array(N);
    // seed & 0xffffffff: `>>> 0` is ToUint32, the value modulo 2^32, exact for every safe integer
    // (C++'s static_cast<uint32_t>(seed & 0xffffffffULL) of TorchGenerator::manual_seed)
    mt[0] = seed >>> 0;
    // init_genrand: mt[i] = 1812433253 * (mt[i-1] ^ (mt[i-1] >> 30)) + i, modulo 2^32
    for (let i = 1; i < N; i++) mt[i] = Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
    this.mt = mt;
    this.index = N; // the first draw regenerates the state (as std::mt19937 after seed())
  }

  /** The next 32-bit output (genrand_int32; TorchGenerator::random). */
  nextUint32() {
    const mt = this.mt;
    if (this.index >= N) {
      // the twist over the whole state
      for (let i = 0; i < N; i++) {
        const y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER);
        mt[i] = mt[(i + M) % N] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      this.index = 0;
    }
    // tempering
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /**
   * One torch.rand float32 uniform in [0, 1), 24-bit granular: (u32 & (2^24 - 1)) * 2^-24, exact
   * in float64 too (an integer below 2^24 times a power of two), so equal to A.rand(1).data[0].
   */
  uniform() {
    return (this.nextUint32() & 0xffffff) * 2 ** -24;
  }
}
