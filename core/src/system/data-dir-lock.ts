/**
 * One Heliograph per data directory. `heliograph serve` (and the commands that write the data
 * directory while the service is stopped: restore, history import and repair) hold
 * `<data>/heliograph.lock`, a file naming the holder's process: its pid, and where /proc
 * offers it its start identity (the boot id and the process's start time since boot).
 *
 * The lock dies with its process without anything written while it runs (an SD card's write
 * endurance): a lock whose process is gone (kill -9), whose pid now belongs to another
 * process (the same pid after a restart of a container), or that was taken before the last
 * boot (a power cut) is stale and taken over. An OS-level lock (flock) would need a native
 * addon; a lock refreshed by a timer (proper-lockfile) writes every few seconds and blocks a
 * restart until it ages out.
 */
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { uptime } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'heliograph.lock';

/** What the lock file records of the process holding it. */
interface Holder {
  pid: number;
  /** The command it runs, named in the refusal (`heliograph serve`). */
  command: string;
  /** `<boot id>/<start time in clock ticks>` where /proc offers them. */
  identity?: string;
  /** When it took the lock (ms since the epoch). */
  since: number;
}

/** The data directory is held by another process: the message says which and what to do. */
export class DataDirInUseError extends Error {
  readonly pid: number | undefined;
  constructor(
    readonly dataDir: string,
    holder: { pid: number; command: string } | undefined,
    hint: string,
  ) {
    const who = holder === undefined ? 'starting now' : `pid ${holder.pid}: ${holder.command}`;
    super(`the data directory ${dataDir} is in use by another Heliograph (${who}); ${hint}`);
    this.name = 'DataDirInUseError';
    this.pid = holder?.pid;
  }
}

export interface DataDirLock {
  /** Gives the lock up (removes the file while it still names this process). */
  release(): void;
}

/** What `serve` tells a second server to do. */
export const SERVE_HINT = 'stop it first, or use another --data';
/** What a command that needs the service stopped says. */
export const STOPPED_HINT = 'stop the service first (sudo systemctl stop heliograph), or name another --data';

/** Data directories this process holds (a second server in one process is refused too). */
const heldHere = new Set<string>();
/** A lock file being written by a starting process is older than this only when it crashed. */
const WRITING_MS = 5_000;

/**
 * Takes `<dataDir>/heliograph.lock` for this process, or throws DataDirInUseError naming the
 * live process that holds it. Creates the directory (0700) when it does not exist.
 */
export function lockDataDir(dataDir: string, options: { command: string; hint: string }): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, command: options.command, since: Date.now() };
  const identity = processIdentity(process.pid);
  if (identity !== undefined) mine.identity = identity;
  const content = JSON.stringify(mine) + '\n';
  // A stale lock is removed and the creation tried again; a few times at most.
  for (let attempt = 0; ; attempt++) {
    try {
      // O_EXCL: of two processes starting at once, one creates the file.
      writeFileSync(file, content, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(file);
    if (holder === 'gone') continue;
    const live = holder === 'writing' || (holder !== 'stale' && isLive(holder, dataDir));
    if (live || attempt >= 2) {
      throw new DataDirInUseError(dataDir, typeof holder === 'object' ? holder : undefined, options.hint);
    }
    // Of two processes finding the same stale lock, the second must not remove the first's
    // new one: removed only while it still names the stale holder (a narrow window remains).
    const again = readHolder(file);
    if (again === holder || (typeof again === 'object' && typeof holder === 'object' && sameHolder(again, holder)))
      removeLock(file);
  }
  heldHere.add(dataDir);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      heldHere.delete(dataDir);
      const holder = readHolder(file);
      if (typeof holder === 'object' && sameHolder(holder, mine)) removeLock(file);
    },
  };
}

/** The holder the file names; 'stale' for a file that is no lock; 'writing' for one just created. */
function readHolder(file: string): Holder | 'gone' | 'stale' | 'writing' {
  let text: string;
  let age: number;
  try {
    text = readFileSync(file, 'utf8');
    age = Date.now() - statSync(file).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (Number.isInteger(parsed.pid) && typeof parsed.since === 'number')
      return { ...parsed, command: typeof parsed.command === 'string' ? parsed.command : 'heliograph' } as Holder;
  } catch {
    // Empty or cut short: being written right now, or left by a crash while it was.
  }
  return age < WRITING_MS ? 'writing' : 'stale';
}

/** Whether the process a lock names still runs (and is the one that took it). */
function isLive(holder: Holder, dataDir: string): boolean {
  // This pid in a previous life (a container restarted), unless this process took it.
  if (holder.pid === process.pid) return heldHere.has(dataDir);
  // Taken before this boot: a power cut or a reboot left it.
  if (holder.since < Date.now() - uptime() * 1000) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: alive, another user's process.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processIdentity(holder.pid);
  return holder.identity === undefined || now === undefined || now === holder.identity;
}

function sameHolder(a: Holder, b: Holder): boolean {
  return a.pid === b.pid && a.since === b.since && a.identity === b.identity;
}

function removeLock(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * `<boot id>/<start time>` of a process on Linux (proc(5): /proc/sys/kernel/random/boot_id,
 * and field 22 of /proc/<pid>/stat, its start time after boot in clock ticks): a pid reused
 * by another process, or named before a reboot, has another. Undefined without /proc.
 */
export function processIdentity(pid: number): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start === undefined ? undefined : `${boot}/${start}`;
  } catch {
    return undefined;
  }
}
