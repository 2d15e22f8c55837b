// The one seeded generator of the tests, fuzzers and benches (mulberry32): the same seed gives the same sequence on
// every machine, so a random failure reproduces from the seed it prints.

/** A mulberry32 stream from `seed`: each call returns the next uniform 32-bit unsigned integer. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** A mulberry32 stream from `seed` as floats: each call returns the next uniform value in [0, 1). */
export function prng(seed: number): () => number {
  const u32 = mulberry32(seed);
  return () => u32() / 4294967296;
}
