/**
 * A tiny reference model of branch operations, written independently of the machines, for the
 * property test to compare decideBranchOp against. Error precedence follows the order documented
 * at the top of src/machines/branch.ts.
 */
import type { ErrorCode } from '../../src/errors.js';
import type { BranchOp, BranchView } from '../../src/machines/branch.js';

interface RefBranch { status: 'active' | 'merged' | 'abandoned'; parent: string | null; inFlight: 'commit' | 'merge' | null }
export interface RefModel { current: string; branches: Map<string, RefBranch> }

export type RefResult = { ok: true; types: string[] } | { ok: false; code: ErrorCode };

export const refInitial = (): RefModel => ({
  current: 'main',
  branches: new Map([['main', { status: 'active', parent: null, inFlight: null }]]),
});

export function refView(m: RefModel): BranchView {
  const branches: BranchView['branches'] = {};
  for (const [n, b] of m.branches) branches[n] = { ...b };
  return { current: m.current, branches };
}

const closed = (b: RefBranch): boolean => b.status !== 'active';

/** The parent if it is open (active and not being merged), else main. */
function fallback(m: RefModel, name: string): string {
  const parent = m.branches.get(name)?.parent ?? 'main';
  const p = m.branches.get(parent);
  return p && p.status === 'active' && p.inFlight !== 'merge' ? parent : 'main';
}

/** Applies op to m in place when it succeeds; returns what decideBranchOp should say. */
export function refApply(m: RefModel, op: BranchOp): RefResult {
  const B = m.branches;
  const cur = B.get(m.current)!;
  const err = (code: ErrorCode): RefResult => ({ ok: false, code });
  switch (op.type) {
    case 'create': {
      if (B.has(op.name)) return err('E_BRANCH_EXISTS');
      if (closed(cur)) return err('E_BRANCH_CLOSED');
      if (cur.inFlight) return err('E_BUSY');
      B.set(op.name, { status: 'active', parent: m.current, inFlight: null });
      m.current = op.name;
      return { ok: true, types: ['branch.created'] };
    }
    case 'switch': {
      const to = B.get(op.to);
      if (!to) return err('E_BRANCH_NOT_FOUND');
      if (op.to === m.current) return { ok: true, types: [] };
      if (cur.inFlight === 'commit') return err('E_BUSY');
      if (closed(to)) return err('E_BRANCH_CLOSED');
      if (to.inFlight) return err('E_BUSY');
      m.current = op.to;
      return { ok: true, types: ['branch.switched'] };
    }
    case 'commit': {
      if (closed(cur)) return err('E_BRANCH_CLOSED');
      if (cur.inFlight) return err('E_BUSY');
      cur.inFlight = 'commit';
      return { ok: true, types: ['commit.recorded'] };
    }
    case 'merge': {
      const src = B.get(op.branch);
      if (!src) return err('E_BRANCH_NOT_FOUND');
      const intoName = op.into ?? fallback(m, op.branch);
      const into = B.get(intoName);
      if (!into) return err('E_BRANCH_NOT_FOUND');
      if (closed(src)) return err('E_BRANCH_CLOSED');
      if (src.inFlight) return err('E_BUSY');
      if (src.parent === null) return err('E_MERGE_MAIN');
      if (intoName === op.branch) return err('E_MERGE_SELF');
      if (m.current !== op.branch && m.current !== intoName && cur.inFlight === 'commit') return err('E_BUSY');
      if (closed(into)) return err('E_BRANCH_CLOSED');
      if (into.inFlight) return err('E_BUSY');
      // The projection moves the acting session to the target; sessionless, only off the source.
      const switched = op.session === undefined && m.current !== intoName && m.current !== op.branch;
      src.inFlight = 'merge';
      into.inFlight = 'commit';
      m.current = intoName;
      return { ok: true, types: ['commit.recorded', 'branch.merged', ...(switched ? ['branch.switched'] : [])] };
    }
    case 'abandon': {
      const b = B.get(op.branch);
      if (!b) return err('E_BRANCH_NOT_FOUND');
      if (closed(b)) return err('E_BRANCH_CLOSED');
      if (b.inFlight) return err('E_BUSY');
      if (b.parent === null) return err('E_ABANDON_MAIN');
      b.status = 'abandoned';
      if (m.current !== op.branch) return { ok: true, types: ['branch.abandoned'] };
      m.current = fallback(m, op.branch);
      return { ok: true, types: ['branch.abandoned'] };
    }
    case 'settle': {
      for (const b of B.values()) {
        if (b.inFlight === 'merge') b.status = 'merged';
        b.inFlight = null;
      }
      return { ok: true, types: [] };
    }
  }
}
