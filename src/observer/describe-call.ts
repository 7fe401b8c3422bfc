import type { CanonicalInput, CanonicalTool } from './envelope.js';

/**
 * The input of a call as one line of log text. Written files are summarised (their content is
 * in the repository; the log only needs to say what changed), everything else is kept as JSON.
 */
export function describeInput(tool: CanonicalTool | undefined, input: CanonicalInput | undefined): string {
  if (!input) return '';
  if (tool === 'Bash' && typeof input.command === 'string') return input.command;
  if (tool === 'Write' && typeof input.content === 'string') {
    const { content, ...rest } = input;
    return JSON.stringify({ ...rest, content: `<${content.split('\n').length} lines, ${content.length} chars>` });
  }
  if (tool === 'Edit' && Array.isArray(input.edits)) {
    const short = (s: unknown) => (typeof s === 'string' && s.length > 200 ? `${s.slice(0, 197)}...` : s);
    const edits = input.edits.map((e) => ({ old_string: short(e?.old_string), new_string: short(e?.new_string) }));
    return JSON.stringify({ ...input, edits });
  }
  try {
    return JSON.stringify(input);
  } catch {
    return String(input);
  }
}
