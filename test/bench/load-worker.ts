// The load generator of the benchmarks, in a process of its own (pinned by shipped.ts to the
// core the server does not use): runs autocannon with the options given as JSON in argv[2] and
// prints one line of JSON with what the benchmarks report.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]!) as autocannon.Options;
const result = await autocannon(options);
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    bytesPerRequest: result.throughput.total / Math.max(1, result.requests.total),
  }) + '\n',
);
