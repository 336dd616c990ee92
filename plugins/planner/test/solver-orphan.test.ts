import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PARENT = fileURLToPath(new URL('./orphan-parent.js', import.meta.url));

/** Whether the process still runs (an ended one may linger as a zombie until it is reaped). */
const running = (pid: number): boolean => {
  const stat = readFileSync(`/proc/${pid}/stat`, { encoding: 'utf8', flag: 'r' }).toString();
  return !/^\d+ \(.*\) Z /.test(stat);
};
const stillRunning = (pid: number): boolean => existsSync(`/proc/${pid}`) && running(pid);

test('a solver process whose service was killed mid-plan ends by itself, without an error', async () => {
  const parent = spawn(process.execPath, [PARENT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  parent.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // The solver process writes its errors to the same pipe (stdio inherited): it closes when both have ended.
  parent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = once(parent.stderr, 'close');
  const [, signal] = (await once(parent, 'exit')) as [number | null, string | null];
  assert.equal(signal, 'SIGKILL', `the parent killed itself after its first plan (stderr: ${stderr})`);
  const pid = Number(stdout.trim());
  assert.ok(pid > 0, `the parent printed the solver's pid (stdout: ${JSON.stringify(stdout)})`);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closed,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`waited 10 s for the orphaned solver process ${pid} to end`)), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
  // Its pipe closes as it exits; the process itself is gone a moment later.
  const deadline = Date.now() + 5_000;
  while (stillRunning(pid)) {
    assert.ok(Date.now() < deadline, `waited 5 s for the solver process ${pid} to be gone after its pipe closed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(stderr, '', 'and said nothing on its way out (no unhandled EPIPE)');
});
