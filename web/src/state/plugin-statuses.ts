// Plugin states without polling: fetched when the page starts, when the socket reconnects,
// when a device's values go stale or come back (the status then says why), after a change
// from this page, and, only while an instance is still "starting", again with back-off
// until its first run has finished or failed.

import { api } from '../api/client.js';
import type { LiveStore } from './live.js';
import { deviceKey, type PluginStatus } from '../api/types.js';

const STARTING_RECHECK_MS = [500, 1000, 2000, 3000, 5000];

export class PluginStatuses {
  list: PluginStatus[] = [];
  private readonly listeners = new Set<(list: PluginStatus[]) => void>();
  private stops: Array<() => void> = [];
  private recheck: number | undefined;
  private recheckTries = 0;
  private readonly staleDevices = new Set<string>();

  constructor(private readonly live: LiveStore) {}

  start(): void {
    this.stop();
    void this.refresh();
    // Again after a reconnect, not when the socket first opens: the list was just fetched.
    let dropped = false;
    this.stops.push(
      this.live.onConnection((online) => {
        if (online === false) dropped = true;
        else if (online && dropped) {
          dropped = false;
          void this.refresh();
        }
      }),
    );
    this.stops.push(this.live.subscribe((changed) => this.watchStale(changed)));
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
    clearTimeout(this.recheck);
  }

  subscribe(listener: (list: PluginStatus[]) => void): () => void {
    this.listeners.add(listener);
    listener(this.list);
    return () => this.listeners.delete(listener);
  }

  /** The instance driving a device (`inverter_1`), if any. */
  forDevice(key: string): PluginStatus | undefined {
    return this.list.find((p) => p.devices.includes(key));
  }

  async refresh(): Promise<void> {
    try {
      this.list = await api<PluginStatus[]>('GET', '/plugins');
    } catch {
      return; // offline or signed out: the banner or the sign-in says so
    }
    for (const listener of this.listeners) listener(this.list);
    clearTimeout(this.recheck);
    if (this.list.some((p) => p.state === 'starting')) {
      const delay = STARTING_RECHECK_MS[Math.min(this.recheckTries, STARTING_RECHECK_MS.length - 1)]!;
      this.recheckTries += 1;
      this.recheck = window.setTimeout(() => void this.refresh(), delay);
    } else this.recheckTries = 0;
  }

  /** A device whose live readings all turned null (or came back) changes its plugin's story. */
  private watchStale(changed: Set<string>): void {
    const devices = new Set([...changed].map(deviceKey));
    let flipped = false;
    for (const device of devices) {
      const stale = isDeviceStale(this.live, device);
      if (stale !== this.staleDevices.has(device)) {
        flipped = true;
        if (stale) this.staleDevices.add(device);
        else this.staleDevices.delete(device);
      }
    }
    if (flipped) void this.refresh();
  }
}

/** A device with live readings, every one of them null: no answer within its stale timeout. */
export function isDeviceStale(live: LiveStore, device: string): boolean {
  if (!/_\d+$/.test(device)) return false; // totals, weather and system are not devices
  let readings = 0;
  for (const entry of live.entries.values()) {
    if (entry.group !== 'Status' || deviceKey(entry.topic) !== device) continue;
    readings += 1;
    if (entry.value !== null) return false;
  }
  return readings > 0;
}
