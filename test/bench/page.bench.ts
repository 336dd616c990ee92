/**
 * `npm run bench:page`: the settings page in headless Chromium with the CPU slowed 4x
 * (DevTools' CPU throttling), against `heliograph serve` as `npm start` runs it (its node
 * flags, Host checks, auth) with the simulator (two inverters, a battery, two days
 * backfilled; measured once the backfill is done). Prints the page's compressed size as sent,
 * the time to the first screen for a new visitor (sign-in form), and for a signed-in one (the
 * password once, then the read token the page holds, as every visitor has it) the time to
 * the power flow with values and to the drawn chart. Medians of RUNS cold loads (cache
 * disabled). The anchor, in the same run: the same built page from a bare node:http server
 * (bare-static.ts) on the service's core, to the sign-in form. With taskset the service and
 * the anchor run on one core, Chromium (started from this process) on the other.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findChromium, launchChromium, WEB_DIST } from '../browser/browser.js';
import { loadAverage, simulatorSite, startBareStatic, tableRow, waitForQuiet } from './shipped.js';
import { LOAD_CORE, PINNED, pinProcess, SHIPPED_NODE, startServerProcess } from './support.js';

const RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 5);
const TARGETS = { firstRenderMs: 1000, compressedKb: 150 };
const PASSWORD = 'correct horse battery';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ms to the sign-in form over RUNS cold loads of `url`, and the bytes of the last. */
async function signInForm(page: Page, url: string, bytes: { count: number }): Promise<{ ms: number; bytes: number }> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.evaluate(() => localStorage.clear()).catch(() => undefined);
    bytes.count = 0;
    const start = Date.now();
    await page.goto(url);
    await page.getByLabel('Device password').waitFor();
    times.push(Date.now() - start);
  }
  return { ms: median(times), bytes: bytes.count };
}

async function main(): Promise<void> {
  if (findChromium() === null) {
    console.log('bench:page skipped: no Chromium (set HELIOGRAPH_CHROMIUM or install chromium)');
    return;
  }
  // Chromium, started from here, inherits the core the service does not use.
  pinProcess(process.pid, LOAD_CORE);
  const server = await startServerProcess({ plugins: simulatorSite(2, 1, 2), password: PASSWORD });
  await waitForQuiet(server.child.pid!);
  const anchor = await startBareStatic(WEB_DIST);
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const bytes = { count: 0 };
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => (bytes.count += e.encodedDataLength));
  console.log(
    `${SHIPPED_NODE}; ${PINNED ? 'service on core 0, Chromium on core 1' : 'NOT pinned (no taskset)'}; ` +
      `load average ${loadAverage()}`,
  );

  // One untimed load of each first: the browser's own start-up is in neither figure.
  for (const url of [anchor.url, server.url]) {
    await page.goto(url);
    await page.getByLabel('Device password').waitFor();
  }
  const bare = await signInForm(page, anchor.url, bytes);
  const signIn = await signInForm(page, server.url, bytes);

  await page.getByLabel('Device password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.chart canvas').waitFor();
  const shellMs: number[] = [];
  const flowMs: number[] = [];
  const chartMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = Date.now();
    await page.reload();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    shellMs.push(Date.now() - start);
    await page.waitForFunction(() =>
      /\d/.test(document.querySelector('.flow-value[data-node="home"]')?.textContent ?? ''),
    );
    flowMs.push(Date.now() - start);
    await page.locator('.chart canvas').waitFor();
    chartMs.push(Date.now() - start);
  }

  const brotli = readdirSync(WEB_DIST)
    .filter((f) => f.endsWith('.br'))
    .reduce((sum, f) => sum + statSync(join(WEB_DIST, f)).size, 0);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log(`page, brotli on disk:            ${kb(brotli)} (target < ${TARGETS.compressedKb} kB)`);
  console.log(`page, bytes on the wire (1 load): ${kb(signIn.bytes)} incl. headers (anchor: ${kb(bare.bytes)})`);
  console.log(`CPU 4x slower, median of ${RUNS} cold loads:`);
  console.log(
    `  sign-in form shown:             ${signIn.ms} ms (target < ${TARGETS.firstRenderMs} ms; anchor, bare node:http: ${bare.ms} ms)`,
  );
  console.log(`  signed in, screen drawn:        ${median(shellMs)} ms (target < ${TARGETS.firstRenderMs} ms)`);
  console.log(`  signed in, power flow drawn:    ${median(flowMs)} ms`);
  console.log(`  signed in, day chart drawn:     ${median(chartMs)} ms`);
  console.log(`load average ${loadAverage()}`);
  tableRow({
    figure: 'page, CPU 4x slower: sign-in form shown',
    value: `${signIn.ms} ms, ${kb(signIn.bytes)} on the wire`,
    anchor: `same page from bare node:http ${bare.ms} ms`,
    target: `< ${TARGETS.firstRenderMs} ms`,
    met: signIn.ms < TARGETS.firstRenderMs,
  });
  tableRow({
    figure: 'page, CPU 4x slower: signed in, screen drawn',
    value: `${median(shellMs)} ms (flow ${median(flowMs)} ms, chart ${median(chartMs)} ms)`,
    anchor: '',
    target: `< ${TARGETS.firstRenderMs} ms`,
    met: median(shellMs) < TARGETS.firstRenderMs,
  });
  await browser.close();
  await anchor.stop();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
