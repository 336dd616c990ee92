// Browsers as attackers: a page on another origin, opened in the user's browser, tries to
// open the stream with guessed passwords. Browsers apply no CORS to WebSockets but always
// send Origin, so the service must refuse it, and those guesses must not throttle the
// user's own address. The device's own page still connects.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from './browser.js';
import { PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

// Nothing is launched without a browser: the tests are then skipped (browser.ts says why, once).
let browser: Browser;
let server: TestServer;
let evilUrl: string;
if (!BROWSER_SKIP) {
  browser = await launchChromium();
  server = await startTestServer({ plugins: [] });
  // Another origin on the same machine: same host, another port.
  const evil = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>not the device</title>');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
  after(async () => {
    await browser.close();
    evil.close();
  });
}

const wsUrl = (password: string) =>
  `${server.url.replace('http', 'ws')}/api/websocket?password=${encodeURIComponent(password)}`;

/** Opens a WebSocket from inside the page: "open", or "closed <code>" when refused. */
function openFromPage(page: Page, url: string): Promise<string> {
  return page.evaluate(
    (target) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(target);
        ws.onopen = () => {
          ws.close();
          resolve('open');
        };
        ws.onclose = (event) => resolve(`closed ${event.code}`);
      }),
    url,
  );
}

test(
  'another origin cannot open the stream, and its guesses do not throttle the user',
  { skip: BROWSER_SKIP },
  async () => {
    const page = await browser.newPage();
    await page.goto(evilUrl);
    assert.equal(
      await openFromPage(page, wsUrl(PASSWORD)),
      'closed 1006',
      'even the right password is refused from another page',
    );
    for (let i = 0; i < 8; i++) assert.equal(await openFromPage(page, wsUrl(`guess ${i}`)), 'closed 1006');
    const status = (await server.api('/api/v1/metrics')).status;
    assert.equal(status, 200, 'the address is not throttled');
    await page.close();
  },
);

test("the device's own page opens the stream", { skip: BROWSER_SKIP }, async () => {
  const page = await browser.newPage();
  await page.goto(server.url + '/');
  assert.equal(await openFromPage(page, wsUrl(PASSWORD)), 'open');
  await page.close();
});
