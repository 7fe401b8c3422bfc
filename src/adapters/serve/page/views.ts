/**
 * The page's sections drawn from the daemon's data, as plain elements built from text. Each
 * function replaces its section's contents in one step, so an update never shows a half-drawn
 * section.
 */
import type { CommitItem, LogItem, Overview, SearchHit } from './contract.js';
import { fill, fromMarks, h, time } from './dom.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function renderRoadmap(o: Overview, objectives: HTMLElement, milestones: HTMLElement): void {
  fill(
    objectives,
    ...o.objectives.map((ob) => {
      const id = `objective-${ob.n}`;
      return h(
        'li',
        { class: ob.done ? 'done' : '' },
        // Shown, not edited: the page changes nothing.
        h('input', { type: 'checkbox', id, checked: ob.done, disabled: true }),
        h('label', { for: id }, h('span', { class: 'num' }, `${ob.n}.`), ' ', ob.text),
      );
    }),
  );
  if (o.objectives.length === 0) objectives.append(h('li', { class: 'note' }, 'No objectives yet.'));
  fill(
    milestones,
    ...o.milestones.map((m) =>
      h(
        'li',
        {},
        h('span', { class: 'num' }, `M${m.n}`),
        ' ',
        h('strong', {}, m.title),
        ' ',
        h('span', { class: `badge ${m.status}` }, m.status),
        ' ',
        h('span', { class: 'meta' }, 'on ', h('code', {}, m.branch), ' · ', time(m.at)),
      ),
    ),
  );
  if (o.milestones.length === 0) milestones.append(h('li', { class: 'note' }, 'No milestones yet.'));
}

export function renderBranches(o: Overview, failed: HTMLElement, branches: HTMLElement): void {
  failed.hidden = o.failed.length === 0;
  const failedList = failed.querySelector('ol');
  if (failedList) {
    fill(
      failedList,
      ...o.failed.map((f) =>
        h(
          'li',
          {},
          h('code', { class: 'branch' }, f.branch),
          ' — ',
          h('span', { class: 'reason' }, f.reason),
          ' ',
          h('span', { class: 'meta' }, time(f.at)),
        ),
      ),
    );
  }
  fill(
    branches,
    ...o.branches.map((b) => {
      const facts: Array<Node | string> = [];
      const fact = (label: string, ...value: Array<Node | string>) =>
        facts.push(h('dt', {}, label), h('dd', {}, ...value));
      if (b.parent !== null) fact('from', h('code', {}, b.parent));
      fact('state', h('code', {}, b.state));
      fact('commits', String(b.commits));
      fact('created', time(b.created));
      if (b.closed !== null) fact('closed', time(b.closed));
      if (b.mergedInto !== null) fact('merged into', h('code', {}, b.mergedInto));
      if (b.reason !== null) fact('reason', b.reason);
      return h(
        'li',
        { class: `branch-card ${b.status}`, 'data-branch': b.name },
        h(
          'h3',
          {},
          h('code', { class: 'branch' }, b.name),
          ' ',
          h('span', { class: `badge ${b.status}` }, b.status),
          b.name === o.branch ? h('span', { class: 'badge current' }, 'current') : null,
        ),
        b.purpose ? h('p', { class: 'purpose' }, b.purpose) : null,
        h('dl', {}, ...facts),
      );
    }),
  );
}

/** A file named without line counts (`--files`) records 0 and 0: it is shown without counts. */
const counted = (f: { added: number; removed: number }): boolean => f.added > 0 || f.removed > 0;
const lineCounts = (f: { added: number; removed: number }) => [
  ' ',
  h('span', { class: 'added' }, `+${f.added}`),
  ' ',
  h('span', { class: 'removed' }, `−${f.removed}`),
];

export function renderCommit(c: CommitItem): HTMLLIElement {
  const added = c.files.reduce((n, f) => n + f.added, 0);
  const removed = c.files.reduce((n, f) => n + f.removed, 0);
  const counts = c.files.some(counted) ? ` +${added} −${removed}` : '';
  const details = h(
    'details',
    {},
    h('summary', {}, h('span', { class: 'label' }, c.label), ' ', h('span', { class: 'title' }, c.title)),
    c.contribution ? h('p', { class: 'contribution' }, c.contribution) : null,
    c.files.length > 0
      ? h(
          'ul',
          { class: 'files' },
          ...c.files.map((f) => h('li', {}, h('code', {}, f.path), ...(counted(f) ? lineCounts(f) : []))),
        )
      : null,
  );
  return h(
    'li',
    { class: 'entry commit', 'data-hash': c.hash },
    details,
    h(
      'p',
      { class: 'meta' },
      h('code', { class: 'branch' }, c.branch),
      ' · ',
      time(c.at),
      c.files.length > 0 ? ` · ${plural(c.files.length, 'file')}${counts}` : '',
      c.hash ? ' · ' : '',
      c.hash ? h('code', { class: 'hash', title: c.hash }, c.hash.slice(0, 10)) : null,
    ),
  );
}

export function renderLogEntry(e: LogItem): HTMLLIElement {
  return h(
    'li',
    { class: `entry log kind-${e.kind}` },
    h(
      'p',
      { class: 'meta' },
      h('span', { class: `badge kind` }, e.kind),
      ' ',
      h('code', { class: 'branch' }, e.branch),
      ' · ',
      time(e.at),
    ),
    h('p', { class: 'text' }, e.text),
  );
}

export function renderHit(hit: SearchHit): HTMLLIElement {
  return h(
    'li',
    { class: 'entry hit' },
    h(
      'p',
      { class: 'meta' },
      h('span', { class: 'badge kind' }, hit.kind),
      ' ',
      h('code', { class: 'branch' }, hit.branch),
      ' · ',
      time(hit.at),
      hit.ref !== null ? ' · ' : '',
      hit.ref !== null ? h('code', { class: 'ref' }, hit.ref) : null,
    ),
    // Search marks what matched with «…»: that is the highlight, and the only one.
    hit.title !== null ? h('p', { class: 'title' }, fromMarks(hit.title)) : null,
    hit.snippet ? h('p', { class: 'snippet' }, fromMarks(hit.snippet)) : null,
  );
}

export function renderSessions(o: Overview, sessions: HTMLElement): void {
  fill(
    sessions,
    ...o.sessions.map((s) =>
      h(
        'li',
        { 'data-session': s.id },
        h('code', {}, s.id),
        ' ',
        h('span', { class: 'meta' }, `(${s.host})`),
        ' ',
        h('span', { class: `badge state state-${s.state.replace(/[^\w-]/g, '_')}` }, s.state),
        ' ',
        h('span', { class: 'meta' }, 'on ', h('code', {}, s.branch), ' since ', time(s.since)),
      ),
    ),
  );
  if (o.sessions.length === 0) sessions.append(h('li', { class: 'note' }, 'No sessions.'));
}

/** Fills a branch filter `<select>` with the branches, keeping the current choice. */
export function fillBranchFilter(select: HTMLSelectElement, o: Overview): void {
  const chosen = select.value;
  const names = o.branches.map((b) => b.name);
  const have = [...select.options].map((opt) => opt.value);
  const want = ['', ...names];
  if (have.length === want.length && have.every((v, i) => v === want[i])) return;
  fill(select, h('option', { value: '' }, 'All branches'), ...names.map((n) => h('option', { value: n }, n)));
  select.value = names.includes(chosen) ? chosen : '';
}
