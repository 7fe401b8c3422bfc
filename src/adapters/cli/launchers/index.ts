/**
 * Commands that start another front end from the command line (`gctx mcp`, `gctx hook`,
 * `gctx serve`): operations in shape (generated usage, checked arguments) but kept here, beside
 * the front ends they launch, so the catalogue never imports a front end. The CLI lists them
 * after the catalogue's commands.
 */
import type { Operation } from '../../../operations/operation.js';
import hook from './hook.js';
import mcp from './mcp.js';
import serve from './serve.js';

export const LAUNCHERS: readonly Operation[] = [mcp, hook, serve];
