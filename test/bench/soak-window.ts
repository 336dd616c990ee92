/** What the soak saw in one report window, and its report line. */
export class Window {
  static readonly HEADER =
    '   min    RSS MB   fds   HTTP req/s  p50 ms  p99 ms  errors skipped   WS joined  joins  join p99 ms  msgs/s  errors';

  http: number[] = [];
  httpErrors = 0;
  /** Requests not sent because too many were still waiting for an answer (the server fell behind). */
  httpSkipped = 0;
  joins: number[] = [];
  wsMessages = 0;
  wsErrors = 0;
  private startedAt = performance.now();

  line(minutes: number, rss: number, fds: number, joined: number): string {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const http = [...this.http].sort((a, b) => a - b);
    const joins = [...this.joins].sort((a, b) => a - b);
    const cols = [
      minutes.toFixed(1).padStart(6),
      (rss / 1048576).toFixed(1).padStart(9),
      String(fds).padStart(5),
      (http.length / seconds).toFixed(0).padStart(12),
      percentile(http, 50).toFixed(1).padStart(7),
      percentile(http, 99).toFixed(1).padStart(7),
      String(this.httpErrors).padStart(7),
      String(this.httpSkipped).padStart(7),
      String(joined).padStart(11),
      String(joins.length).padStart(6),
      percentile(joins, 99).toFixed(1).padStart(12),
      (this.wsMessages / seconds).toFixed(0).padStart(7),
      String(this.wsErrors).padStart(7),
    ];
    return cols.join(' ');
  }

  reset(): void {
    this.http = [];
    this.httpErrors = 0;
    this.httpSkipped = 0;
    this.joins = [];
    this.wsMessages = 0;
    this.wsErrors = 0;
    this.startedAt = performance.now();
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
