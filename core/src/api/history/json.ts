/**
 * The bytes of a history answer, written straight into one Buffer: a page of 2 000 points
 * built as a string was a rope of thousands of pieces that lived through the whole loop, so
 * every young-generation collection copied it and it ended in the old generation (half the
 * CPU of a history answer through the service, with `npm start`'s small young generation,
 * went to the garbage collector). Here the only short-lived strings are each value's digits.
 */
const DAY_S = 86_400;
const QUOTE = 0x22;
const COLON = 0x3a;
const ZERO = 0x30;

export class JsonBytes {
  private buf: Buffer;
  private len = 0;
  private dayStart = NaN;
  private dayPrefix = '';

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(256, capacity));
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + extra));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** Any text (JSON already escaped), as UTF-8. */
  text(s: string): void {
    this.ensure(Buffer.byteLength(s));
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** Text known to be ASCII (numbers, fixed punctuation). */
  ascii(s: string): void {
    this.ensure(s.length);
    this.len += this.buf.write(s, this.len, 'latin1');
  }

  /** `["2026-11-22T10:00:00Z",value]`, with a comma before it unless `first`. */
  point(first: boolean, ms: number, value: number): void {
    const t = Math.floor(ms / 1000);
    const day = t - (((t % DAY_S) + DAY_S) % DAY_S);
    if (day !== this.dayStart) {
      this.dayStart = day;
      this.dayPrefix = new Date(day * 1000).toISOString().slice(0, 11);
    }
    const digits = String(value);
    this.ensure(digits.length + 36);
    const b = this.buf;
    let i = this.len;
    if (!first) b[i++] = 0x2c;
    b[i++] = 0x5b;
    b[i++] = QUOTE;
    i += b.write(this.dayPrefix, i, 'latin1');
    const s = t - day;
    i = two(b, i, (s / 3600) | 0);
    b[i++] = COLON;
    i = two(b, i, ((s % 3600) / 60) | 0);
    b[i++] = COLON;
    i = two(b, i, s % 60);
    b[i++] = 0x5a; // Z
    b[i++] = QUOTE;
    b[i++] = 0x2c;
    i += b.write(digits, i, 'latin1');
    b[i++] = 0x5d;
    this.len = i;
  }

  /** What was written, without a copy. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

function two(b: Buffer, i: number, n: number): number {
  b[i] = ZERO + ((n / 10) | 0);
  b[i + 1] = ZERO + (n % 10);
  return i + 2;
}
