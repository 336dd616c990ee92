/** The planner's pure parts, for the benchmark and for tests: no plugin context needed. */
export * from './battery-model.js';
export * from './load-forecast.js';
export * from './lp.js';
export * from './modes.js';
export * from './plan.js';
export * from './solver.js';
export * from './year.js';
