import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const THERMAL_DIR = '/sys/class/thermal';

/** Zone types that are the CPU on common boards (Raspberry Pi, x86, Rockchip/Allwinner SoCs). */
const CPU_ZONE = /cpu|x86_pkg_temp|soc|coretemp|k10temp/i;

/**
 * The CPU temperature in whole °C from Linux's thermal zones, or null where the machine has
 * no sensor (containers, VMs, other systems). A zone whose type names the CPU wins over
 * the first zone. A sysfs file read is all this needs; a system-information library would
 * spawn processes for it.
 */
export async function readCpuTemperature(thermalDir = THERMAL_DIR): Promise<number | null> {
  let zones: string[];
  try {
    zones = (await readdir(thermalDir)).filter((name) => name.startsWith('thermal_zone')).sort();
  } catch {
    return null;
  }
  let fallback: number | null = null;
  for (const zone of zones) {
    const milli = await readNumber(join(thermalDir, zone, 'temp'));
    if (milli === null) continue;
    const celsius = Math.round(milli / 1000);
    const type = await readFile(join(thermalDir, zone, 'type'), 'utf8').catch(() => '');
    if (CPU_ZONE.test(type)) return celsius;
    fallback ??= celsius;
  }
  return fallback;
}

async function readNumber(file: string): Promise<number | null> {
  try {
    const value = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}
