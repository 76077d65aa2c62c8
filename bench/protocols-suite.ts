// Owns `npm run bench -- protocols`: runs the protocols bench in its own process, prints the table, writes bench/results/protocols.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChild } from './child-io.js';
import { createProgress } from './progress.js';
import type { ProtocolsBenchResult } from './protocols.js';
import { rate, renderTable } from './report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, '..', '..', 'bench', 'results', 'protocols.json');
/** The suite's name on the command line. */
export const PROTOCOLS_SUITE = 'protocols';

/** The table: each protocol's rate, its ratio to the native msgpack path of the same run, and its bytes per point on the wire. */
export function protocolsTable(result: ProtocolsBenchResult): string {
  const msgpack = result.ingest.find((r) => r.format === 'msgpack')?.pointsPerSecond ?? NaN;
  const rows = result.ingest.map((r) => [
    r.format,
    `${rate(r.pointsPerSecond)} (${r.pointsPerSecondRuns.map(rate).join(', ')})`,
    `${(r.pointsPerSecond / msgpack).toFixed(2)}×`,
    (r.bodyBytes / r.points).toFixed(1),
  ]);
  return [`Protocols bench (bench/protocols.ts): ${result.description}`, renderTable(['format', 'points/s, median (runs)', 'of msgpack', 'wire B/pt'], rows)].join('\n');
}

/** Runs the suite and records it with the machine's description. */
export async function runProtocolsSuite(machine: Record<string, unknown>): Promise<void> {
  const progress = createProgress(1);
  progress.step('protocols: msgpack, Prometheus remote write, OTLP protobuf and JSON, Graphite');
  const result = (await runChild(join(HERE, 'protocols.js'), [String(Date.now())], (m) => progress.phase(m))) as ProtocolsBenchResult;
  progress.stop();
  console.log(protocolsTable(result));
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), machine, ...result }, null, 2)}\n`);
}
