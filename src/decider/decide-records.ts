/**
 * Decisions that record without touching the branch lifecycle: roadmap, OTA and tool
 * entries, configuration, session boundaries. Kept apart from branch decisions so a
 * short-lived hook process that only records never loads the state machines.
 */
import { type Config, DEFAULT_CONFIG, MAIN, type NewEvent } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import type { MemoryState } from '../projections/state.js';
import { currentBranch, type DecideContext, type RecordCommand, type Decision, fail, ok, text, wellFormed } from './decision.js';
import { findObjective, normalizeLine } from './objectives.js';


function coerceConfig(key: string, value: string | number | boolean): { key: keyof Config; value: Config[keyof Config] } | GccError {
  if (!(key in DEFAULT_CONFIG)) {
    return gccError('E_CONFIG_KEY', `unknown config key ${JSON.stringify(key)}`, `use one of: ${Object.keys(DEFAULT_CONFIG).join(', ')}`);
  }
  const k = key as keyof Config;
  if (typeof DEFAULT_CONFIG[k] === 'boolean') {
    const s = String(value).toLowerCase();
    if (['true', 'on', 'yes', '1'].includes(s)) return { key: k, value: true };
    if (['false', 'off', 'no', '0'].includes(s)) return { key: k, value: false };
    return gccError('E_INVALID_ARGUMENT', `${key} takes true or false`, `gctx config set ${key} true`);
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) return gccError('E_INVALID_ARGUMENT', `${key} takes a whole number from 1 to 10000`, `gctx config set ${key} 10`);
  return { key: k, value: n };
}

export function decideRecord(state: MemoryState, input: RecordCommand, ctx: DecideContext): Decision {
  const cmd = wellFormed(input);
  const here = currentBranch(state, ctx.session);
  switch (cmd.type) {
    case 'roadmap': {
      if (cmd.action === 'add') {
        const t = text('objective', cmd.target);
        if (typeof t !== 'string') return fail(t);
        const line = normalizeLine(t);
        return ok(MAIN, [{ type: 'objective.added', data: { id: `o-${ctx.nonce.slice(0, 8)}`, text: line } }], `Added objective ${state.objectives.length + 1}: ${line}`);
      }
      if (cmd.action !== 'check' && cmd.action !== 'uncheck' && cmd.action !== 'remove') {
        return fail(gccError('E_INVALID_ARGUMENT', `unknown roadmap action ${JSON.stringify(cmd.action)}`, 'use add, check, uncheck or remove'));
      }
      const o = findObjective(state.objectives, cmd.target);
      if (o instanceof GccError) return fail(o);
      const type = cmd.action === 'check' ? 'objective.checked' : cmd.action === 'uncheck' ? 'objective.unchecked' : 'objective.removed';
      return ok(MAIN, [{ type, data: { id: o.id } }], `Objective ${cmd.action === 'remove' ? 'removed' : `${cmd.action}ed`}: ${o.text}`);
    }
    case 'log': {
      for (const f of ['observation', 'thought', 'action'] as const) {
        const t = text(f, cmd[f], false);
        if (typeof t !== 'string') return fail(t);
      }
      if (!cmd.observation.trim() && !cmd.thought.trim() && !cmd.action.trim()) {
        return fail(gccError('E_INVALID_ARGUMENT', 'an OTA entry needs an observation, a thought or an action', 'gctx log --observation "…" --thought "…" --action "…"'));
      }
      return ok(here, [{ type: 'ota.logged', data: { observation: cmd.observation, thought: cmd.thought, action: cmd.action } }], `Logged on ${here}`);
    }
    case 'record-tool': {
      const data = { tool: cmd.tool, input: cmd.input, result: cmd.result, isError: cmd.isError, files: cmd.files, ...(cmd.host ? { host: cmd.host } : {}) };
      return ok(here, [{ type: 'tool.recorded', data }], `Recorded ${cmd.tool} on ${here}`);
    }
    case 'config': {
      const c = coerceConfig(cmd.key, cmd.value);
      if (c instanceof GccError) return fail(c);
      return ok(MAIN, [{ type: 'config.set', data: c }], `Set ${c.key} = ${String(c.value)}`);
    }
    case 'session': {
      const id = ctx.session ?? 'default';
      const type = `session.${cmd.kind}` as const;
      const data = type === 'session.compacted' ? { session: id, host: cmd.host } : { session: id, host: cmd.host, reason: cmd.reason ?? cmd.kind };
      return ok(here, [{ type, data } as NewEvent], `Session ${id} ${cmd.kind}`);
    }
  }
}
