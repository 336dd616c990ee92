// Preloaded (`--import`) into every test file's process by test/run-tests.mjs. A test file
// reports its results to the runner over its stdout, a pipe, and on Linux a pipe is written
// asynchronously: with `--test-force-exit` the file's process could exit with results still
// queued, and the runner then counted fewer tests than ran and could lose a failure's name
// (nodejs/node#64833). A blocking pipe has nothing queued when the process exits.
process.stdout._handle?.setBlocking?.(true);
