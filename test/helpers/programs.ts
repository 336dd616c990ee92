/*
 * Debian programs some tests drive (mosquitto, victoria-metrics, socat): a test that does not find
 * one skips with one loud line, and fails instead when CI asks for it.
 */

/**
 * Null when `path` exists; else a skip reason after one loud console line, or a thrown
 * error when `HELIOGRAPH_REQUIRE_<NAME>=1` is set (CI).
 */
export function requireProgram(options: { name: string; found: boolean; install: string }): string | null {
  if (options.found) return null;
  const variable = `HELIOGRAPH_REQUIRE_${options.name.toUpperCase().replaceAll('-', '_')}`;
  if (process.env[variable] === '1')
    throw new Error(`${options.name} is required (${variable}=1) but not installed: ${options.install}`);
  console.log(`SKIPPED: ${options.name} is not installed; run \`${options.install}\` to run these tests`);
  return `${options.name} is not installed`;
}
