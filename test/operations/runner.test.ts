/**
 * The one runner every front end adapts: arguments checked in the caller's terms, a declared
 * preview shown before the act and framed with it for models, and fixes said in the caller's
 * words — a tool call for a model, `/gcc …` in Pi, the engine's API for a library caller.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { callIn } from '../../src/adapters/cli/args.js';
import { MCP } from '../../src/adapters/mcp/tools.js';
import { Memory } from '../../src/engine/memory.js';
import { gccError, sayFixCallsAs } from '../../src/errors.js';
import { operation, type Operation } from '../../src/operations/operation.js';
import { check, failure, perform, type Speaker } from '../../src/operations/runner.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const speaker = (front: 'pi' | 'slash'): Speaker => ({
  front,
  spell: () => '',
  usage: () => 'usage',
  call: (w) => callIn(w, front, front === 'pi' ? 'gcc_' : ''),
});

describe("fixes in the caller's words", () => {
  const exists = gccError(
    'E_BRANCH_EXISTS',
    'branch x already exists',
    'switch to it with `gctx switch x`, or pick another name',
  );

  it('a model is told the tool call, a person in Pi the /gcc line; a command the front end lacks stays a command line', () => {
    expect(failure(exists, MCP).fix).toBe('switch to it with `switch {"name":"x"}`, or pick another name');
    expect(failure(exists, speaker('pi')).fix).toBe(
      'switch to it with `gcc_switch {"name":"x"}`, or pick another name',
    );
    expect(failure(exists, speaker('slash')).fix).toBe('switch to it with `/gcc switch x`, or pick another name');
    expect(failure(gccError('E_BRANCH_NOT_FOUND', 'no branch', 'see the branches with `gctx status`'), MCP).fix).toBe(
      'see the branches with `gctx status`',
    );
    // A fix that is one call as a whole.
    expect(
      failure(gccError('E_INVALID_ARGUMENT', 'x', 'gctx config set commit_after_edits 10'), speaker('slash')).fix,
    ).toBe('/gcc config set commit_after_edits 10');
  });

  it('a library caller is told the engine call', () => {
    sayFixCallsAs((words) => callIn(words, 'library'));
    try {
      expect(gccError('E_BRANCH_EXISTS', 'branch x already exists', 'switch to it with `gctx switch x`').fix).toBe(
        'switch to it with `memory.execute({"type":"switch","name":"x"})`',
      );
      expect(gccError('E_NOT_INITIALIZED', 'no memory', 'run `gctx init` in the project folder').fix).toBe(
        'run `Memory.open(dir, { create: true })` in the project folder',
      );
      expect(gccError('E_BRANCH_NOT_FOUND', 'no branch', 'see the branches with `gctx status`').toJSON().fix).toBe(
        'see the branches with `memory.context({ level: "status" })`',
      );
    } finally {
      sayFixCallsAs((words) => `gctx ${words}`);
    }
  });
});

describe('perform', () => {
  const previewed = operation({
    name: 'probe',
    summary: 'a probe',
    args: { word: { kind: 'string', required: true, min: 1, help: 'A word.' } },
    cli: [{ field: 'word', as: 'positional' }],
    fronts: ['mcp'],
    example: 'probe x',
    answer: 'result',
    readOnly: false,
    needs: 'memory',
    preview: (a) => ({ text: `before ${a.word}`, data: { seen: a.word } }),
    run: (a) => ({ text: `did ${a.word}`, data: { ok: true } }),
  }) as Operation;

  it('shows a declared preview before the act, framed with it as memory for a model, and keeps its data apart', async () => {
    const dir = tempProject('gcc-runner-');
    const m = await Memory.open(dir, { create: true });
    try {
      const args = await check(previewed, { word: 'x' }, MCP);
      const a = await perform(previewed, args, MCP, {
        dir,
        session: undefined,
        budget: undefined,
        memory: async () => m,
      });
      expect(a.text).toMatch(/^<gcc-memory source="\.GCC\/">\n[^\n]*\nbefore x\n\ndid x\n<\/gcc-memory>$/);
      expect(a.data).toEqual({ ok: true, preview: { seen: 'x' } });
      await expect(check(previewed, { word: '' }, MCP)).rejects.toThrow(
        'invalid arguments for probe: word cannot be empty',
      );
      await expect(check(previewed, [], MCP)).rejects.toThrow('arguments of probe must be an object, not a list');
    } finally {
      m.close();
    }
  });
});
