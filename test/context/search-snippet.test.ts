/** What a hit's snippet is cut from: its text without what its title already says. */
import { describe, expect, it } from 'vitest';
import { beyondTitle } from '../../src/context/search-snippet.js';

describe('beyondTitle', () => {
  it('drops the first line a commit title or a merge title shows', () => {
    expect(beyondTitle('parser works\nNext: ship it', 'parser works')).toBe('Next: ship it');
    expect(beyondTitle('parser merged\nLearned: care', 'Merge feat: parser merged')).toBe('Learned: care');
    expect(beyondTitle('  spaced   out\t line\nrest', 'spaced out line')).toBe('rest');
    expect(beyondTitle('only the title', 'only the title')).toBe('');
  });

  it('keeps the rest of a line the title was clipped from, after an ellipsis', () => {
    expect(beyondTitle('a long line that goes on\nmore', 'a long line th…')).toBe('…at goes on\nmore');
    expect(beyondTitle('a long line that goes on', 'Merge b: a long…')).toBe('… line that goes on');
  });

  it('leaves a text its title does not repeat as it is', () => {
    expect(beyondTitle('Config parser reads JSON', 'Hand-written lexer')).toBe('Config parser reads JSON');
    expect(beyondTitle('Fixed the parser', 'Fix')).toBe('Fixed the parser');
    expect(beyondTitle('mtime misses edits', undefined)).toBe('mtime misses edits');
    expect(beyondTitle('', 'title')).toBe('');
  });
});
