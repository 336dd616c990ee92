import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt with N = 2^15, r = 8, p = 1: 32 MiB and ~65 ms per hash on a desktop core, a few
 * hundred ms on a Raspberry Pi. The parameters are stored in each hash (PHC string format),
 * so they can be raised later without invalidating passwords already set.
 */
const LOG2_N = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface ParsedHash {
  options: ScryptOptions;
  salt: Buffer;
  key: Buffer;
}

/** `$scrypt$ln=15,r=8,p=1$<salt>$<key>` (unpadded base64) for a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const options = scryptOptions(LOG2_N, BLOCK_SIZE, PARALLELISM);
  const key = await derive(password, salt, KEY_BYTES, options);
  return `$scrypt$ln=${LOG2_N},r=${BLOCK_SIZE},p=${PARALLELISM}$${unpadded(salt)}$${unpadded(key)}`;
}

/** Whether `password` matches `encoded`, compared in constant time. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const { options, salt, key } = parseHash(encoded);
  const candidate = await derive(password, salt, key.length, options);
  return timingSafeEqual(candidate, key);
}

function parseHash(encoded: string): ParsedHash {
  const match = PHC.exec(encoded);
  const [logN, r, p] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  if (!match || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new Error('the stored password hash is damaged: set the password again with `heliograph password set`');
  }
  return {
    options: scryptOptions(logN, r, p),
    salt: Buffer.from(match[4]!, 'base64'),
    key: Buffer.from(match[5]!, 'base64'),
  };
}

function scryptOptions(logN: number, r: number, p: number): ScryptOptions {
  // Node refuses work above maxmem (32 MiB by default, which N = 2^15 just reaches).
  return { N: 2 ** logN, r, p, maxmem: 2 * 128 * 2 ** logN * r + 1024 * 1024 };
}

function derive(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function unpadded(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
