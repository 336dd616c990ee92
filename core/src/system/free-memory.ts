/**
 * Gives what a finished burst of work used back to the system: full garbage collections, then
 * the C allocator's free pages, through `@heliograph/malloc-trim` (one C call, malloc_trim(0),
 * built by `npm install`).
 *
 * Why: the Buffers a backfill or a burst of large answers made are freed in C only when V8
 * collects them, which an idle process may not do for minutes. And glibc's free() returns
 * memory to the system only from the top of a heap: what brotli's work tables, SQLite's pages
 * and those Buffers used stays resident below blocks still in use. After the demo's 7-day
 * backfill that was about 20 MB. malloc_trim(0) hands every whole free page back.
 *
 * Where the module was not built (no compiler at install) or the C library is not glibc, only
 * the collection is done, and the log says so once.
 */
import { createRequire } from 'node:module';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('memory');

interface MallocTrim {
  /** True when memory was released, false when none was free; undefined where not glibc. */
  trim(): boolean | undefined;
}

let addon: MallocTrim | null | undefined;
let gc: ((options: GcOptions) => Promise<void>) | undefined;

/** V8's gc() options (node's --expose-gc takes the same). */
interface GcOptions {
  type: 'major';
  /** Incremental marking in steps between tasks: the longest pause about half a full collection's. */
  execution: 'async';
}

/**
 * V8's gc() without running node with --expose-gc (which would give it to every script): the
 * flag is set just long enough for a fresh context to be created with it.
 */
function collector(): (options: GcOptions) => Promise<void> {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as (options: GcOptions) => Promise<void>;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

function load(): MallocTrim | null {
  try {
    return createRequire(import.meta.url)('@heliograph/malloc-trim') as MallocTrim;
  } catch (err) {
    log.warn(
      'the C allocator cannot be asked to return free memory: @heliograph/malloc-trim is not built or not installed',
      {
        reason: errorMessage(err),
      },
    );
    return null;
  }
}

/**
 * Collects garbage, then returns the C allocator's free pages to the system: true when some
 * were returned, false when none were free, undefined when it cannot be asked (see the
 * module's comment). About 60 ms of work, in steps of up to 30 ms on the event loop: call it
 * when work has finished, not per request.
 */
export async function returnFreeMemory(): Promise<boolean | undefined> {
  gc ??= collector();
  if (addon === undefined) addon = load();
  // The first collection leaves the Buffers it found dead to a sweeper, which the second finishes.
  await gc({ type: 'major', execution: 'async' });
  await gc({ type: 'major', execution: 'async' });
  return addon?.trim();
}

/** Growth of memory outside V8's heap after which {@link collectPiledUpBuffers} collects. */
export const PILE_UP_BYTES = 16 << 20;

/** External memory after the last collection asked for (it falls as collections free it). */
let externalFloor: number | undefined;
let collecting = false;

/**
 * Starts a collection (incremental, in steps between tasks) once memory outside V8's heap
 * (Buffers, typed arrays, zlib's state) has grown by PILE_UP_BYTES since the last one; else
 * does nothing, at the cost of reading one heap statistic (about a microsecond).
 *
 * Why: V8 collects for such memory only after it has grown by about 64 MB, and garbage
 * that survived a scavenge (as every history page's decoded days and brotli buffers do,
 * being promoted while their answer is built) waits for that. Under 32 clients reading
 * history, that garbage was most of the peak: 143-196 MB over five starts; with a collection
 * every 16 MB (and the row cache decoding into dropped segments' arrays), 143-147 MB. Call
 * it after work that leaves such garbage (a history page), not on a timer.
 */
export function collectPiledUpBuffers(): void {
  const external = getHeapStatistics().external_memory;
  if (externalFloor === undefined || external < externalFloor) externalFloor = external;
  if (collecting || external - externalFloor < PILE_UP_BYTES) return;
  externalFloor = external;
  collecting = true;
  gc ??= collector();
  void gc({ type: 'major', execution: 'async' }).finally(() => (collecting = false));
}
