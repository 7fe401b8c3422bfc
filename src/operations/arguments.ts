/** The shape of an operation's arguments as the front ends read them (fields.ts), generated from the schemas (fields.generated.ts). */
export type FieldKind = 'string' | 'strings' | 'number' | 'boolean' | 'enum' | 'other';

export interface Field {
  kind: FieldKind;
  required: boolean;
  /** What the field is for, from the schema's description: the line `gctx <command> --help` prints. */
  help?: string;
}

export interface Arguments {
  /** A call that gives no arguments is valid as it stands: the schema takes `{}` and gives back `{}`. */
  empty: boolean;
  /** The fields, in the schema's order. */
  fields: Readonly<Record<string, Field>>;
}
