import type { MetricValue } from '@heliograph/plugins-sdk';

interface TopicState {
  /** Payload last sent to the broker, undefined before the first. */
  sent: string | undefined;
  sentAt: number;
  /** A value held back by the minimum interval, sent when its timer fires. */
  timer: NodeJS.Timeout | null;
}

export interface StatePublisherOptions {
  minIntervalOf(topic: string): number;
  now(): number;
  /** Sends one retained state; returns false while the broker is not connected. */
  send(topic: string, payload: string): boolean;
  payloadOf(value: MetricValue): string;
}

/**
 * Sends `<prefix>/<topic>/state` on change: a value equal to the last one sent is not sent
 * again, and a topic with a minimum interval sends at most once per interval (the newest
 * value when its window ends). Current values are kept, so a reconnect republishes them all.
 */
export class StatePublisher {
  readonly values = new Map<string, MetricValue>();
  private readonly states = new Map<string, TopicState>();

  constructor(private readonly options: StatePublisherOptions) {}

  update(topic: string, value: MetricValue): void {
    this.values.set(topic, value);
    let state = this.states.get(topic);
    if (!state) this.states.set(topic, (state = { sent: undefined, sentAt: -Infinity, timer: null }));
    if (state.timer) return; // the timer sends the newest value when the window ends
    const wait = state.sentAt + this.options.minIntervalOf(topic) - this.options.now();
    if (wait <= 0) this.sendNow(topic, state);
    else state.timer = setTimeout(() => this.sendHeld(topic), wait);
  }

  /** Topics that are gone: nothing more is sent for them. */
  forget(topic: string): void {
    const state = this.states.get(topic);
    if (state?.timer) clearTimeout(state.timer);
    this.states.delete(topic);
    this.values.delete(topic);
  }

  /** After a (re)connect: every current value again, whatever was sent before. */
  republishAll(): void {
    for (const [topic, state] of this.states) {
      state.sent = undefined;
      if (!state.timer) this.sendNow(topic, state);
    }
  }

  stop(): void {
    for (const state of this.states.values()) if (state.timer) clearTimeout(state.timer);
    this.states.clear();
  }

  private sendHeld(topic: string): void {
    const state = this.states.get(topic);
    if (!state) return;
    state.timer = null;
    this.sendNow(topic, state);
  }

  private sendNow(topic: string, state: TopicState): void {
    const payload = this.options.payloadOf(this.values.get(topic) ?? null);
    if (payload === state.sent) return;
    // Offline, nothing is queued: the reconnect republishes every current value.
    if (!this.options.send(topic, payload)) return;
    state.sent = payload;
    state.sentAt = this.options.now();
  }
}
