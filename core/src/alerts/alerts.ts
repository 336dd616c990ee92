/**
 * Alerts on thresholds the owner sets (config `alerts`, editable in the settings page):
 * the battery below a state of charge, a device not answering for some minutes, a write
 * refused. Each is a boolean topic (`system/alert_battery_low`,
 * `system/alert_device_unavailable`, `system/alert_write_refused`; device `system`, as the
 * clients' categories allow) and `system/alerts` says the active ones in words ('' when
 * none), so the page shows them and MQTT / Home Assistant users can notify on them like on
 * any other topic.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../topics/registry.js';
import { ownTopicMeta } from '../topics/topic-meta.js';

export type AlertsConfig = Config['alerts'];

/** How long a refused write keeps its alert on. */
export const WRITE_REFUSED_HOLD_MS = 10 * 60_000;
/** How often time-based conditions (a device down for N minutes, a refusal aging) are checked. */
const CHECK_INTERVAL_MS = 15_000;

function alertMeta(name: string, displayName: string, type: 'boolean' | 'string'): TopicMeta {
  return ownTopicMeta('system', { name, displayName, unit: '', type, recorded: false });
}

export class Alerts {
  private states: Record<'battery' | 'device' | 'write' | 'active', TopicState> | null = null;
  /** Per device id: when it was first seen not answering. */
  private readonly downSince = new Map<string, number>();
  private refused: { at: number; text: string } | null = null;

  constructor(
    private readonly registry: TopicRegistry,
    private readonly clock: Clock,
    private config: AlertsConfig,
  ) {}

  /** New thresholds (PUT /api/v1/config): checked at once. */
  reconfigure(config: AlertsConfig): void {
    this.config = config;
    this.check();
  }

  /** A write was refused (the write service tells): the alert holds for 10 minutes. */
  writeRefused(topic: string, message: string): void {
    this.refused = { at: this.clock.now(), text: `write to ${topic} refused: ${message}` };
    this.check();
  }

  start(): () => void {
    const undo = [
      this.registry.define(alertMeta('alert_battery_low', 'Alert: battery low', 'boolean'), false),
      this.registry.define(alertMeta('alert_device_unavailable', 'Alert: device unavailable', 'boolean'), false),
      this.registry.define(alertMeta('alert_write_refused', 'Alert: write refused', 'boolean'), false),
      this.registry.define(alertMeta('alerts', 'Active alerts', 'string'), ''),
    ];
    const get = (name: string) => this.registry.get(`system/${name}`)!;
    this.states = {
      battery: get('alert_battery_low'),
      device: get('alert_device_unavailable'),
      write: get('alert_write_refused'),
      active: get('alerts'),
    };
    const onTick = () => this.check();
    this.registry.on('tick', onTick);
    const timer = setInterval(() => this.check(), CHECK_INTERVAL_MS);
    timer.unref();
    this.check();
    return () => {
      clearInterval(timer);
      this.registry.off('tick', onTick);
      undo.forEach((u) => u());
      this.states = null;
    };
  }

  /** Works every condition out again and publishes the topics whose value changed. */
  check(): void {
    const states = this.states;
    if (!states) return;
    const now = this.clock.now();
    const words: string[] = [];

    const soc = this.registry.get('total/battery_state_of_charge');
    const socValue = soc ? this.registry.visibleValue(soc) : null;
    const limit = this.config.batteryBelowPercent;
    const batteryLow = limit !== null && typeof socValue === 'number' && socValue < limit;
    if (batteryLow) words.push(`battery at ${socValue} %, below ${limit} %`);

    const down = this.devicesDown(now);
    if (down.length) words.push(`not answering: ${down.join(', ')}`);

    if (this.refused && now - this.refused.at >= WRITE_REFUSED_HOLD_MS) this.refused = null;
    const refused = this.config.writeRefused && this.refused !== null;
    if (refused) words.push(this.refused!.text);

    this.set(states.battery, batteryLow);
    this.set(states.device, down.length > 0);
    this.set(states.write, refused);
    this.set(states.active, words.join('; '));
  }

  /** Devices not answering for at least the configured minutes, by id. */
  private devicesDown(now: number): string[] {
    const minutes = this.config.deviceUnavailableMinutes;
    const ids = new Set(this.registry.list().map((s) => s.meta.deviceId));
    const out: string[] = [];
    for (const id of ids) {
      const availability = this.registry.availability(id);
      if (!availability || availability.available) {
        this.downSince.delete(id);
        continue;
      }
      const since = this.downSince.get(id) ?? now;
      this.downSince.set(id, since);
      if (minutes !== null && now - since >= minutes * 60_000) out.push(id);
    }
    return out.sort();
  }

  private set(state: TopicState, value: boolean | string): void {
    if (state.value !== value) this.registry.publish(state, value);
  }
}
