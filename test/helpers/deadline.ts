// The deadlines of tests' waits are defined once, beside the core's tests.
export { pollUntil, within } from '@heliograph/core/test/helpers/deadline';
