import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { passwordFromText, readNewPassword } from '../../src/auth/password-input.js';

test('a piped password is one line with its line ending removed', async () => {
  assert.equal(
    await readNewPassword(Readable.from(['correct horse', ' battery\n']), new PassThrough()),
    'correct horse battery',
  );
  assert.equal(passwordFromText('secret pw\r\n'), 'secret pw');
  assert.equal(passwordFromText('no newline'), 'no newline');
  assert.equal(passwordFromText(''), '');
  assert.throws(() => passwordFromText('first\nsecond\n'), /expected the password on one line, got 2 lines/);
});

/** A terminal: each prompt gets its entry's chunks as raw-mode data; echoed text goes to `shown`. */
function terminal(entries: string[][]) {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    rawModes: [] as boolean[],
    setRawMode(raw: boolean) {
      input.rawModes.push(raw);
    },
  });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  // An entry is typed only once its prompt is listening, as a person would.
  let next = 0;
  input.on('newListener', (event) => {
    if (event !== 'data' || next >= entries.length) return;
    const chunks = entries[next++]!;
    setImmediate(() => chunks.forEach((chunk) => input.write(chunk)));
  });
  return { input, output, shown: () => shown };
}

test('on a terminal the password is asked twice without echo; backspace edits', async () => {
  const tty = terminal([['pass\u007fsword123\r'], ['pas', 'sword123\r']]);
  assert.equal(await readNewPassword(tty.input, tty.output), 'password123');
  assert.equal(tty.shown(), 'New password: \nRepeat it: \n', 'nothing typed is echoed');
  assert.deepEqual(tty.input.rawModes, [true, false, true, false]);
});

test('on a terminal two different entries are refused', async () => {
  const tty = terminal([['password-one\r'], ['password-two\r']]);
  await assert.rejects(readNewPassword(tty.input, tty.output), /the two passwords differ: nothing was changed/);
  assert.deepEqual(tty.input.rawModes, [true, false, true, false], 'the terminal is left in normal mode');
});
