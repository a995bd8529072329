// Preloaded (`node --import`) into a kernel under test, so it can be given a history of days
// in seconds: its clock (Date.now and performance.now, which epochMonotonic reads) runs
// LEASE_GATE_TEST_SHIFT_FILE's milliseconds ahead of the real one, read again on SIGUSR2.
// Only forward: the test moves the offset up towards 0 (now), never back.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.LEASE_GATE_TEST_SHIFT_FILE;
let offset = 0;
const read = () => {
  offset = Number(readFileSync(file, 'utf8')) || 0;
};
if (file) {
  read();
  process.on('SIGUSR2', read);
  const dateNow = Date.now;
  Date.now = () => dateNow() + offset;
  const perfNow = performance.now.bind(performance);
  performance.now = () => perfNow() + offset;
}
