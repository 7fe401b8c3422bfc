/**
 * Token budgets. A token is counted as four characters: close enough for English and code
 * to keep answers inside a model's window, and cheap enough to apply to every answer.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Cut whole lines to fit; say so, and how to see more, when anything was cut. */
export function fitBudget(text: string, budget: number, more: string): { text: string; truncated: boolean } {
  const limit = Math.max(1, budget) * CHARS_PER_TOKEN;
  if (text.length <= limit) return { text, truncated: false };
  const note = `\n… truncated to ${budget} tokens; ${more}`;
  const room = Math.max(0, limit - note.length);
  let cut = text.lastIndexOf('\n', room);
  if (cut < room / 2) cut = room;
  return { text: text.slice(0, cut) + note, truncated: true };
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
