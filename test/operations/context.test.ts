/** The CONTEXT query a call asks for, as every front end (MCP, Pi, the command line) reads it. */
import { describe, expect, it } from 'vitest';
import { queryOf } from '../../src/operations/context.js';

const refusal = (a: Parameters<typeof queryOf>[0]) => {
  try {
    queryOf(a);
  } catch (err) {
    return (err as { code: string; message: string }).code + ': ' + (err as Error).message;
  }
  return 'accepted';
};

describe('queryOf', () => {
  it('reads a level with what it takes', () => {
    expect(queryOf({})).toEqual({ level: 'status', beyond: true });
    expect(queryOf({ level: 'status' })).toEqual({ level: 'status' });
    expect(queryOf({ level: 'log', n: 3, name: 'g1', page: 2 })).toEqual({ level: 'log', n: 3, branch: 'g1', page: 2 });
    expect(queryOf({ id: 'C003' })).toEqual({ level: 'commit', id: 'C003' });
    expect(queryOf({ text: 'retry', budget: 800 })).toEqual({ level: 'search', text: 'retry' });
    // Empty strings are no value (a model's "name": "").
    expect(queryOf({ level: 'metadata', name: '' })).toEqual({ level: 'metadata' });
  });

  it('reads a commit label on the branch given, and refuses a branch a hash or a qualified label contradicts', () => {
    expect(queryOf({ level: 'commit', id: 'C002', name: 'g1' })).toEqual({ level: 'commit', id: 'g1@C002' });
    expect(queryOf({ level: 'commit', id: 'C002.1a2b', name: 'feat/x' })).toEqual({
      level: 'commit',
      id: 'feat/x@C002.1a2b',
    });
    expect(queryOf({ level: 'commit', id: 'g1@C002', name: 'g1' })).toEqual({ level: 'commit', id: 'g1@C002' });
    expect(refusal({ level: 'commit', id: 'main@C002', name: 'g1' })).toMatch(
      /^E_INVALID_ARGUMENT: "main@C002" names branch main/,
    );
    expect(refusal({ level: 'commit', id: '1a2b3c4', name: 'g1' })).toMatch(
      /^E_INVALID_ARGUMENT: a hash names one commit/,
    );
  });

  it('refuses what the level does not read, and a commit and a search asked at once', () => {
    expect(refusal({ level: 'status', page: 2 })).toBe('E_INVALID_ARGUMENT: level status does not read page (--page)');
    expect(refusal({ level: 'log', text: 'foo' })).toBe(
      'E_INVALID_ARGUMENT: level log does not read text (--search); it reads n, page, name',
    );
    expect(refusal({ level: 'full', name: 'g1', segment: 'config' })).toBe(
      'E_INVALID_ARGUMENT: level full does not read name (--on), segment (--metadata); it reads page, k',
    );
    expect(refusal({ id: 'C001', text: 'foo' })).toMatch(
      /^E_INVALID_ARGUMENT: a commit \(id\) and a search \(text\) were both asked for/,
    );
  });
});
