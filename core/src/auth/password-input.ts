import type { Readable, Writable } from 'node:stream';

/**
 * The new password for `heliograph password set`. On a terminal it asks twice without
 * echoing; from a pipe (`echo "$PW" | heliograph password set`) it reads one line, so the
 * password never shows up in the process list or the shell history.
 * Throws with a message for the user when the input cannot be a password.
 */
export async function readNewPassword(
  input: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown } = process.stdin,
  output: Writable = process.stderr,
): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return passwordFromText(await readAll(input));
  const first = await promptHidden(input, output, 'New password: ');
  const second = await promptHidden(input, output, 'Repeat it: ');
  if (first !== second) throw new Error('the two passwords differ: nothing was changed, run the command again');
  return first;
}

/** The password in piped text: one line, its line ending removed. */
export function passwordFromText(text: string): string {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  if (lines.length > 1) throw new Error(`expected the password on one line, got ${lines.length} lines`);
  return lines[0]!;
}

async function readAll(input: Readable): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) text += chunk as string;
  return text;
}

function promptHidden(
  input: Readable & { setRawMode?: (raw: boolean) => unknown },
  output: Writable,
  prompt: string,
): Promise<string> {
  output.write(prompt);
  input.setRawMode!(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new Error('cancelled: the password was not changed'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}
