// Owns `strata check`: audits a data directory (partition files against the catalog, file modes, the write-ahead log), prints what it found, and with --repair fixes what can be fixed.
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command, Option } from 'commander';
import { lockDirectory } from '../storage/dir-lock.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/open-database.js';
import { auditPartitions, CATALOG_FILE, type Finding } from '../storage/partition-audit.js';
import { repairPartitions, type RepairAction } from '../storage/partition-repair.js';
import { auditWal, repairWal, type WalRepair } from '../storage/wal-audit.js';
import { dataOption } from './cli-parsers.js';
import { printError } from './print-error.js';

interface CheckOpts {
  data: string;
  repair?: boolean;
  acceptLoss?: boolean;
  json?: boolean;
}

/** What `strata check --json` prints. */
interface CheckReport {
  readonly dataDir: string;
  /** True when a live process holds the directory's lock (the check was read-only beside it). */
  readonly serverRunning: boolean;
  readonly repair: boolean;
  readonly findings: readonly Finding[];
  /** With --repair: what was done, and what is still wrong afterwards. */
  readonly repairs?: readonly RepairAction[];
  readonly remaining?: readonly Finding[];
  /** With --repair: what the write-ahead log repair did. */
  readonly walRepair?: WalRepair;
  /** Problems left: the exit status is 1 when this is above 0. */
  readonly problems: number;
}

/** Exit status for bad usage, as for the other commands' invalid input. */
const EXIT_USAGE = 2;

/** True when the LOCK file names a live process (read only: the check never takes the lock unless repairing). */
function serverRunning(dataDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, 'LOCK'), 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Files and directories under `dataDir` (itself included) that group or others may access: the data
 * files are private (0600, directories 0700) since the identity file holds key hashes; data
 * directories written before that rule have 0644 and 0755. Symbolic links are not followed.
 */
function auditModes(dataDir: string): Finding[] {
  const findings: Finding[] = [];
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const allowed = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((mode & ~allowed) !== 0) {
      const rel = relative(dataDir, path) || '.';
      findings.push({ kind: 'mode', path: rel, mode: mode.toString(8), message: `${rel} has mode ${mode.toString(8)}, wider than ${allowed.toString(8)}` });
    }
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
  };
  visit(dataDir);
  return findings;
}

/** Tightens the modes the audit found too wide; returns how many it changed. */
function tightenModes(dataDir: string, findings: readonly Finding[]): number {
  let changed = 0;
  for (const f of findings) {
    if (f.kind !== 'mode') continue;
    const path = join(dataDir, f.path);
    if (!existsSync(path)) continue;
    chmodSync(path, statSync(path).isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE);
    changed++;
  }
  return changed;
}

/** Everything wrong with `dataDir`; 'recover' when the directory is locked (a repair), so SQLite may recover files a crash left mid-write. */
function audit(dataDir: string, mode: 'read-only' | 'recover'): Finding[] {
  // Modes first, as found: the read-only SQLite connections of the partition audit create the
  // -wal and -shm files of a WAL-mode file when they are missing (with that file's mode).
  const modes = auditModes(dataDir);
  return [...auditPartitions(dataDir, mode), ...modes, ...auditWal(dataDir)];
}

function printHuman(report: CheckReport): void {
  const out: string[] = [];
  out.push(`strata check ${report.dataDir}${report.serverRunning ? ' (a server holds it: checked read-only beside it)' : ''}`);
  const lines = (findings: readonly Finding[]): void => {
    for (const f of findings) out.push(`  ${f.kind.padEnd(18)} ${f.path}: ${f.message}`);
  };
  lines(report.findings);
  if (report.findings.length === 0) out.push('  no problems found');
  if (report.repairs !== undefined) {
    out.push('repairs:');
    for (const r of report.repairs) out.push(`  ${r.kind.padEnd(18)} ${r.path}: ${r.message}${r.quarantinedTo === undefined ? '' : ` (moved to ${r.quarantinedTo})`}`);
    const wal = report.walRepair;
    if (wal !== undefined && wal.spansRemoved > 0) out.push(`  ${'wal'.padEnd(18)} wal: stepped over ${wal.spansRemoved} corrupt span(s); damaged segments copied to wal/damaged/ and rewritten`);
    if (wal !== undefined && wal.copiesMoved > 0) out.push(`  ${'wal'.padEnd(18)} wal/damaged: ${wal.copiesMoved} copies moved under quarantine/ (loss accepted)`);
    if (report.repairs.length === 0 && (wal === undefined || wal.spansRemoved + wal.copiesMoved === 0)) out.push('  nothing to repair');
    out.push(`after repair: ${report.problems} problem(s)`);
    lines(report.remaining ?? []);
  } else if (report.problems > 0) {
    out.push(`${report.problems} problem(s); strata check --repair fixes what can be fixed`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

function runCheck(opts: CheckOpts): void {
  const dataDir = opts.data;
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory() || !existsSync(join(dataDir, CATALOG_FILE))) {
    process.stderr.write(`strata: ${dataDir} is not a Strata data directory (no ${CATALOG_FILE})\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (opts.acceptLoss === true && opts.repair !== true) {
    process.stderr.write('strata: --accept-loss only goes with --repair\n');
    process.exitCode = EXIT_USAGE;
    return;
  }
  let report: CheckReport;
  if (opts.repair === true) {
    // Repairs write: they need the directory to themselves (STORE_LOCKED while a server runs).
    const unlock = lockDirectory(dataDir);
    try {
      const findings = audit(dataDir, 'recover');
      const nowMs = Date.now();
      // The log first: a FULL restore below replays it too, and replay is what rewrites damaged segments.
      const walRepair = repairWal(dataDir, { acceptLoss: opts.acceptLoss === true, nowMs, durability: 'normal' });
      const repairs = repairPartitions(dataDir, findings, { acceptLoss: opts.acceptLoss === true, nowMs, durability: 'normal' });
      tightenModes(dataDir, findings);
      const remaining = audit(dataDir, 'recover');
      report = { dataDir, serverRunning: false, repair: true, findings, repairs, walRepair, remaining, problems: remaining.length };
    } finally {
      unlock();
    }
  } else {
    const findings = audit(dataDir, 'read-only');
    report = { dataDir, serverRunning: serverRunning(dataDir), repair: false, findings, problems: findings.length };
  }
  if (opts.json === true) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printHuman(report);
  process.exitCode = report.problems > 0 ? 1 : 0;
}

/** The `check` command. */
export function checkCommand(): Command {
  return new Command('check')
    .description(
      'verify a data directory: partition files against the catalog (header, quick_check, chunk counts), files the catalog does not list, ' +
        'file modes, the write-ahead log; exits 0 when clean, 1 when problems are found, 2 on bad usage. Read-only (safe beside a running server) unless --repair',
    )
    .addOption(dataOption())
    .option('--repair', 'fix what can be fixed (the server must be stopped): put damaged files aside under quarantine/, restore FULL partitions from the write-ahead log, mark rollups to be rebuilt, record what is lost, tighten modes')
    .addOption(new Option('--accept-loss', 'with --repair: give up on partitions that can be neither restored nor rebuilt, instead of keeping them marked lost'))
    .option('--json', 'print the report as JSON')
    .exitOverride((error) => {
      // Help and version exit 0; a usage error (unknown option, missing value) exits 2, like bad input elsewhere.
      process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
    })
    .action((opts: CheckOpts) => {
      try {
        runCheck(opts);
      } catch (error) {
        printError(error);
      }
    });
}
