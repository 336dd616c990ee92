/** Rounds to `decimals` places without float noise in the JSON (0.1 + 0.2 shows as 0.3; -0 as 0). */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
}
