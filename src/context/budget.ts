/**
 * Token budgets. A token is counted as four characters: close enough for English and code to
 * keep answers inside a model's window, and cheap enough to apply to every answer. Answers are
 * lists, newest first: what must be cut is always the oldest, and the answer says exactly how
 * to reach it.
 */
/** Clipping one line lives beside the rest of text's safety, where the views use it too. */
export { clip } from '../log/safe-text.js';

export const CHARS_PER_TOKEN = 4;
/**
 * The smallest budget an answer is cut to: room for a page's header, one entry clipped, and
 * the exact call for what follows. Below it no answer could keep its promise, so a smaller
 * budget is refused rather than overrun.
 */
export const MIN_BUDGET = 60;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

interface Fitted {
  text: string;
  /** How many items made it in (the newest ones). */
  shown: number;
  truncated: boolean;
}

/**
 * A head, then items newest first, as many as the budget holds, then `tail(shown)`: what is
 * left out and how to get it — the items cut here and whatever lies beyond them ('' when
 * nothing does). The tail is budgeted like an item, so the whole stays within the budget. The
 * first item is always kept, clipped if it alone is over budget. `tail` must be pure: it is
 * asked about every count tried.
 */
export function fitItems(
  head: string,
  items: readonly string[],
  budget: number,
  tail: (shown: number) => string,
): Fitted {
  const limit = Math.max(1, budget) * CHARS_PER_TOKEN;
  // A head too long to leave room for one clipped item and the way on is cut itself, at a line
  // where one is near: the items are what was asked for.
  const room = limit - tail(1).length - 2 - 40;
  let text = head.length <= room ? head : cutHead(head, Math.max(0, room - 2));
  let shown = 0;
  for (const item of items) {
    if (text.length + item.length + tail(shown + 1).length + 2 > limit) {
      if (shown === 0) {
        const room = Math.max(40, limit - text.length - tail(1).length - 2);
        text += `${item.slice(0, room)}…\n`;
        shown = 1;
      }
      break;
    }
    text += item;
    shown++;
  }
  text += tail(shown);
  return { text: text.replace(/\n+$/, ''), shown, truncated: shown < items.length };
}

function cutHead(head: string, room: number): string {
  let cut = head.lastIndexOf('\n', room);
  if (cut < room / 2) cut = room;
  if (/[\uD800-\uDBFF]/.test(head.charAt(cut - 1))) cut--;
  return `${head.slice(0, cut).trimEnd()}…\n`;
}

/** Cut whole lines from the end of a text that is not a list; say so when anything was cut. */
export function fitText(text: string, budget: number, more: string): { text: string; truncated: boolean } {
  const limit = Math.max(1, budget) * CHARS_PER_TOKEN;
  if (text.length <= limit) return { text, truncated: false };
  const note = `\n… cut to ${budget} tokens; ${more}`;
  const room = Math.max(0, limit - note.length);
  let cut = text.lastIndexOf('\n', room);
  if (cut < room / 2) cut = room;
  return { text: text.slice(0, cut) + note, truncated: true };
}
