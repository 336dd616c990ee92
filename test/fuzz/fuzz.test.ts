// A short fuzz run in every test run (bounded, so CI stays fast); `npm run fuzz` runs longer.
import { test } from 'node:test';
import { fuzzRest, fuzzWebsocket, startFuzzTarget } from './campaign.js';

const runs = Number(process.env.FUZZ_RUNS ?? 60);
const target = await startFuzzTarget();

test(`REST: ${runs} random requests over every route answer no 5xx and the documented error`, async () => {
  await fuzzRest(target, runs);
});

test(`WebSocket: ${runs} random frame sequences get error replies, never a crash or a closed socket`, async () => {
  await fuzzWebsocket(target, runs);
});
