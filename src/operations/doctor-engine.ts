/**
 * What `gctx doctor` needs of the engine, loaded on demand as one module: a single entry that
 * reaches the whole engine, so the bundle keeps the engine in one chunk (scripts/bundle.mjs).
 */
export { Memory } from '../engine/memory.js';
export { repairMemory } from '../engine/repair.js';
