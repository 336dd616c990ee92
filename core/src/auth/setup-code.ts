import { randomInt, timingSafeEqual } from 'node:crypto';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('setup');

/** No 0/O, 1/I/L, 5/S or 8/B: the code is read off a log and typed by hand. */
export const SETUP_CODE_ALPHABET = 'ACDEFGHJKMNPQRTUVWXYZ234679';

/** A fresh code: 8 random characters of the alphabet, shown as `XXXX-XXXX`. */
export function newSetupCode(): string {
  let raw = '';
  for (let i = 0; i < 8; i++) raw += SETUP_CODE_ALPHABET[randomInt(SETUP_CODE_ALPHABET.length)];
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** What a user typed, as the code compares: case, spaces and dashes do not matter. */
function normalise(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

/**
 * The one-time code that guards the first password: while none is set, anyone on the
 * network could open the settings page, so setting it also needs this code, which only
 * someone who can read the service's log (the owner) has. A new code at every start while
 * no password exists; none once one does; used up when the password is set.
 */
export class SetupCode {
  private constructor(
    private code: string | undefined,
    private readonly file?: string,
  ) {}

  /**
   * The code for this start: printed to the log (the device's console) when no password
   * exists yet, and written to `file` (`<data>/setup-code`), readable by the service's user
   * only, for owners who reach the device by a file share or a shell rather than its log;
   * `heliograph setup-code` prints it. Reading either needs access to the device itself,
   * which a stranger on the LAN does not have. The file is deleted once a password is set.
   */
  static forStart(passwordExists: boolean, file?: string): SetupCode {
    if (passwordExists) {
      if (file) rmSync(file, { force: true });
      return new SetupCode(undefined);
    }
    const code = newSetupCode();
    // warn, so it shows at the level most installs log at; the owner needs to see it.
    log.warn(`setup code: ${code} (no password is set yet: open the settings page and enter this code to set one)`);
    if (file) {
      try {
        writeFileSync(file, `${code}\n`, { mode: 0o600 });
        chmodSync(file, 0o600); // an older file keeps its mode on write
      } catch (err) {
        log.warn(`the setup code could not be written to ${file} (it is in this log): ${errorMessage(err)}`);
      }
    }
    return new SetupCode(code, file);
  }

  /** The code, for the composition root's callers (tests); undefined once used. */
  get value(): string | undefined {
    return this.code;
  }

  /** Whether a typed code is this one, compared in constant time. */
  matches(candidate: string): boolean {
    if (!this.code) return false;
    const expected = Buffer.from(normalise(this.code));
    const given = Buffer.from(normalise(candidate));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The password is set: the code is spent. */
  consume(): void {
    this.code = undefined;
    if (this.file) rmSync(this.file, { force: true });
  }
}
