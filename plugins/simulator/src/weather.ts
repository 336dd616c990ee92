/**
 * Seeded weather: cloud cover, air temperature, wind and rain as smooth functions of time.
 * `expectedWeather` is what a forecast would say; live PV additionally sees passing clouds
 * (`liveCloudCover`), so actuals scatter around the forecast the way real ones do.
 */
import { Channel, clamp, hash01, valueNoise } from './random.js';

const HOUR = 3_600_000;
const YEAR = 365.2425 * 24 * HOUR;
/** Around 20 July, the warmest time of year north of the equator. */
const SUMMER_PEAK = Date.UTC(2000, 6, 20);

export interface WeatherSample {
  /** 0..1 */
  cloudCover: number;
  temperatureC: number;
  windKmh: number;
  /** 0 dry, up to 1 heavy rain or snow. */
  precipitation: number;
}

export function expectedWeather(seed: number, latitude: number, longitude: number, t: number): WeatherSample {
  // Slow regimes (fronts) lasting a day or two, with a few hours of detail on top.
  const regime = valueNoise(seed, Channel.cloudRegime, t, 36 * HOUR);
  const detail = valueNoise(seed, Channel.cloudDetail, t, 3 * HOUR);
  const cloudCover = clamp(regime * 1.4 - 0.2 + (detail - 0.5) * 0.5, 0, 1);

  const rainChance = valueNoise(seed, Channel.rain, t, 2 * HOUR);
  const precipitation = cloudCover > 0.8 && rainChance > 0.6 ? clamp((rainChance - 0.6) * 2.5, 0.05, 1) : 0;

  const absLat = Math.abs(latitude);
  const annualMean = 27 - 0.33 * absLat;
  const seasonalSwing = 0.18 * absLat;
  const season = Math.cos((2 * Math.PI * (t - SUMMER_PEAK)) / YEAR) * (latitude >= 0 ? 1 : -1);
  // Warmest at 15:00 solar time; clouds damp the daily swing.
  const solarHour = (((t / HOUR + longitude / 15) % 24) + 24) % 24;
  const dailySwing = (2.5 + 4 * (1 - cloudCover)) * Math.cos((2 * Math.PI * (solarHour - 15)) / 24);
  const spell = (valueNoise(seed, Channel.temperature, t, 48 * HOUR) - 0.5) * 8;
  const temperatureC = annualMean + seasonalSwing * season + dailySwing + spell;

  const windKmh = 4 + 30 * valueNoise(seed, Channel.wind, t, 8 * HOUR) ** 2 + 6 * cloudCover;
  return { cloudCover, temperatureC, windKmh, precipitation };
}

/** Cloud cover as the panels see it: passing clouds, strongest on half-cloudy days. */
export function liveCloudCover(seed: number, t: number, expectedCloudCover: number): number {
  const passing = valueNoise(seed, Channel.passingClouds, t, 4 * 60_000) - 0.5;
  const flicker = hash01(seed, Channel.passingClouds, Math.floor(t / 20_000)) - 0.5;
  const variability = 4 * expectedCloudCover * (1 - expectedCloudCover);
  return clamp(expectedCloudCover + variability * (0.7 * passing + 0.15 * flicker), 0, 1);
}

/** Share of clear-sky light that gets through (Kasten and Czeplak). */
export function clearSkyFraction(cloudCover: number): number {
  return 1 - 0.75 * cloudCover ** 3.4;
}

/** The WMO weather code a forecast service would report for this sample. */
export function wmoWeatherCode(sample: WeatherSample): number {
  if (sample.precipitation > 0) {
    if (sample.temperatureC < 0.5) return sample.precipitation > 0.6 ? 73 : 71;
    return sample.precipitation > 0.6 ? 63 : 61;
  }
  if (sample.cloudCover < 0.1) return 0;
  if (sample.cloudCover < 0.35) return 1;
  if (sample.cloudCover < 0.7) return 2;
  return 3;
}
