/**
 * How hard the default run tries: `npm test` runs few cases of the slow properties and soaks,
 * GCC_LONG=1 the full counts (CI's nightly, and anyone changing what they cover).
 */
export const LONG = process.env.GCC_LONG === '1';

/** The number of runs of a property: `short` in the default run, `long` with GCC_LONG=1. */
export const runs = (short: number, long: number): number => (LONG ? long : short);
