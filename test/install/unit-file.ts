/*
 * Reading config/heliograph.service and config/Dockerfile as systemd and docker do, as far as
 * the tests need: a unit's [Service] keys, a Dockerfile's stages and instructions.
 */
import { readFileSync } from 'node:fs';

/** The unit's keys by section; repeated keys (Environment=) keep every value. */
export function readUnit(file: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current = new Map<string, string[]>();
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** One value of a unit key, or throws naming what is missing. */
export function unitValue(unit: ReturnType<typeof readUnit>, section: string, key: string): string {
  const value = unit.get(section)?.get(key)?.at(-1);
  if (value === undefined) throw new Error(`the unit has no ${key}= in [${section}]`);
  return value;
}

/** ExecStart's words (the unit's command lines are plain words here: no quotes, no specifiers). */
export function execStartWords(unit: ReturnType<typeof readUnit>): string[] {
  const line = unitValue(unit, 'Service', 'ExecStart');
  if (/["'%$\\]/.test(line))
    throw new Error(`ExecStart uses quoting or specifiers this reader does not expand: ${line}`);
  return line.split(/\s+/);
}

export interface DockerInstruction {
  stage: number;
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions with continuation lines joined, numbered by stage (FROM starts one). */
export function readDockerfile(file: string): DockerInstruction[] {
  const joined = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  let stage = -1;
  const out: DockerInstruction[] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    if (match[1] === 'FROM') stage++;
    out.push({ stage, keyword: match[1]!, args: match[2]!.trim() });
  }
  return out;
}

/** How package.json's start script runs the service: its environment assignments and node flags. */
export function startScript(packageJson: string): { env: Record<string, string>; nodeFlags: string[] } {
  const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: { start: string } };
  const command = /&& ((?:\w+=\S+ )*)node ((?:--\S+ )*)core\/dist\/src\/main\.js serve$/.exec(pkg.scripts.start);
  if (!command) throw new Error(`package.json: the start script "${pkg.scripts.start}" does not run main.js serve`);
  return { env: assignments(command[1]!.split(' ')), nodeFlags: command[2]!.split(' ').filter(Boolean) };
}

/** The unit's Environment= assignments (plain NAME=value words, as this unit writes them). */
export function unitEnvironment(unit: ReturnType<typeof readUnit>): Record<string, string> {
  const words = (unit.get('Service')?.get('Environment') ?? []).flatMap((line) => line.split(/\s+/));
  return assignments(words);
}

/** NAME=value words as an environment; empty words are skipped. */
export function assignments(words: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of words.filter(Boolean)) {
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return env;
}

/** The instructions of the Dockerfile's last stage: the image that runs. */
export function runStage(steps: DockerInstruction[]): DockerInstruction[] {
  const last = Math.max(...steps.map((s) => s.stage));
  return steps.filter((s) => s.stage === last);
}

/** The ENV assignments of a stage's instructions (NAME=value words). */
export function imageEnvironment(stage: DockerInstruction[]): Record<string, string> {
  const words = stage.filter((s) => s.keyword === 'ENV').flatMap((s) => s.args.split(/\s+/));
  return assignments(words.filter((word) => word.includes('=')));
}
