// Owns `strata ingest`: loads points from files into a data directory, with progress and a summary.
import { statSync } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import { Command } from 'commander';
import { dataOption } from './cli-parsers.js';
import type { Point } from '../model/sample.js';
import { openStore } from '../store.js';
import type { Store } from '../store-types.js';
import { printError } from './print-error.js';
import { readPoints } from './point-sources.js';

/** Points per write; a tenth of the batch limit keeps memory flat and progress smooth. */
const CLI_BATCH_POINTS = 10_000;
/** How many rejection reasons the summary shows. */
const REASONS_SHOWN = 10;

interface Summary {
  accepted: number;
  rejected: number;
  reasons: Map<string, { count: number; example: string }>;
}

function note(summary: Summary, code: string, message: string): void {
  summary.rejected++;
  const r = summary.reasons.get(code);
  if (r === undefined) summary.reasons.set(code, { count: 1, example: message });
  else r.count++;
}

async function writeBatch(store: Store, batch: Point[], summary: Summary): Promise<void> {
  if (batch.length === 0) return;
  const result = await store.write(batch);
  summary.accepted += result.accepted;
  for (const r of result.rejected) note(summary, r.code, r.message);
  batch.length = 0;
}

async function ingestFiles(store: Store, files: string[], tenant: string | undefined, summary: Summary): Promise<void> {
  const total = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'ingest [{bar}] {percentage}% | {value}/{total} bytes | {accepted} points' }, Presets.shades_classic) : undefined;
  bar?.start(total, 0, { accepted: 0 });
  let done = 0;
  const batch: Point[] = [];
  for (const file of files) {
    if (bar === undefined) process.stderr.write(`ingest: reading ${file}\n`);
    for await (const item of readPoints(file, tenant, (n) => (done += n))) {
      if ('unreadable' in item) note(summary, 'UNREADABLE', item.unreadable);
      else batch.push(item.point);
      if (batch.length >= CLI_BATCH_POINTS) {
        await writeBatch(store, batch, summary);
        bar?.update(Math.min(done, total), { accepted: summary.accepted });
      }
    }
  }
  await writeBatch(store, batch, summary);
  bar?.update(total, { accepted: summary.accepted });
  bar?.stop();
}

/** The `ingest` command. */
export function ingestCommand(): Command {
  return new Command('ingest')
    .description('load points from files: JSON lines of points, a JSON array (points or Blueflood metrics), or msgpack')
    .addOption(dataOption())
    .option('--tenant <id>', 'tenant for entries without one (Blueflood metrics have none)')
    .argument('<files...>', 'files to load')
    .action(async (files: string[], opts: { data: string; tenant?: string }) => {
      const summary: Summary = { accepted: 0, rejected: 0, reasons: new Map() };
      try {
        const store = await openStore({ dir: opts.data, background: false });
        try {
          await ingestFiles(store, files, opts.tenant, summary);
          // Seal and roll up now, so the data is queryable at every resolution when we exit.
          await store.flush();
        } finally {
          await store.close();
        }
      } catch (error) {
        printError(error);
      }
      process.stdout.write(`accepted ${summary.accepted} points, rejected ${summary.rejected}\n`);
      for (const [code, r] of [...summary.reasons].slice(0, REASONS_SHOWN)) process.stdout.write(`  ${code} x${r.count}: ${r.example}\n`);
      if (summary.rejected > 0 && process.exitCode === undefined) process.exitCode = summary.accepted > 0 ? 0 : 2;
    });
}
