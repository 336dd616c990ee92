// A service that dies mid-plan (solver-orphan.test.ts): forks the solver process, has one plan
// made (so the solver is loaded), prints the process's pid, asks for a second plan and kills
// itself at once with SIGKILL, while the second plan is being made.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nightAndEvening, planRequest } from './fixtures.js';

const request = planRequest(nightAndEvening());
const child = fork(fileURLToPath(new URL('../src/solver-process.js', import.meta.url)), [], {
  serialization: 'advanced',
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
child.once('message', () => {
  process.stdout.write(`${child.pid}\n`, () => {
    child.send(request);
    process.kill(process.pid, 'SIGKILL');
  });
});
child.send(request);
