// `npm run fuzz`: the campaign with many more runs. FUZZ_RUNS (default 2000) and FUZZ_SEED
// (to replay a run: every run prints its seed) tune it.
import { fuzzRest, fuzzSeed, fuzzWebsocket, startFuzzTarget } from './campaign.js';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const { seed, line } = fuzzSeed();
console.log(line);
const target = await startFuzzTarget();
const started = Date.now();
await fuzzRest(target, runs, seed);
console.log(`REST: ${runs} runs passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
const wsStarted = Date.now();
await fuzzWebsocket(target, runs, seed);
console.log(`WebSocket: ${runs} runs passed in ${((Date.now() - wsStarted) / 1000).toFixed(1)} s`);
await target.server.close();
process.exit(0);
