/**
 * Counter-based noise: a value depends only on (seed, channel, index), never on how often or
 * in what order it was asked for. A stateful PRNG would make the weather depend on the poll
 * interval and on restarts; this way live polling, backfill and the demo forecast all see
 * the same sky for the same seed.
 */

/** Independent noise streams, one per thing that varies. */
export const Channel = {
  cloudRegime: 1,
  cloudDetail: 2,
  passingClouds: 3,
  rain: 4,
  temperature: 5,
  wind: 6,
  loadNoise: 7,
  fridge: 8,
  priceDay: 9,
  priceSlot: 10,
  serial: 11,
  /** Appliances use `appliance + index`. */
  appliance: 100,
} as const;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) for (seed, channel, index); `index` may exceed 32 bits. */
export function hash01(seed: number, channel: number, index: number): number {
  const lo = index >>> 0;
  const hi = Math.floor(index / 4294967296) | 0;
  let h = fmix32((seed | 0) ^ 0x9e3779b9);
  h = fmix32(h ^ Math.imul(channel, 0x27d4eb2f));
  h = fmix32(h ^ lo);
  h = fmix32(h ^ Math.imul(hi, 0x165667b1));
  return h / 4294967296;
}

/** Smooth noise in [0, 1): random knots every `periodMs`, eased between them. */
export function valueNoise(seed: number, channel: number, t: number, periodMs: number): number {
  const x = t / periodMs;
  const k = Math.floor(x);
  const f = x - k;
  const s = f * f * (3 - 2 * f);
  const a = hash01(seed, channel, k);
  return a + (hash01(seed, channel, k + 1) - a) * s;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Rounds to `digits` decimals without float noise in the printed value. */
export function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
