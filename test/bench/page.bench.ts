/**
 * `npm run bench:page`: the settings page in headless Chromium with the CPU slowed 4x
 * (DevTools' CPU throttling), against the real service with the simulator. Prints, next to
 * the page's targets: its compressed size as sent, the time to the first
 * screen for a new visitor (sign-in form), and for a signed-in one the time to the power
 * flow with values and to the drawn chart. Medians of RUNS cold loads (cache disabled).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, WEB_DIST } from '../browser/browser.js';
import { PASSWORD, startSite } from '../browser/site.js';

const RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 5);
const TARGETS = { firstRenderMs: 1000, compressedKb: 150 };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const site = await startSite();
await site.waitForLog(/backfill complete/);
const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await cdp.send('Network.enable');
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });

let bytes = 0;
cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => (bytes += e.encodedDataLength));

const signInMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  await page.evaluate(() => localStorage.clear()).catch(() => undefined);
  bytes = 0;
  const start = Date.now();
  await page.goto(site.url);
  await page.getByLabel('Device password').waitFor();
  signInMs.push(Date.now() - start);
}
const pageBytes = bytes;

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
console.log(`page, brotli on disk:            ${(brotli / 1024).toFixed(1)} kB (target < ${TARGETS.compressedKb} kB)`);
console.log(`page, bytes on the wire (1 load): ${(pageBytes / 1024).toFixed(1)} kB incl. headers`);
console.log(`CPU 4x slower, median of ${RUNS} cold loads:`);
console.log(`  sign-in form shown:             ${median(signInMs)} ms (target < ${TARGETS.firstRenderMs} ms)`);
console.log(`  signed in, screen drawn:        ${median(shellMs)} ms (target < ${TARGETS.firstRenderMs} ms)`);
console.log(`  signed in, power flow drawn:    ${median(flowMs)} ms`);
console.log(`  signed in, day chart drawn:     ${median(chartMs)} ms`);
await browser.close();
await site.stop();
process.exit(0);
