import { randomInt, timingSafeEqual } from 'node:crypto';
import { createLogger } from '../log.js';

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
  private constructor(private code: string | undefined) {}

  /** The code for this start: printed to the log when no password exists yet. */
  static forStart(passwordExists: boolean): SetupCode {
    if (passwordExists) return new SetupCode(undefined);
    const code = newSetupCode();
    // warn, so it shows at the level most installs log at; the owner needs to see it.
    log.warn(`setup code: ${code} (no password is set yet: open the settings page and enter this code to set one)`);
    return new SetupCode(code);
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
  }
}
