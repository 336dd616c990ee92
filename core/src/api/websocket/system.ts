import { statfs } from 'node:fs/promises';
import type { Clock } from '../../clock.js';
import { createLogger, errorMessage } from '../../log.js';

const log = createLogger('websocket');

/** How long one free-storage reading is reused: a burst of joins costs one statfs call. */
const STORAGE_READING_MAX_AGE_MS = 10_000;

/**
 * The `system` rows: software version, uptime and free storage of the data dir. Each row is
 * self-contained (it carries its own definition fields), since system/ topics are not part
 * of the registry and never get a `definition` push.
 */
export class SystemInfo {
  private storage: { at: number; freeMb: number | null } | null = null;
  private reading: Promise<number | null> | null = null;
  private warned = false;

  constructor(
    private readonly deps: { clock: Clock; version: string; dataDir: string; startedAt: number },
  ) {}

  /** The `system` payload as JSON. */
  async payloadJson(): Promise<string> {
    const freeMb = await this.freeStorageMb();
    const uptimeS = Math.max(0, Math.floor((this.deps.clock.now() - this.deps.startedAt) / 1000));
    const rows = [
      row('system/version', 'Info', 'Software version', '', this.deps.version),
      row('system/uptime', 'Status', 'Uptime', 's', uptimeS),
      row('system/free_storage', 'Status', 'Free storage', 'MB', freeMb),
    ];
    return JSON.stringify({ metrics: rows });
  }

  private async freeStorageMb(): Promise<number | null> {
    const now = this.deps.clock.now();
    if (this.storage && now - this.storage.at < STORAGE_READING_MAX_AGE_MS) return this.storage.freeMb;
    this.reading ??= this.readFreeStorage().finally(() => (this.reading = null));
    const freeMb = await this.reading;
    this.storage = { at: now, freeMb };
    return freeMb;
  }

  private async readFreeStorage(): Promise<number | null> {
    try {
      const stats = await statfs(this.deps.dataDir);
      return Math.round((stats.bavail * stats.bsize) / 1e5) / 10;
    } catch (err) {
      if (!this.warned) log.warn(`cannot read free storage of the data dir ${this.deps.dataDir}: ${errorMessage(err)}`);
      this.warned = true;
      return null;
    }
  }
}

function row(topic: string, group: string, name: string, unit: string, value: string | number | null): Record<string, unknown> {
  return { topic, device: 'System', number: 0, group, name, unit, value };
}
