/**
 * An operation, declared once: its name, what it is for, its arguments (one zod schema), how
 * the command line spells them, and what it asks of the engine. Every front end — the CLI,
 * the MCP tools, Pi's tools, `/gcc` and the daemon — is generated from these declarations
 * (adapters/*), so names, help, descriptions, argument parsing and errors agree everywhere.
 *
 * The schema is declared as a function of zod and built on first use (`argsOf` in schema.ts):
 * a process builds only the schemas of what it runs, and one that only lists or parses the
 * command line (help, usage) loads no zod at all (fields.ts).
 */
import type * as z from 'zod';
import type { ContextQuery } from '../context/query.js';
import type { Memory } from '../engine/memory.js';

/** Where an operation is offered. */
export type Front = 'cli' | 'mcp' | 'pi' | 'slash';

/** The zod builders a schema is declared with. */
export type Zod = Pick<typeof z, 'object' | 'string' | 'number' | 'boolean' | 'enum' | 'array'>;

/** What an operation needs before it runs. */
export type Needs = 'memory' | 'create' | 'none';

/** How the command line spells one argument. */
export interface CliArg {
  /** The argument's field in the schema. */
  field: string;
  /** `positional`: the next word; `rest`: every word left, joined; `flag`: `--name value` (or a switch for booleans). */
  as: 'positional' | 'rest' | 'flag';
  /** Flag name when it is not the field's (kebab-case); `--hypothesis` for `hypotheses`. */
  flag?: string;
  /** A flag whose value may be left out (`--branch [name]`): present without a value gives `''`. */
  optionalValue?: boolean;
  /** Other fields this spelling sets (`--log` sets `level: 'log'`). */
  sets?: Record<string, unknown>;
  /** The line `--help` prints for this spelling, when the field's own description does not fit it. */
  help?: string;
}

export interface Answer {
  /** What the reader sees (already inside any budget). */
  text: string;
  /** The same answer as data, for `--json` and MCP's structured content (never repeating `text`). */
  data: Record<string, unknown>;
  /** Exit code when not 0 (verify and doctor report problems this way). */
  exit?: number;
}

export interface RunContext {
  memory: Memory;
  session: string | undefined;
  budget: number | undefined;
  /** The asking front end's spelling of a CONTEXT query, for "how to see more" notes. */
  spell: (q: ContextQuery) => string;
  front: Front;
  /**
   * Given by a front end that prints the answer's text as it is (the command line without
   * `--json`): an answer too long to hold may be written through it in pieces, its text then
   * left empty.
   */
  print?: (chunk: string) => void;
}

export interface BareContext {
  dir: string;
  /** The folder the caller named (--dir), when it named one. */
  explicitDir: string | undefined;
  session: string | undefined;
  budget: number | undefined;
  front: Front;
}

interface Base<S extends z.ZodObject> {
  name: string;
  /** One line: the help text, and the tool description where `describe` is not set. */
  summary: string;
  /** The description models read (MCP, Pi): short, it rides in every request. */
  describe?: string;
  /** Its arguments: one zod object schema, built with the builders given. */
  args: (z: Zod) => S;
  cli: CliArg[];
  /** Extra usage words after the generated ones, e.g. `add|check|uncheck|remove`. */
  usage?: string;
  fronts: readonly Front[];
  /** True when the operation only reads (hosts may run it without asking). */
  readOnly: boolean;
  /**
   * The pass over the whole history a call makes, if any, for a front end to prepare for
   * (the command line runs verify in a lean process): `verify` reads every byte, `replay`
   * folds every event again.
   */
  wholePass?: (args: z.infer<S>) => WholePass | undefined;
}

export type WholePass = 'verify' | 'replay';

export type Operation<S extends z.ZodObject = z.ZodObject> =
  | (Base<S> & { needs: 'memory' | 'create'; run(args: z.infer<S>, ctx: RunContext): Promise<Answer> | Answer })
  | (Base<S> & { needs: 'none'; run(args: z.infer<S>, ctx: BareContext): Promise<Answer> | Answer });

/** Declared with its schema's type kept, stored in the catalogue without it. */
export function operation<S extends z.ZodObject>(op: Operation<S>): Operation {
  return op as unknown as Operation;
}
