import { deviceFields } from '../topics/device.js';
import type { TopicMeta } from '../topics/registry.js';
import type { DamagedRange } from './damage.js';
import { HourBuffer } from './slots.js';
import { RowSet, TIERS, type Tier } from './rows.js';

/** What history keeps about a topic besides readings, so it can answer after the topic is gone. */
export interface StoredMeta {
  deviceId: string;
  device: string;
  group: string;
  name: string;
  unit: string;
}

/** One recorded topic in the store: its id, scale, rows, and the slots not yet in rows. */
export class TopicRecord {
  readonly rows: Record<Tier, RowSet>;
  /** Hours of slots not yet merged into rows (journalled), by hour start. */
  readonly pending = new Map<number, HourBuffer>();
  /** The hour the last reading went to: the hot path skips the map lookup. */
  cur: HourBuffer | null = null;
  /** Hours taken out of `pending` by a flush that is merging them; queries still see them. */
  compacting: HourBuffer[] = [];
  /** The history_topics row needs writing. */
  dirty = false;
  /** Ranges of stored history found unreadable and quarantined (damage.ts). */
  readonly damaged: DamagedRange[] = [];

  constructor(
    readonly id: number,
    readonly topic: string,
    public meta: StoredMeta,
    /** Decimal places of every value held; only grows. */
    public scale: number,
    /** 10-s history before this day (Unix s) was deleted; its 1-min rollups are kept instead. */
    public evictedBefore: number,
  ) {
    this.rows = Object.fromEntries(TIERS.map((t) => [t, new RowSet(t)])) as Record<Tier, RowSet>;
  }

  hourBuffer(hour: number): HourBuffer {
    let buf = this.pending.get(hour);
    if (!buf) {
      buf = HourBuffer.take(hour);
      this.pending.set(hour, buf);
    }
    return buf;
  }

  /** Moves the pending hours before `hour` to `compacting`, for a flush to merge them into rows. */
  closeHoursBefore(hour: number): void {
    for (const [start, buf] of this.pending) {
      if (start >= hour) continue;
      this.compacting.push(buf);
      this.pending.delete(start);
      if (this.cur === buf) this.cur = null;
    }
  }

  /** Brings every unsaved slot to a larger scale. */
  rescale(scale: number): void {
    const factor = 10 ** (scale - this.scale);
    for (const buf of this.pending.values()) buf.rescale(factor);
    for (const buf of this.compacting) buf.rescale(factor);
    this.scale = scale;
    this.dirty = true;
  }
}

export function sameMeta(a: StoredMeta, b: StoredMeta): boolean {
  return (
    a.deviceId === b.deviceId && a.device === b.device && a.group === b.group && a.name === b.name && a.unit === b.unit
  );
}

/** `inverter_1/pv_power` -> a meta good enough when nothing better is known (imports). */
export function metaFromTopic(topic: string): StoredMeta {
  const slash = topic.indexOf('/');
  const deviceId = slash > 0 ? topic.slice(0, slash) : topic;
  const name = slash > 0 ? topic.slice(slash + 1) : topic;
  return { deviceId, device: deviceFields(deviceId).device, group: 'Status', name, unit: '' };
}

/** Battery metrics are never recorded, whatever a plugin declares (API contract). */
export const BATTERY_TOPIC = /^battery_\d+\//;

/** Whether history records a topic: declared recorded, numeric, and not a battery metric. */
export function isRecorded(meta: Pick<TopicMeta, 'topic' | 'recorded' | 'type'>): boolean {
  return meta.recorded && meta.type === 'number' && !BATTERY_TOPIC.test(meta.topic);
}
