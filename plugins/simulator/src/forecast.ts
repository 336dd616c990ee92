/**
 * The demo forecast: what a weather service would say about the simulated sky, at 15-minute
 * resolution from 48 hours back to 72 hours ahead (the span real providers are asked for).
 */
import type { ForecastPoints, ForecastTopic } from '@heliograph/plugins-sdk';
import { roundTo } from './random.js';
import { pvYieldAt, type SiteModel } from './site.js';
import { clearSkyTiltedIrradiance, sunElevationDeg, sunVector } from './sun.js';
import { clearSkyFraction, expectedWeather, wmoWeatherCode } from './weather.js';

export const FORECAST_STEP_MS = 15 * 60_000;
export const FORECAST_PAST_MS = 48 * 3_600_000;
export const FORECAST_AHEAD_MS = 72 * 3_600_000;
/** Irradiance and PV at T are the mean over [T, T+15 min), the API's meaning of a forecast point. */
const SUBSAMPLES = 3;

export function demoForecast(
  model: SiteModel,
  now: number,
  temperatureUnit: 'C' | 'F',
): Record<ForecastTopic, ForecastPoints> {
  const series: Record<ForecastTopic, ForecastPoints> = {
    pv_power_predicted: [],
    outside_temperature: [],
    weather_code: [],
    is_day: [],
    cloud_cover: [],
    wind_speed: [],
    global_tilted_irradiance: [],
  };
  const first = Math.floor(now / FORECAST_STEP_MS) * FORECAST_STEP_MS - FORECAST_PAST_MS;
  const last = first + FORECAST_PAST_MS + FORECAST_AHEAD_MS;
  for (let t = first; t <= last; t += FORECAST_STEP_MS) {
    const weather = expectedWeather(model.seed, model.latitude, model.longitude, t);
    let irradiance = 0;
    let pv = 0;
    for (let s = 0; s < SUBSAMPLES; s++) {
      const ts = t + ((s + 0.5) * FORECAST_STEP_MS) / SUBSAMPLES;
      const sample = expectedWeather(model.seed, model.latitude, model.longitude, ts);
      irradiance +=
        clearSkyTiltedIrradiance(sunVector(ts, model.latitude, model.longitude), model.panel) *
        clearSkyFraction(sample.cloudCover);
      for (const inverter of model.inverters) {
        pv += Math.min(inverter.peakW, inverter.peakW * pvYieldAt(model, ts, sample.cloudCover, sample.temperatureC));
      }
    }
    const temperature = temperatureUnit === 'F' ? (weather.temperatureC * 9) / 5 + 32 : weather.temperatureC;
    series.pv_power_predicted.push([t, Math.round(pv / SUBSAMPLES)]);
    series.outside_temperature.push([t, roundTo(temperature, 1)]);
    series.weather_code.push([t, wmoWeatherCode(weather)]);
    series.is_day.push([t, sunElevationDeg(sunVector(t, model.latitude, model.longitude)) > 0 ? 1 : 0]);
    series.cloud_cover.push([t, Math.round(weather.cloudCover * 100)]);
    series.wind_speed.push([t, roundTo(weather.windKmh, 1)]);
    series.global_tilted_irradiance.push([t, roundTo(irradiance / SUBSAMPLES, 1)]);
  }
  return series;
}
