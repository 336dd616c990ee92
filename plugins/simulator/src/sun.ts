/**
 * Where the sun is and how much light a clear sky gives a tilted panel. Accuracy of a
 * fraction of a degree is plenty for a simulation; the formulas are the usual low-precision
 * ones (Astronomical Almanac), the clear-sky beam is Meinel's air-mass model with
 * Kasten-Young air mass.
 */

const DEG = Math.PI / 180;
const MS_PER_DAY = 86_400_000;
/** 2000-01-01T12:00Z in days since the Unix epoch. */
const J2000_DAYS = 10957.5;

/** Unit vector towards the sun in local east/north/up coordinates; `up` is sin(elevation). */
export interface SunVector {
  east: number;
  north: number;
  up: number;
}

export function sunVector(time: number, latitudeDeg: number, longitudeDeg: number): SunVector {
  const d = time / MS_PER_DAY - J2000_DAYS;
  const meanAnomaly = (357.529 + 0.98560028 * d) * DEG;
  const meanLongitude = 280.459 + 0.98564736 * d;
  const eclipticLongitude = (meanLongitude + 1.915 * Math.sin(meanAnomaly) + 0.02 * Math.sin(2 * meanAnomaly)) * DEG;
  const obliquity = (23.439 - 0.00000036 * d) * DEG;
  const rightAscension = Math.atan2(Math.cos(obliquity) * Math.sin(eclipticLongitude), Math.cos(eclipticLongitude));
  const declination = Math.asin(Math.sin(obliquity) * Math.sin(eclipticLongitude));
  const siderealDeg = (18.697374558 + 24.06570982441908 * d) * 15 + longitudeDeg;
  const hourAngle = siderealDeg * DEG - rightAscension;
  const lat = latitudeDeg * DEG;
  const cosDec = Math.cos(declination);
  const sinDec = Math.sin(declination);
  return {
    east: -cosDec * Math.sin(hourAngle),
    north: Math.cos(lat) * sinDec - Math.sin(lat) * cosDec * Math.cos(hourAngle),
    up: Math.sin(lat) * sinDec + Math.cos(lat) * cosDec * Math.cos(hourAngle),
  };
}

export function sunElevationDeg(sun: SunVector): number {
  return Math.asin(Math.max(-1, Math.min(1, sun.up))) / DEG;
}

/** A fixed panel: tilt from horizontal, azimuth clockwise from north (180 = south). */
export interface PanelOrientation {
  tiltDeg: number;
  azimuthDeg: number;
}

/** Panels face the equator at a typical roof pitch. */
export function defaultPanel(latitudeDeg: number): PanelOrientation {
  return { tiltDeg: 30, azimuthDeg: latitudeDeg >= 0 ? 180 : 0 };
}

/** Clear-sky irradiance on a panel (W/m2), 0 when the sun is down. */
export function clearSkyTiltedIrradiance(sun: SunVector, panel: PanelOrientation): number {
  if (sun.up <= 0) return 0;
  const zenithDeg = 90 - sunElevationDeg(sun);
  const airMass = 1 / (sun.up + 0.50572 * Math.pow(96.07995 - zenithDeg, -1.6364));
  const direct = 1353 * Math.pow(0.7, Math.pow(airMass, 0.678));
  // Clear-sky diffuse light is roughly a tenth of the beam.
  const diffuse = 0.1 * direct;
  const global = direct * sun.up + diffuse;
  const tilt = panel.tiltDeg * DEG;
  const azimuth = panel.azimuthDeg * DEG;
  const cosIncidence =
    sun.east * Math.sin(tilt) * Math.sin(azimuth) +
    sun.north * Math.sin(tilt) * Math.cos(azimuth) +
    sun.up * Math.cos(tilt);
  const groundAlbedo = 0.2;
  return (
    direct * Math.max(0, cosIncidence) +
    (diffuse * (1 + Math.cos(tilt))) / 2 +
    (global * groundAlbedo * (1 - Math.cos(tilt))) / 2
  );
}

/**
 * AC watts per watt of peak for a given panel irradiance and air temperature: the
 * PVWatts-style formula the Open-Meteo plugin uses too, so a simulated day and a real
 * forecast look alike. The caller clamps to the inverter's limit.
 */
export function pvYieldPerPeakWatt(irradiance: number, airTemperatureC: number): number {
  if (irradiance <= 0) return 0;
  const cellTemperatureC = airTemperatureC + irradiance * 0.0342;
  const performanceRatio = 0.85;
  return (irradiance / 1000) * (1 - 0.004 * (cellTemperatureC - 25)) * performanceRatio;
}
