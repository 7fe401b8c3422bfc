/**
 * Output schemas of the MCP tools: what `structuredContent` holds. Two shapes: a write (the
 * engine's message, the session's branch after it, the events appended) and a read (the
 * CONTEXT answer: its text inside the budget, and the data behind it).
 */
// Not `{ z }`: a namespace import lets the bundle leave out unused zod (scripts/bundle.mjs).
import * as z from 'zod';

const eventRef = z.object({
  id: z.string(),
  seq: z.number().int(),
  type: z.string(),
  branch: z.string(),
});

export const writeOutput = z.object({
  ok: z.literal(true),
  message: z.string().describe('What the engine did, in one line.'),
  branch: z.string().describe("This session's memory branch after the operation."),
  events: z.array(eventRef).describe('Events appended to the log.'),
  initialized: z.boolean().optional().describe('True when this call created .GCC/.'),
  merged: z.string().optional().describe('merge: the merged branch as it stood before the merge.'),
});

export const readOutput = z.object({
  ok: z.literal(true),
  level: z.enum(['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search']),
  text: z.string().describe('The answer as text, inside the token budget.'),
  truncated: z.boolean(),
  tokens: z.number().int().describe('Estimated tokens of text.'),
  data: z.unknown().describe('The same answer as data (not budgeted).'),
  initialized: z.boolean().optional(),
});

export type WriteOutput = z.infer<typeof writeOutput>;
export type ReadOutput = z.infer<typeof readOutput>;
