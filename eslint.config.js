// The lint config lives in tools/lint (see there why); editors look for it here.
export { default } from './tools/lint/eslint.config.js';
