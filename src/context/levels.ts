/** The levels CONTEXT answers at, in the order they are documented. */
import type { ContextLevel } from './query.js';

export const CONTEXT_LEVELS: readonly ContextLevel[] = ['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search'];
