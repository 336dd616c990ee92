import type { Clock } from '../../clock.js';
import type { TopicState } from '../../topics/registry.js';
import type { Timers } from './timers.js';

/**
 * One socket's throttle windows (`max_frequency_s`): a throttled topic that was sent opens a
 * window; changes inside it are held back, and when it ends the topic's current value is
 * sent (which opens the next window), so the client always ends on the current value.
 * Windows are per socket, so a socket that joins later is never sent more often than asked.
 */
export class ThrottleWindows {
  private readonly endsAt = new Map<TopicState, number>();
  private readonly heldBack = new Set<TopicState>();
  private timer: unknown = null;
  private timerAt = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    /** Sends the current values of topics whose window ended with a change held back. */
    private readonly release: (due: TopicState[]) => void,
  ) {}

  /** Whether a change may go out now (opening a window); if not, it waits for the window's end. */
  admit(state: TopicState, windowMs: number, now: number): boolean {
    const endsAt = this.endsAt.get(state);
    if (endsAt !== undefined && now < endsAt) {
      this.heldBack.add(state);
      this.schedule(endsAt);
      return false;
    }
    this.open(state, now + windowMs);
    return true;
  }

  /** The topic's value was just sent: nothing is held back, and the next window starts. */
  open(state: TopicState, endsAt: number): void {
    this.endsAt.set(state, endsAt);
    this.heldBack.delete(state);
  }

  /** After a filter change: forgets topics that are no longer selected, or no longer throttled. */
  keepOnly(windows: ReadonlyMap<TopicState, number>): void {
    for (const state of this.endsAt.keys()) {
      if (!windows.get(state)) {
        this.endsAt.delete(state);
        this.heldBack.delete(state);
      }
    }
  }

  dispose(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.heldBack.clear();
  }

  private schedule(at: number): void {
    if (this.timer !== null && this.timerAt <= at) return;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.timers.setTimeout(() => this.windowsEnded(), Math.max(0, at - this.clock.now()));
  }

  private windowsEnded(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.clock.now();
    const due: TopicState[] = [];
    let next = Infinity;
    for (const state of this.heldBack) {
      const endsAt = this.endsAt.get(state) ?? now;
      if (endsAt <= now) due.push(state);
      else next = Math.min(next, endsAt);
    }
    for (const state of due) this.heldBack.delete(state);
    if (next !== Infinity) this.schedule(next);
    if (due.length > 0) this.release(due);
  }
}
