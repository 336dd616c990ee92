/**
 * The bytes of history segments and the journal: unsigned and zigzag varints (7 bits a
 * byte, low first) and raw bytes, written to a growing buffer and read back.
 */
/** Appends varints and bytes to a growing buffer. */
export class ByteWriter {
  buf = Buffer.allocUnsafe(4096);
  pos = 0;

  uint(v: number): void {
    if (this.pos + 10 > this.buf.length) this.grow();
    const buf = this.buf;
    while (v >= 128) {
      buf[this.pos++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    buf[this.pos++] = v;
  }

  int(v: number): void {
    this.uint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  bytes(b: Uint8Array): void {
    while (this.pos + b.length > this.buf.length) this.grow();
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  result(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private grow(): void {
    const next = Buffer.allocUnsafe(this.buf.length * 2);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

export class ByteReader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  uint(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 128) return b;
    let v = b & 127;
    let mul = 128;
    for (;;) {
      if (this.pos >= buf.length) throw new Error('history data is truncated');
      b = buf[this.pos++]!;
      v += (b & 127) * mul;
      if (b < 128) return v;
      mul *= 128;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  bytes(n: number): Uint8Array {
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  get done(): boolean {
    return this.pos >= this.buf.length;
  }
}
