/* The tiers of history's rows (rows.ts), apart so that damage.ts names them without importing rows.ts. */

/** Entry length in seconds of each tier, finest first. */
export const TIERS = [10, 60, 3600, 86400] as const;
export type Tier = (typeof TIERS)[number];
