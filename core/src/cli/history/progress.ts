import type { Writable } from 'node:stream';

/** A progress line on stderr: rewritten in place on a terminal, one line every few seconds otherwise. */
export class Progress {
  private lastShown = 0;
  private shown = false;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly size: number,
  ) {}

  show(bytes: number, rows: number): void {
    const now = Date.now();
    if (now - this.lastShown < (this.out.isTTY ? 200 : 5000)) return;
    this.lastShown = now;
    const pct = this.size > 0 ? Math.min(100, Math.floor((bytes / this.size) * 100)) : 100;
    this.out.write(
      `${this.out.isTTY ? '\r' : ''}importing: ${rows.toLocaleString('en')} lines (${pct}%)${this.out.isTTY ? '' : '\n'}`,
    );
    this.shown = true;
  }

  done(rows: number, lines: number, topics: string[]): void {
    if (this.shown && this.out.isTTY) this.out.write('\n');
    this.out.write(
      `imported ${rows.toLocaleString('en')} of ${lines.toLocaleString('en')} lines into ${topics.join(', ')}\n`,
    );
  }
}
