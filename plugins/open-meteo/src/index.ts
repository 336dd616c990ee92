/**
 * Open-Meteo forecast plugin: the seven weather/* topics, with PV power predicted from the
 * global tilted irradiance of each panel array.
 *
 * One request per array (Open-Meteo computes tilted irradiance for one orientation per
 * request); the arrays' AC power is summed. Temperatures are asked for and published in the
 * site's unit; the cell temperature of the PV model is always worked out in °C.
 *
 * A point at time T covers the quarter hour [T, T+15 min). Open-Meteo stamps radiation at the
 * END of the quarter hour it averages, so PV power and irradiance move 15 minutes earlier;
 * instantaneous values (temperature, cloud cover, wind, weather code, day) keep their time.
 */
import {
  apiAddressField,
  definePlugin,
  fetchIntervalField,
  plantLocation,
  pvPlantFields,
  z,
  type ForecastPoints,
  type ForecastTopic,
} from '@heliograph/plugins-sdk';
import { fetchMinutely15, type Minutely15 } from './client.js';
import { arrayPowerW, fahrenheitToCelsius, type PanelArray, type PvModel } from './pv.js';

const QUARTER_HOUR_MS = 15 * 60_000;

export const configSchema = z.object({
  baseUrl: apiAddressField({ default: 'https://api.open-meteo.com', description: 'Open-Meteo API base URL.' }),
  ...pvPlantFields,
  // Open-Meteo's model runs update hourly at best and its free limit is 10,000 calls a day,
  // so every 30 minutes keeps the forecast fresh at a few hundred calls a day.
  intervalMinutes: fetchIntervalField({ description: 'Minutes between fetches.' }),
  forecastDays: z
    .number()
    .int()
    .min(1, 'must be from 1 to 4 (days, today included)')
    .max(4, 'must be from 1 to 4 (days, today included)')
    .default(3)
    .describe('Days ahead to fetch (today counts as one).')
    .meta({ title: 'Days ahead' }),
  performanceRatio: z
    .number()
    .gt(0, 'must be more than 0 and at most 1 (a fraction, e.g. 0.85 for 85 %)')
    .max(1, 'must be more than 0 and at most 1 (a fraction, e.g. 0.85 for 85 %)')
    .default(0.85)
    .describe('Share of the DC rating that reaches AC (losses in wiring, inverter, soiling).')
    .meta({ title: 'Performance ratio' }),
  temperatureCoefficient: z
    .number()
    .min(-0.01, 'must be from -0.01 to 0 (per kelvin, e.g. -0.004 for -0.4 %/K)')
    .max(0, 'must be from -0.01 to 0 (per kelvin, e.g. -0.004 for -0.4 %/K)')
    .default(-0.004)
    .describe('Power change per kelvin of cell temperature above 25 °C.')
    .meta({ title: 'Temperature coefficient (per kelvin)' }),
});

export type OpenMeteoConfig = z.output<typeof configSchema>;

export default definePlugin({
  id: 'open-meteo',
  configSchema,
  setup(ctx, config) {
    const { latitude, longitude } = plantLocation(config, ctx.site);
    const model: PvModel = {
      performanceRatio: config.performanceRatio,
      temperatureCoefficient: config.temperatureCoefficient,
    };

    ctx.scheduler.every({
      name: 'forecast',
      intervalMs: config.intervalMinutes * 60_000,
      run: async ({ signal }) => {
        // All arrays first: one failed request publishes nothing, so the last good run stays.
        const answers: Minutely15[] = [];
        for (const array of config.arrays) {
          answers.push(
            await fetchMinutely15(ctx.http, {
              baseUrl: config.baseUrl,
              latitude,
              longitude,
              array,
              temperatureUnit: ctx.site.temperatureUnit,
              forecastDays: config.forecastDays,
              signal,
            }),
          );
        }
        const series = toSeries(config.arrays, answers, model, ctx.site.temperatureUnit);
        ctx.forecast.publish({ series, fetchedAt: ctx.now() });
        ctx.log.debug('forecast fetched', { points: series.pv_power_predicted?.length ?? 0 });
      },
    });
  },
});

/** The weather series of one fetch, from the answers of every array (in config order). */
export function toSeries(
  arrays: readonly PanelArray[],
  answers: readonly Minutely15[],
  model: PvModel,
  unit: 'C' | 'F',
): Partial<Record<ForecastTopic, ForecastPoints>> {
  const first = answers[0]!;
  // The arrays' answers are joined by time, not by position, in case their ranges differ.
  const indexes = answers.map((a) => new Map(a.time.map((t, i) => [t, i])));
  const totalKWp = arrays.reduce((sum, a) => sum + a.kWp, 0);
  const pv: ForecastPoints = [];
  const gti: ForecastPoints = [];
  const instant = (name: keyof Omit<Minutely15, 'time'>): ForecastPoints =>
    first.time.map((t, i) => [t * 1000, first[name][i] ?? null]);

  first.time.forEach((t, i) => {
    const airTemp = first.temperature_2m[i] ?? null;
    const airTempC = airTemp === null ? null : unit === 'F' ? fahrenheitToCelsius(airTemp) : airTemp;
    let power: number | null = 0;
    let weighted: number | null = 0;
    for (let a = 0; a < arrays.length; a++) {
      const j = indexes[a]!.get(t);
      const irradiance = j === undefined ? null : (answers[a]!.global_tilted_irradiance[j] ?? null);
      if (irradiance === null) {
        power = weighted = null;
        break;
      }
      power += arrayPowerW(arrays[a]!, model, irradiance, airTempC);
      weighted += irradiance * arrays[a]!.kWp;
    }
    const start = t * 1000 - QUARTER_HOUR_MS;
    pv.push([start, power]);
    gti.push([start, weighted === null ? null : weighted / totalKWp]);
  });

  return {
    pv_power_predicted: pv,
    global_tilted_irradiance: gti,
    outside_temperature: instant('temperature_2m'),
    weather_code: instant('weather_code'),
    is_day: instant('is_day'),
    cloud_cover: instant('cloud_cover'),
    wind_speed: instant('wind_speed_10m'),
  };
}
