/**
 * The search cache's folder: which file holds which part of which shard, and the manifest
 * listing the shards and their parts' sizes. The manifest is an untrusted cache like the
 * rest: anything malformed in it makes it count as absent, and every shard is fed again.
 */
import { closeSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../log/crc32.js';
import { openFresh } from '../store/text-file.js';
import { MAX_PART_DOCS } from './search-part.js';

/** 2: parts are inverted indexes of our own (search-part.ts); an index of format 1 is rebuilt. */
export const MANIFEST_FORMAT = 2;
export const MANIFEST = 'manifest.json';
export const MAX_SHARD_NAME = 300;

/** One part file as the manifest knows it: its documents and its size in bytes. */
export interface PartInfo {
  docs: number;
  bytes: number;
}

const hex = (n: number) => n.toString(16).padStart(8, '0');
const stems = new Map<string, string>();

/**
 * The file of a part: readable, unique (a 64-bit hash of the name: two CRC-32s, which cost no
 * allocation where a cryptographic hash per shard would), and nothing a shard name could
 * steer elsewhere.
 */
export function partFile(shard: string, part: number): string {
  let stem = stems.get(shard);
  if (stem === undefined) {
    const bytes = Buffer.from(shard, 'utf8');
    stem = `s-${shard.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60)}-${hex(crc32(bytes))}${hex(crc32(bytes, 0x9e3779b9))}`;
    if (stems.size < 100_000) stems.set(shard, stem);
  }
  return `${stem}-${part}.part`;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The manifest at `path` as shard → parts, or null when it is missing or anything in it is off. */
export function readManifest(path: string): Map<string, PartInfo[]> | null {
  try {
    const m: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof m !== 'object' || m === null || (m as { format?: unknown }).format !== MANIFEST_FORMAT) return null;
    const shards = (m as { shards?: unknown }).shards;
    if (!Array.isArray(shards)) return null;
    const out = new Map<string, PartInfo[]>();
    for (const s of shards) {
      if (!Array.isArray(s) || s.length !== 2) return null;
      const [name, parts] = s as unknown[];
      if (typeof name !== 'string' || !name || name.length > MAX_SHARD_NAME || out.has(name) || !Array.isArray(parts) || !parts.length) return null;
      const list: PartInfo[] = [];
      for (const p of parts) {
        if (!Array.isArray(p) || p.length !== 2 || !isCount(p[0]) || p[0] > MAX_PART_DOCS || !isCount(p[1]) || p[1] === 0) return null;
        list.push({ docs: p[0], bytes: p[1] });
      }
      out.set(name, list);
    }
    return out;
  } catch {
    return null;
  }
}

export function writeManifest(path: string, shards: ReadonlyMap<string, readonly PartInfo[]>): void {
  const list = [...shards].map(([name, parts]) => [name, parts.map((p) => [p.docs, p.bytes])]);
  writeAtomic(path, JSON.stringify({ format: MANIFEST_FORMAT, shards: list }));
}

let counter = 0;

/**
 * Write a file through a temporary one and a rename, so a reader never sees half of it. The
 * temporary file is created new (openFresh), and the rename replaces a link at `path` rather
 * than writing through it: nothing here is written where a link leads.
 */
export function writeAtomic(path: string, bytes: Buffer | string): void {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  const fd = openFresh(tmp);
  try {
    writeFileSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Remove part files (and leftovers of interrupted writes) that `keep` does not name. */
export function removeStrays(dir: string, keep: ReadonlySet<string>): void {
  for (const f of readdirSync(dir)) {
    if (keep.has(f) || !/^s-.*\.(json|part)(\.tmp-.*)?$|^manifest\.json\.tmp-/.test(f)) continue;
    try {
      unlinkSync(join(dir, f));
    } catch {
      // Removed by someone else meanwhile.
    }
  }
}
