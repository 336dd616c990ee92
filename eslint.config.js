// The lint config lives in test/lint (see there why); editors look for it here.
export { default } from './test/lint/eslint.config.js';
