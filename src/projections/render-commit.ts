/**
 * commit.md: one entry per commit, in the GCC skill's shape. Append-only, so the
 * incremental path appends one rendered entry and replay concatenates them all.
 */
import type { EventOf } from '../events/types.js';
import { block, oneLine } from '../log/prose.js';

export function commitHeader(branch: string): string {
  return `# Commit History\n\n> Branch \`${oneLine(branch, 120)}\`. Generated from log.md by gctx: edits here are replaced on the next replay.\n\n`;
}

export function renderCommit(e: EventOf<'commit.recorded'>): string {
  const d = e.data;
  const files = d.files.length ? d.files.map((f) => `${f.path} (+${f.added} -${f.removed})`).join(', ') : '(none recorded)';
  const lines = [
    `## [${d.label}] ${oneLine(d.title, 160)}`,
    `- **Date**: ${e.at}`,
    `- **Branch**: ${oneLine(e.branch, 120)}`,
    `- **Commit**: ${d.id}`,
    `- **Branch Purpose**: ${block(d.purpose, 2000)}`,
    `- **Previous Progress**: ${block(d.previous, 2000)}`,
    `- **This Commit's Contribution**: ${block(d.contribution, 20000)}`,
  ];
  if (d.merge) {
    lines.push(
      `- **Merged From**: ${oneLine(d.merge.from, 120)}`,
      `- **What Was Tried**: ${block(d.merge.tried, 4000)}`,
      `- **What Was Learned**: ${block(d.merge.learned, 4000)}`,
      `- **What Is Integrated**: ${block(d.merge.integrated, 4000)}`,
    );
  }
  lines.push(`- **Files touched**: ${block(files, 4000)}`);
  return `${lines.join('\n')}\n\n`;
}
