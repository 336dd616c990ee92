// A reporter for node's test runner (beside its own): one JSON line per failed test, for the
// summary test/run-tests.mjs prints at the end. Suites that failed only because a test in
// them did are left out; a file that failed to load is listed by its path.
export default async function* failures(source) {
  // The names of the suites around each test, per file (events of several files interleave).
  const open = new Map();
  for await (const event of source) {
    if (event.type === 'test:start') {
      const { name, nesting, file } = event.data;
      const stack = open.get(file) ?? [];
      stack.length = nesting;
      stack.push(name);
      open.set(file, stack);
    }
    if (event.type !== 'test:fail') continue;
    const { file, details, nesting } = event.data;
    const name = [...(open.get(file) ?? []).slice(0, nesting), event.data.name].join(' › ');
    if (details?.error?.failureType === 'subtestsFailed') continue;
    const cause = details?.error?.cause ?? details?.error;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')[0]
      .slice(0, 200);
    yield JSON.stringify({ name, file: file ?? '', message }) + '\n';
  }
}
