// `heliograph emulate` as a user runs it: a child process that finds the driver's package,
// prints where its emulator listens and answers real requests there until SIGTERM.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { connectRaw, readHoldingOverTcp } from '@heliograph/plugins-sdk/emulator';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { within } from '../helpers/deadline.js';
import { tempDir } from '../helpers/tmp.js';

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(['emulate', ...args], { env });

/** Where the emulator says it listens (its first line), or the exit it ended with first. */
function listening(child: ReturnType<typeof run>['child']): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`unexpected first line: ${line}`));
    });
  });
}

test('heliograph emulate finds a driver in a plugin folder, from --plugin-dir or HELIOGRAPH_PLUGIN_DIR', async () => {
  // A root with no plugin installed: the driver is found only in its folder.
  const env = { HELIOGRAPH_PLUGIN_ROOT: tempDir() };
  const deye = join(REPO_ROOT, 'plugins', 'deye');
  for (const emulate of [
    run(['deye', '--port', '0', '--plugin-dir', deye], env),
    run(['deye', '--port', '0'], { ...env, HELIOGRAPH_PLUGIN_DIR: deye }),
  ]) {
    const client = await connectRaw({ port: await listening(emulate.child) });
    const [soc] = await readHoldingOverTcp(client, { transaction: 1, address: 184, count: 1 });
    assert.ok(soc! >= 0 && soc! <= 100, `SOC register: ${soc}`);
    client.close();
    emulate.child.kill('SIGTERM');
    assert.equal(await emulate.exited, 0, emulate.stderr());
  }
  const missing = run(['deye', '--port', '0'], env);
  assert.equal(await missing.exited, 1);
  assert.match(
    missing.stderr(),
    /no plugin "deye" is installed or in a plugin folder \(--plugin-dir, HELIOGRAPH_PLUGIN_DIR\)/,
  );
});

test('heliograph emulate deye --port 0 listens on loopback and answers Modbus TCP', async () => {
  const { child, exited } = run(['deye', '--port', '0']);
  const firstLine = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  const address = await within(firstLine, '"listening on" line of `heliograph emulate`', 60_000);
  const match = /^listening on 127\.0\.0\.1:(\d+)$/.exec(address);
  assert.ok(match, address);
  const client = await connectRaw({ port: Number(match[1]) });
  const [soc] = await readHoldingOverTcp(client, { transaction: 1, address: 184, count: 1 });
  assert.ok(soc! >= 0 && soc! <= 100, `SOC register: ${soc}`);
  client.close();
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('heliograph emulate refuses an unknown driver or transport, saying what exists', async () => {
  const unknown = run(['no-such-driver']);
  assert.equal(await unknown.exited, 1);
  assert.match(unknown.stderr(), /no plugin "no-such-driver" is installed/);
  const transport = run(['voltronic', '--transport', 'solarman']);
  assert.equal(await transport.exited, 1);
  assert.match(transport.stderr(), /the voltronic emulator speaks tcp/);
});
