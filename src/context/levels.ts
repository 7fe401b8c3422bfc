/** The levels CONTEXT answers at, in the order they are documented (query.ts holds each one's query). */
export const CONTEXT_LEVELS = ['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search'] as const;

export type ContextLevel = (typeof CONTEXT_LEVELS)[number];
