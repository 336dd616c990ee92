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
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('memory');

interface MallocTrim {
  /** True when memory was released, false when none was free; undefined where not glibc. */
  trim(): boolean | undefined;
}

let addon: MallocTrim | null | undefined;
let collect: (() => Promise<void>) | undefined;

/** V8's gc() options (node's --expose-gc takes the same). */
interface GcOptions {
  type: 'major';
  /** Incremental marking in steps between tasks: the longest pause about half a full collection's. */
  execution: 'async';
}

/**
 * V8's gc() without running node with --expose-gc (which would give it to every script): the
 * flag is set just long enough for a fresh context to be created with it. Two collections:
 * the first leaves the Buffers it found dead to a sweeper, which the second finishes.
 */
function collector(): () => Promise<void> {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as (options: GcOptions) => Promise<void>;
    return async () => {
      await gc({ type: 'major', execution: 'async' });
      await gc({ type: 'major', execution: 'async' });
    };
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
  collect ??= collector();
  if (addon === undefined) addon = load();
  await collect();
  return addon?.trim();
}
