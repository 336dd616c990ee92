// `npm run bench:glob`: pathological globs over 10 000 topics, the figure asked for
// ("************X" once blocked the event loop for 346 s as a backtracking RegExp).
import { compileGlob } from '@heliograph/core/topics/glob';

const topics = Array.from({ length: 10_000 }, (_, i) => `inverter_${i}/${'a'.repeat(40)}_power`);
const patterns = [
  '*'.repeat(12) + 'X',
  '*a'.repeat(40) + 'X',
  'inverter_*/*a*a*a*a*a*a*a*a*b',
  'total/*',
  '?'.repeat(60),
];

for (const pattern of patterns) {
  const matcher = compileGlob(pattern);
  // Once untimed, so the figure is the matcher's and not the JIT's warm-up.
  for (const topic of topics) matcher.test(topic);
  const started = performance.now();
  let matched = 0;
  for (const topic of topics) if (matcher.test(topic)) matched++;
  const ms = performance.now() - started;
  console.log(
    `${pattern.slice(0, 40).padEnd(40)} ${String(matched).padStart(6)} matches over ${topics.length} topics in ${ms.toFixed(1)} ms`,
  );
}
