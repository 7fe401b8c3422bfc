/** zod's issues in a reader's words: the one place every front end's argument errors are worded. */
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { fieldSays } from '../../src/errors.js';
import { issuesText } from '../../src/operations/schema.js';

const schema = z.object({
  contribution: z.string().min(1),
  action: z.enum(['add', 'check']),
  n: z.number().int().min(1).optional(),
  files: z.array(z.string()).optional(),
  flag: z.boolean().optional(),
  title: z.string().max(5).optional(),
});

const said = (given: Record<string, unknown>) => {
  const r = schema.safeParse(given);
  if (r.success) throw new Error('accepted');
  return issuesText(r.error, given);
};

describe('issuesText', () => {
  it('words each issue as the decider does (errors.ts fieldSays)', () => {
    expect(said({ action: 'add' })).toBe(fieldSays.missing('contribution'));
    expect(said({ contribution: '', action: 'add' })).toBe('contribution cannot be empty');
    expect(said({ contribution: 'x', action: 'frob' })).toBe('action must be one of add, check, not "frob"');
    expect(said({ contribution: 'x', action: 'add', n: 0 })).toBe('n must be 1 or more');
    expect(said({ contribution: 'x', action: 'add', n: 1.5 })).toBe('n must be a whole number');
    expect(said({ contribution: 3, action: 'add', files: 'a.ts', flag: 'yes' })).toBe(
      'contribution must be text; files must be a list; flag must be true or false',
    );
    expect(said({ contribution: 'x', action: 'add', title: 'too long' })).toBe('title is longer than 5 characters');
  });

  it('without the call at hand, still tells a missing field from a wrong one', () => {
    const r = schema.safeParse({ action: 7 });
    expect(r.success).toBe(false);
    if (!r.success) expect(issuesText(r.error)).toBe('missing contribution; action must be one of add, check');
  });
});
