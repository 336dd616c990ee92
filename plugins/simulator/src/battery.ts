/** A 16-cell LFP pack: open-circuit voltage from SOC, terminal voltage under current. */

/** [SOC %, open-circuit volts]: flat in the middle, steep at both ends, as LFP is. */
const OPEN_CIRCUIT_CURVE: ReadonlyArray<readonly [number, number]> = [
  [0, 44.0],
  [5, 49.6],
  [10, 51.2],
  [20, 51.8],
  [40, 52.3],
  [60, 52.6],
  [80, 53.0],
  [90, 53.3],
  [95, 53.6],
  [100, 55.2],
];

/** Internal resistance of the pack in ohms. */
const INTERNAL_RESISTANCE = 0.02;

export function openCircuitVoltage(soc: number): number {
  const curve = OPEN_CIRCUIT_CURVE;
  if (soc <= curve[0]![0]) return curve[0]![1];
  for (let i = 1; i < curve.length; i++) {
    const [s1, v1] = curve[i]!;
    if (soc <= s1) {
      const [s0, v0] = curve[i - 1]!;
      return v0 + ((v1 - v0) * (soc - s0)) / (s1 - s0);
    }
  }
  return curve[curve.length - 1]![1];
}

/**
 * Terminal voltage and current for a pack power (W, + charging): V = OCV + R*I with I = P/V,
 * solved for V.
 */
export function terminalVoltage(soc: number, powerW: number): { voltage: number; current: number } {
  const ocv = openCircuitVoltage(soc);
  const discriminant = Math.max(0, ocv * ocv + 4 * INTERNAL_RESISTANCE * powerW);
  const voltage = (ocv + Math.sqrt(discriminant)) / 2;
  return { voltage, current: powerW / voltage };
}
