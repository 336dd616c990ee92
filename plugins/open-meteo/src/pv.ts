/** Panel arrays and the PVWatts-style model that turns tilted irradiance into AC power. */

export interface PanelArray {
  /** Degrees from horizontal: 0 = flat, 90 = vertical. */
  tilt: number;
  /** Degrees: 0 = south, -90 = east, 90 = west, ±180 = north (Open-Meteo's convention). */
  azimuth: number;
  /** Peak power in kW. */
  kWp: number;
  /** AC limit of the inverter behind the array, in W. */
  acLimitW?: number;
}

export interface PvModel {
  /** Performance ratio: wiring, inverter and soiling losses together (about 0.85). */
  performanceRatio: number;
  /** Power change per kelvin of cell temperature above 25 °C (about -0.004). */
  temperatureCoefficient: number;
}

/** Cell heating per W/m² of irradiance, in kelvin (a glass-backsheet rack mount). */
const CELL_HEATING_K_PER_W_M2 = 0.0342;

/**
 * AC power in W of one array: `kWp*1000 * GTI/1000 * (1 + gamma*(T_cell - 25)) * PR`, with
 * `T_cell = T_air + GTI*0.0342` in °C, clamped to [0, AC limit]. Without an air temperature
 * the derating is left out rather than guessed.
 */
export function arrayPowerW(array: PanelArray, model: PvModel, gti: number, airTempC: number | null): number {
  const derate =
    airTempC === null ? 1 : 1 + model.temperatureCoefficient * (airTempC + gti * CELL_HEATING_K_PER_W_M2 - 25);
  const power = array.kWp * gti * derate * model.performanceRatio;
  return Math.min(Math.max(power, 0), array.acLimitW ?? Number.POSITIVE_INFINITY);
}

export function fahrenheitToCelsius(f: number): number {
  return ((f - 32) * 5) / 9;
}
