/**
 * The options every command takes (help lists them as "Everywhere"), and the words of a call
 * with the command first. Imports nothing: the bootstrap (gctx.ts) reads them before it loads
 * anything else.
 */

export type Arity = 'flag' | 'one' | 'optional' | 'many';

/** Options every command takes. */
export const GLOBAL_FLAGS: Readonly<Record<string, Arity>> = {
  dir: 'one',
  json: 'flag',
  session: 'one',
  help: 'flag',
  budget: 'one',
};

/** The arity of a global option by name, or undefined (a name such as `constructor` included). */
export const globalArity = (name: string): Arity | undefined =>
  Object.hasOwn(GLOBAL_FLAGS, name) ? GLOBAL_FLAGS[name] : undefined;

/**
 * The words with the command first. Help lists the global options as taken everywhere, so they
 * may come before the command too (`gctx --dir x status`, `gctx --json commit …`): they are moved
 * after it, where the command's own parser reads them (and says what is wrong with them). A
 * value is taken with its option, so `gctx --dir status status` names a folder called status.
 */
export function commandFirst(argv: readonly string[]): readonly string[] {
  const lead: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const tok = argv[i]!;
    const eq = tok.indexOf('=');
    const flag = tok.slice(2, eq === -1 ? undefined : eq);
    const arity = tok === '-h' ? 'flag' : tok.startsWith('--') ? globalArity(flag) : undefined;
    if (!arity) break;
    lead.push(tok);
    i++;
    if (arity === 'one' && eq === -1 && i < argv.length) lead.push(argv[i++]!);
  }
  if (!lead.length) return argv;
  // Nothing but global options: help, as for no words at all (or for the --help among them).
  if (i === argv.length) return [];
  return [argv[i]!, ...lead, ...argv.slice(i + 1)];
}
