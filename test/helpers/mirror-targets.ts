/*
 * Targets for the history mirror's tests: a fake receiver that decodes what it is sent
 * (remote-write protobuf + snappy, or line protocol), and a real VictoriaMetrics (the Debian
 * package) in a child process when it is installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import snappy from 'snappyjs';
import { WriteRequest, type TimeSeries } from '@heliograph/plugin-history-mirror/dist/src/encode.js';
import { freePort } from './mqtt-brokers.js';
import { tempDir } from './server.js';
import { pollUntil, within } from './deadline.js';

export const VICTORIA_METRICS = '/usr/bin/victoria-metrics';

/** One reading as a target received it: the metric name, its labels, a sample. */
export interface Received {
  name: string;
  labels: Record<string, string>;
  time: number;
  value: number;
}

/** Accepts remote-write and line protocol; answers 503 while `down`. */
export class FakeReceiver extends EventEmitter {
  readonly received: Received[] = [];
  readonly batches: number[] = [];
  readonly requests: Array<{ url: string; headers: Record<string, string | string[] | undefined> }> = [];
  down = false;
  private server!: Server;
  url = '';

  static async start(): Promise<FakeReceiver> {
    const receiver = new FakeReceiver();
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.requests.push({ url: req.url ?? '', headers: req.headers });
        if (receiver.down) {
          res.writeHead(503).end('down for the test');
          return;
        }
        const body = Buffer.concat(chunks);
        const got =
          req.headers['content-encoding'] === 'snappy' ? decodeRemoteWrite(body) : decodeLines(body.toString('utf8'));
        receiver.received.push(...got);
        receiver.batches.push(got.length);
        res.writeHead(204).end();
        receiver.emit('received');
      });
    });
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}`;
    return receiver;
  }

  /**
   * Resolves once `predicate` holds for what was received; rejects after `ms` naming
   * `what` (else the predicate's source) and how many samples had arrived.
   */
  until(predicate: (received: Received[]) => boolean, what = predicate.toString(), ms = 20_000): Promise<void> {
    let check = () => {};
    const arrived = new Promise<void>((resolve) => {
      check = () => {
        if (!predicate(this.received)) return;
        resolve();
      };
      this.on('received', check);
      check();
    });
    return within(arrived, () => `receipt of ${what} (${this.received.length} samples so far)`, ms).finally(() =>
      this.off('received', check),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function decodeRemoteWrite(body: Buffer): Received[] {
  const request = WriteRequest.toObject(WriteRequest.decode(snappy.uncompress(body)), { longs: Number }) as {
    timeseries: TimeSeries[];
  };
  return request.timeseries.flatMap((series) => {
    const labels = Object.fromEntries(series.labels.map((l) => [l.name, l.value]));
    const { __name__: name, ...rest } = labels;
    return series.samples.map((s) => ({ name: name!, labels: rest, time: s.timestamp, value: s.value }));
  });
}

/** `measurement,tag=v,... field=value time` lines (no escaped characters in the tests' topics). */
function decodeLines(text: string): Received[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [head, field, time] = line.split(' ') as [string, string, string];
      const [measurement, ...tags] = head.split(',');
      const [fieldName, value] = field.split('=') as [string, string];
      return {
        name: `${measurement}_${fieldName}`,
        labels: Object.fromEntries(tags.map((t) => t.split('=') as [string, string])),
        time: Number(time),
        value: Number(value),
      };
    });
}

/** VictoriaMetrics on a free loopback port with a temporary storage directory. */
export class Victoria {
  private child: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    private readonly storage: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<Victoria> {
    const vm = new Victoria(await freePort(), tempDir('heliograph-vm-'));
    await vm.start();
    return vm;
  }

  async start(): Promise<void> {
    const proc = spawn(
      VICTORIA_METRICS,
      [`-storageDataPath=${this.storage}`, `-httpListenAddr=127.0.0.1:${this.port}`, '-loggerLevel=ERROR'],
      { stdio: 'ignore' },
    );
    this.child = proc;
    // Ready once /health answers; it starts in well under a second.
    await pollUntil(
      async () => {
        if (proc.exitCode !== null) throw new Error(`victoria-metrics exited with ${proc.exitCode}`);
        const ok = await fetch(`${this.url}/health`).then(
          (r) => r.ok,
          () => false,
        );
        return { done: ok };
      },
      `victoria-metrics answers GET ${this.url}/health`,
      { everyMs: 50 },
    );
  }

  async stop(): Promise<void> {
    const proc = this.child;
    if (!proc || proc.exitCode !== null) return;
    proc.kill('SIGINT');
    await within(once(proc, 'exit'), 'VictoriaMetrics to exit after SIGINT');
  }

  /** Every sample of the series `selector` VictoriaMetrics holds, oldest first (after a flush of its buffers). */
  async export(selector: string): Promise<Array<{ time: number; value: number }>> {
    const response = await fetch(`${this.url}/api/v1/export?match[]=${encodeURIComponent(selector)}`);
    const text = await response.text();
    return text
      .split('\n')
      .filter((l) => l !== '')
      .flatMap((line) => {
        const series = JSON.parse(line) as { values: number[]; timestamps: number[] };
        return series.timestamps.map((time, i) => ({ time, value: series.values[i]! }));
      })
      .sort((a, b) => a.time - b.time);
  }
}
