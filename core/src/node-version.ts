/*
 * The first thing `heliograph` runs: an older Node would otherwise fail somewhere inside a
 * dependency with a syntax or missing-API error that names nothing the owner can act on.
 * This module is loaded before anything else and must parse on old Node (18, as Debian 12 and
 * Raspberry Pi OS bookworm ship): plain syntax only, no imports.
 */

/** The oldest Node this release runs on: package.json "engines" (a test keeps the two equal). */
export const OLDEST_NODE = '22.18.0';

function parts(version: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * Why `version` (such as process.versions.node, "20.20.2") cannot run Heliograph, in words,
 * or undefined when it can (or when the version cannot be read: then it is let try).
 */
export function nodeVersionProblem(version: string, oldest: string = OLDEST_NODE): string | undefined {
  const have = parts(version);
  const need = parts(oldest);
  if (!have || !need) return undefined;
  for (let i = 0; i < 3; i++) {
    if (have[i] === need[i]) continue;
    if (have[i]! > need[i]!) return undefined;
    const wanted = need[2] === 0 ? `${need[0]}.${need[1]}` : oldest;
    return (
      `Heliograph needs Node ${wanted} or newer; this is ${version.replace(/^v/, '')}. ` +
      'Install a current LTS line (Node 24) as README.md says under "Install on a Raspberry Pi or Debian" ' +
      "(NodeSource's Debian repository), or from https://nodejs.org/"
    );
  }
  return undefined;
}

/** Stops the process (exit 1) with the problem on stderr when this Node is too old. */
export function refuseOldNode(version: string = process.versions.node): void {
  const problem = nodeVersionProblem(version);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
