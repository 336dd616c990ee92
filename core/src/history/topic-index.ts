/** The topics a history store knows, by name and by id, and what it can tell of each without reading rows. */
import { sameMeta, TopicRecord, type StoredMeta } from './topic-record.js';

export class TopicIndex {
  private readonly byTopic = new Map<string, TopicRecord>();
  private readonly byId = new Map<number, TopicRecord>();
  private nextId = 1;

  /** Takes the records read from the database (load.ts). */
  loaded(records: Iterable<TopicRecord>, nextId: number): void {
    for (const rec of records) {
      this.byTopic.set(rec.topic, rec);
      this.byId.set(rec.id, rec);
    }
    this.nextId = nextId;
  }

  get(topic: string): TopicRecord | undefined {
    return this.byTopic.get(topic);
  }

  withId(id: number): TopicRecord | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<TopicRecord> {
    return this.byTopic.values();
  }

  /** Every topic with history, by name. */
  names(): string[] {
    return [...this.byTopic.keys()].sort();
  }

  /** The record of a topic, created on first use; the meta is kept up to date. */
  ensure(meta: StoredMeta & { topic: string }): TopicRecord {
    const stored: StoredMeta = {
      deviceId: meta.deviceId,
      device: meta.device,
      group: meta.group,
      name: meta.name,
      unit: meta.unit,
    };
    let rec = this.byTopic.get(meta.topic);
    if (!rec) {
      rec = new TopicRecord(this.nextId++, meta.topic, stored, 0, 0);
      rec.dirty = true;
      this.byTopic.set(meta.topic, rec);
      this.byId.set(rec.id, rec);
    } else if (!sameMeta(rec.meta, stored)) {
      rec.meta = stored;
      rec.dirty = true;
    }
    return rec;
  }

  /** Unix ms of the start of the earliest row or unsaved hour of a topic: where its history begins. */
  firstTime(topic: string): number | undefined {
    const rec = this.byTopic.get(topic);
    if (!rec) return undefined;
    let first = Infinity;
    for (const tier of [10, 60] as const)
      for (const row of rec.rows[tier].byStart.values()) first = Math.min(first, row.start);
    // Hour rollups start at the month; they decide only when no finer rows are left.
    if (first === Infinity) for (const row of rec.rows[3600].byStart.values()) first = Math.min(first, row.start);
    for (const hour of rec.pending.keys()) first = Math.min(first, hour);
    return first === Infinity ? undefined : first * 1000;
  }

  /** Unsaved hours of all topics. */
  pendingHours(): number {
    let n = 0;
    for (const rec of this.byTopic.values()) n += rec.pending.size;
    return n;
  }
}
