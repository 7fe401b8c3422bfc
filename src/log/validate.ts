/**
 * Shape checks for events read from disk. A machine line with a valid CRC can still have
 * been written by hand; projections must never see an event of the wrong shape.
 */
import { EVENT_TYPES, type EventType, type GccEvent } from '../events/types.js';


type Kind = 'string' | 'number' | 'boolean' | 'strings' | 'files' | 'object' | 'scalar';
type Shape = Record<string, Kind | `${Kind}?`>;

const SHAPES: Record<EventType, Shape> = {
  'memory.initialized': { format: 'number', config: 'object' },
  'objective.added': { id: 'string', text: 'string' },
  'objective.checked': { id: 'string' },
  'objective.unchecked': { id: 'string' },
  'objective.removed': { id: 'string' },
  'objective.edited': { id: 'string', text: 'string' },
  'notes.patched': { patch: 'string' },
  'config.set': { key: 'string', value: 'scalar' },
  'branch.created': { name: 'string', parent: 'string', purpose: 'string', hypotheses: 'strings', session: 'string?' },
  'branch.switched': { to: 'string', session: 'string?' },
  'commit.recorded': {
    id: 'string',
    label: 'string',
    title: 'string',
    contribution: 'string',
    purpose: 'string',
    previous: 'string',
    files: 'files',
    merge: 'object?',
  },
  'branch.merged': { branch: 'string', into: 'string', commit: 'string', session: 'string?' },
  'branch.abandoned': { branch: 'string', reason: 'string', session: 'string?' },
  'ota.logged': { observation: 'string', thought: 'string', action: 'string' },
  'tool.recorded': { tool: 'string', input: 'string', result: 'string', isError: 'boolean', files: 'files', host: 'string?' },
  'session.started': { session: 'string', host: 'string', reason: 'string' },
  'session.compacted': { session: 'string', host: 'string' },
  'session.ended': { session: 'string', host: 'string', reason: 'string' },
};

const TYPES = new Set<string>(EVENT_TYPES);

/** Shapes compiled once into [key, kind, optional] rows: validation runs per event on replay. */
const COMPILED = new Map<string, [string, Kind, boolean][]>(
  Object.entries(SHAPES).map(([type, shape]) => [type, Object.entries(shape).map(([k, spec]) => [k, spec.replace('?', '') as Kind, spec.endsWith('?')])]),
);

function isKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'scalar':
      return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'strings':
      return Array.isArray(v) && v.every((s) => typeof s === 'string');
    case 'files':
      return (
        Array.isArray(v) &&
        v.every(
          (f: unknown) =>
            typeof f === 'object' &&
            f !== null &&
            typeof (f as { path?: unknown }).path === 'string' &&
            typeof (f as { added?: unknown }).added === 'number' &&
            typeof (f as { removed?: unknown }).removed === 'number',
        )
      );
  }
}

const isFiles = (v: unknown) => isKind(v, 'files');

/**
 * The same checks as SHAPES for the types that make up most of a log, written out: the
 * table's loop reads each field by a computed key, which costs a tenth of a replay. A
 * false here only means "ask the table", which also words the error (a property test
 * holds the two to the same answers).
 */
type Loose = Record<string, unknown>;
export const FAST: Partial<Record<string, (d: Loose) => boolean>> = {
  'tool.recorded': (d) =>
    typeof d.tool === 'string' &&
    typeof d.input === 'string' &&
    typeof d.result === 'string' &&
    typeof d.isError === 'boolean' &&
    isFiles(d.files) &&
    (d.host === undefined || typeof d.host === 'string'),
  'ota.logged': (d) => typeof d.observation === 'string' && typeof d.thought === 'string' && typeof d.action === 'string',
  'commit.recorded': (d) =>
    typeof d.id === 'string' &&
    typeof d.label === 'string' &&
    typeof d.title === 'string' &&
    typeof d.contribution === 'string' &&
    typeof d.purpose === 'string' &&
    typeof d.previous === 'string' &&
    isFiles(d.files) &&
    (d.merge === undefined || isKind(d.merge, 'object')),
};

/**
 * The form toISOString writes, with field ranges so that whatever matches also parses:
 * tried first because Date.parse is slow enough per event to show in a replay.
 */
const ISO_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

function isTime(v: unknown): boolean {
  return typeof v === 'string' && (ISO_TIME.test(v) || !Number.isNaN(Date.parse(v)));
}

export function validateEvent(raw: unknown): GccEvent {
  if (typeof raw !== 'object' || raw === null) throw new Error('not an object');
  const e = raw as Record<string, unknown>;
  if (typeof e.id !== 'string' || e.id.length === 0) throw new Error('missing id');
  if (typeof e.seq !== 'number' || !Number.isInteger(e.seq) || e.seq < 1) throw new Error('bad seq');
  if (!isTime(e.at)) throw new Error('bad time');
  if (typeof e.branch !== 'string') throw new Error('missing branch');
  if (typeof e.type !== 'string' || !TYPES.has(e.type)) throw new Error(`unknown event type ${String(e.type)}`);
  if (e.more !== undefined && (typeof e.more !== 'number' || !Number.isInteger(e.more) || e.more < 1)) throw new Error('bad batch marker');
  const data = e.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('missing data');
  if (FAST[e.type]?.(data as Loose)) return raw as GccEvent;
  const problem = tableProblem(e.type, data as Loose);
  if (problem) throw new Error(problem);
  return raw as GccEvent;
}

/** What is wrong with an event's data by the SHAPES table, or null. */
export function tableProblem(type: string, data: Loose): string | null {
  for (const [key, kind, optional] of COMPILED.get(type)!) {
    const v = data[key];
    if (v === undefined && optional) continue;
    if (!isKind(v, kind)) return `${type}: field ${key} is not ${kind}`;
  }
  return null;
}
