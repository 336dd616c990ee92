// A short fuzz run in every test run (bounded, so CI stays fast); `npm run fuzz` runs longer.
// Each run prints its seed (FUZZ_SEED=<seed> replays it).
import { test } from 'node:test';
import { fuzzRest, fuzzSeed, fuzzWebsocket, startFuzzTarget } from './campaign.js';

const runs = Number(process.env.FUZZ_RUNS ?? 60);
const { seed, line } = fuzzSeed();
const target = await startFuzzTarget();

test(`REST: ${runs} random requests over every route answer no 5xx and the documented error`, async (t) => {
  t.diagnostic(line);
  await fuzzRest(target, runs, seed);
});

test(`WebSocket: ${runs} random frame sequences get error replies, never a crash or a closed socket`, async (t) => {
  t.diagnostic(line);
  await fuzzWebsocket(target, runs, seed);
});
