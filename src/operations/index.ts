/**
 * The catalogue: every operation gctx offers, in the order help lists them. Front ends are
 * generated from it (adapters/cli, adapters/mcp, adapters/pi); adding an operation is one file
 * here plus its tests. Commands that launch a front end (`gctx mcp`, `gctx hook`, `gctx serve`) live with
 * the CLI (adapters/cli/launchers/): nothing here imports a front end.
 */
import abandon from './abandon.js';
import branch from './branch.js';
import commit from './commit.js';
import config from './config.js';
import context from './context.js';
import doctor from './doctor.js';
import forget from './forget.js';
import git from './git.js';
import graph from './graph.js';
import init from './init.js';
import log from './log.js';
import merge from './merge.js';
import type { Front, Operation } from './operation.js';
import replay from './replay.js';
import roadmap from './roadmap.js';
import search from './search.js';
import stats from './stats.js';
import status from './status.js';
import switchOp from './switch.js';
import verify from './verify.js';
import viz from './viz.js';

export const CATALOGUE: readonly Operation[] = [
  init,
  status,
  commit,
  branch,
  switchOp,
  merge,
  abandon,
  roadmap,
  log,
  context,
  search,
  config,
  graph,
  viz,
  verify,
  replay,
  doctor,
  forget,
  stats,
  git,
];

export function operationsFor(front: Front): Operation[] {
  return CATALOGUE.filter((op) => op.fronts.includes(front));
}

export function operationNamed(name: string): Operation | undefined {
  return CATALOGUE.find((op) => op.name === name);
}

export type { Answer, BareContext, CliArg, Field, FieldKind, Front, Operation, RunContext } from './operation.js';
