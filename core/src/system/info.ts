import { statfs } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { createLogger, errorMessage } from '../log.js';
import { discoveryFields } from '../topics/discovery.js';
import type { TopicMeta } from '../topics/registry.js';
import { ownTopicMeta } from '../topics/topic-meta.js';
import { readCpuTemperature } from './cpu-temperature.js';

const log = createLogger('system');

/** How long one reading of the machine (storage, temperature) is reused: a burst of joins costs one read. */
const READING_MAX_AGE_MS = 10_000;

type Value = string | number | null;

/** The system/ topics, as metric rows describe them. Not in the registry: they are not plugin readings. */
const ROWS = {
  site_id: meta('site_id', 'Info', 'Site ID', '', { deviceClass: null, stateClass: null }),
  software_version: meta('software_version', 'Info', 'Software version', '', undefined, 'string'),
  cpu_temperature: meta('cpu_temperature', 'Status', 'CPU temperature', '°C'),
  free_storage: meta('free_storage', 'Status', 'Free storage', 'MB'),
  // Time since the service started; it only grows until a restart.
  uptime: meta('uptime', 'Status', 'Uptime', 's', { deviceClass: 'duration', stateClass: 'total_increasing' }),
} as const;

interface MachineReading {
  at: number;
  cpuTemperature: number | null;
  freeStorageMb: number | null;
}

export interface SystemInfoOptions {
  clock: Clock;
  /** The unit's identity (see site-id.ts). */
  siteId: number;
  version: string;
  /** Free storage is that of this directory's file system. */
  dataDir: string;
  /** Unix ms the service started (uptime). */
  startedAt: number;
  /** Reads the CPU temperature in °C; default Linux's thermal zones. */
  cpuTemperature?: () => Promise<number | null>;
}

/**
 * The `system/*` rows of GET /api/v1/system and the WebSocket `system` event: site id,
 * software version, CPU temperature, free storage and uptime. Shaped like metric rows
 * (device `system`, number null).
 */
export class SystemInfo {
  private machine: MachineReading | null = null;
  private reading: Promise<MachineReading> | null = null;
  private warnedStorage = false;

  constructor(private readonly options: SystemInfoOptions) {}

  get siteId(): number {
    return this.options.siteId;
  }

  /** The rows, with the discovery fields when asked. */
  async rows(discovery = false): Promise<Array<Record<string, unknown>>> {
    const machine = await this.readMachine();
    const { clock, startedAt, siteId, version } = this.options;
    const values: Record<keyof typeof ROWS, Value> = {
      site_id: siteId,
      software_version: version,
      cpu_temperature: machine.cpuTemperature,
      free_storage: machine.freeStorageMb,
      uptime: Math.max(0, Math.floor((clock.now() - startedAt) / 1000)),
    };
    return (Object.keys(ROWS) as Array<keyof typeof ROWS>).map((key) => row(ROWS[key], values[key], discovery));
  }

  /**
   * The WebSocket `system` payload. It carries the discovery fields always: system topics
   * get no `definition` push, so this is where clients learn what they are.
   */
  async payloadJson(): Promise<string> {
    return JSON.stringify({ metrics: await this.rows(true) });
  }

  private async readMachine(): Promise<MachineReading> {
    const now = this.options.clock.now();
    if (this.machine && now - this.machine.at < READING_MAX_AGE_MS) return this.machine;
    this.reading ??= this.measure(now).finally(() => (this.reading = null));
    return (this.machine = await this.reading);
  }

  private async measure(at: number): Promise<MachineReading> {
    const read = this.options.cpuTemperature ?? (() => readCpuTemperature());
    const [cpuTemperature, freeStorageMb] = await Promise.all([read().catch(() => null), this.freeStorageMb()]);
    return { at, cpuTemperature, freeStorageMb };
  }

  private async freeStorageMb(): Promise<number | null> {
    try {
      const stats = await statfs(this.options.dataDir);
      return Math.floor((stats.bavail * stats.bsize) / 1_000_000);
    } catch (err) {
      if (!this.warnedStorage)
        log.warn(`cannot read free storage of the data dir ${this.options.dataDir}: ${errorMessage(err)}`);
      this.warnedStorage = true;
      return null;
    }
  }
}

function meta(
  name: string,
  group: TopicMeta['group'],
  displayName: string,
  unit: string,
  discovery?: TopicMeta['discovery'],
  type: TopicMeta['type'] = 'number',
): TopicMeta {
  return ownTopicMeta('system', { name, group, displayName, unit, type, recorded: false, discovery });
}

function row(m: TopicMeta, value: Value, discovery: boolean): Record<string, unknown> {
  const metric: Record<string, unknown> = {
    topic: m.topic,
    device: m.device,
    number: m.number,
    group: m.group,
    name: m.name,
    value,
    unit: m.unit,
  };
  return discovery ? Object.assign(metric, discoveryFields(m)) : metric;
}
