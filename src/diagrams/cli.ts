/**
 * The entry point for `gctx viz`. It returns the text to print (ending in a
 * newline) and throws a GccError on bad arguments; the CLI owns argv, printing and exit codes.
 */
import { gccError } from '../errors.js';
import { graphToMermaid, MACHINE_NAMES, MACHINES, type MachineName, machineGraph, stateId } from './mermaid.js';

const isMachine = (s: string): s is MachineName => (MACHINE_NAMES as string[]).includes(s);

export function runViz(args: { machine?: string; format?: 'mermaid' | 'json'; active?: string }): string {
  const format = args.format ?? 'mermaid';
  if (format !== 'mermaid' && format !== 'json') {
    throw gccError(
      'E_INVALID_ARGUMENT',
      `unknown format "${String(format)}"`,
      'use `--format mermaid` or `--format json`',
    );
  }
  if (args.machine !== undefined && !isMachine(args.machine)) {
    throw gccError(
      'E_INVALID_ARGUMENT',
      `no machine named "${args.machine}"`,
      `pick one of: ${MACHINE_NAMES.join(', ')}`,
    );
  }
  if (args.active !== undefined && args.machine === undefined) {
    throw gccError('E_INVALID_ARGUMENT', '--active needs a machine', 'e.g. `gctx viz branch --active merged`');
  }
  const names = args.machine === undefined ? MACHINE_NAMES : [args.machine];
  const graphs = names.map((name) => {
    const active = args.active?.trim();
    if (active !== undefined && stateId(MACHINES[name](), active) === null) {
      throw gccError(
        'E_INVALID_ARGUMENT',
        `"${args.active}" is not a state of the ${name} machine`,
        `see its states with \`gctx viz ${name} --format json\``,
      );
    }
    return [name, machineGraph(MACHINES[name](), active === undefined ? {} : { active })] as const;
  });
  if (format === 'json') {
    const out = graphs.length === 1 ? graphs[0]![1] : Object.fromEntries(graphs);
    return `${JSON.stringify(out, null, 2)}\n`;
  }
  return graphs
    .map(([name, g]) => (graphs.length === 1 ? graphToMermaid(g) : `%% ${name}\n${graphToMermaid(g)}`))
    .join('\n');
}
