// Owns the store's health: whether the write-ahead log takes writes (append failures, probes of its directory) and the reasons a health answer lists.
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from './core/errors.js';
import { HEALTH_REASONS_MAX, WAL_PROBE_INTERVAL_MS, WAL_PROBE_RETRY_MS } from './core/limits.js';
import { isoOrMs } from './core/time.js';
import type { DamageRow } from './storage/catalog.js';
import { partitionDamagedError } from './storage/partition-damage.js';
import { PRIVATE_FILE_MODE } from './storage/open-database.js';
import type { HealthReason, StoreHealth } from './store-types.js';

/**
 * errno codes of a failed append that mean the log cannot take writes now: permissions, a
 * read-only or full file system, an I/O error, or a path that is not (or no longer) what it should
 * be. Any other failure of an append is a bug and stays an internal error.
 */
const NOT_DURABLE_ERRNOS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'EISDIR', 'ENOTDIR', 'ENOENT', 'EBADF', 'EMFILE', 'ENFILE']);

/** Name of the file a probe writes and deletes in the log directory. */
const PROBE_NAME = '.write-probe';

interface WalFailure {
  readonly errno: string;
  readonly message: string;
  readonly sinceMs: number;
}

/**
 * Whether the write-ahead log can make writes durable. A failed append sets it failing (ingest then
 * answers STORE_NOT_DURABLE, health 'unavailable'); a successful append clears it, and so does a
 * successful probe of the directory (a file written, synced and deleted), so a store nobody writes
 * to recovers once the operator fixes the directory. A probe only sees the directory: if appends
 * fail for another reason (the segment file itself), the next append sets it failing again.
 */
export class WalDurability {
  private readonly dataDir: string;
  private readonly walDir: string;
  private failure: WalFailure | undefined;
  private nextProbeMs = 0;

  /** `walDirName` is the log directory's name under `dataDir`; health shows paths relative to the data directory. */
  constructor(dataDir: string, walDirName: string) {
    this.dataDir = dataDir;
    this.walDir = join(dataDir, walDirName);
  }

  /** Text of an error without the data directory's place on the server (health answers without a token). */
  private relative(text: string): string {
    return text.split(`${this.dataDir}/`).join('');
  }

  /** True while appends are known to fail. */
  get failing(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Records a failed append: the STORE_NOT_DURABLE error to throw in its place, or undefined when
   * the error is no I/O failure (the caller rethrows it as it is).
   */
  appendFailed(error: unknown, nowMs: number): StrataError | undefined {
    const errno = (error as NodeJS.ErrnoException | null)?.code;
    if (typeof errno !== 'string' || !NOT_DURABLE_ERRNOS.has(errno)) return undefined;
    const message = this.relative(error instanceof Error ? error.message : String(error));
    this.failure ??= { errno, message, sinceMs: nowMs };
    this.nextProbeMs = nowMs + WAL_PROBE_RETRY_MS;
    return new StrataError('STORE_NOT_DURABLE', `the write-ahead log cannot be written (${errno}); nothing of this batch was accepted`, { errno });
  }

  /** Records a successful append. */
  appendSucceeded(): void {
    this.failure = undefined;
  }

  /**
   * Probes the directory when one is due (every WAL_PROBE_RETRY_MS while failing, every
   * WAL_PROBE_INTERVAL_MS otherwise, so an idle store notices a directory that went bad). Returns
   * 'recovered' or 'failed' when the state changed, undefined otherwise.
   */
  probe(nowMs: number): 'recovered' | 'failed' | undefined {
    if (nowMs < this.nextProbeMs) return undefined;
    const wasFailing = this.failing;
    this.nextProbeMs = nowMs + WAL_PROBE_INTERVAL_MS;
    try {
      writeProbe(join(this.walDir, PROBE_NAME));
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException | null)?.code ?? 'EIO';
      this.failure ??= { errno, message: this.relative(error instanceof Error ? error.message : String(error)), sinceMs: nowMs };
      this.nextProbeMs = nowMs + WAL_PROBE_RETRY_MS;
      return wasFailing ? undefined : 'failed';
    }
    this.failure = undefined;
    return wasFailing ? 'recovered' : undefined;
  }

  /** The health reason while failing, else undefined. */
  reason(): HealthReason | undefined {
    const failure = this.failure;
    if (failure === undefined) return undefined;
    return {
      code: 'STORE_NOT_DURABLE',
      message: `the write-ahead log cannot be written since ${isoOrMs(failure.sinceMs)} (${failure.errno}); ingest is refused until it can`,
      details: { errno: failure.errno, sinceMs: failure.sinceMs, cause: failure.message },
    };
  }
}

function writeProbe(path: string): void {
  const fd = openSync(path, 'w', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, 'probe');
    // A full disk may only refuse the block at sync time.
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}

/** The health reason of a damaged partition: its error's message and details. */
function damageReason(row: DamageRow): HealthReason {
  const error = partitionDamagedError(row);
  return { code: error.code, message: error.message, details: { ...error.details, detectedMs: row.detectedMs } };
}

/** What a health answer is made of. */
export interface HealthInputs {
  /** The log's failure, when appends fail: that alone makes the store unavailable. */
  readonly wal: HealthReason | undefined;
  /** Damage the write-ahead log's replay found (degraded). */
  readonly walFindings: readonly HealthReason[];
  readonly damages: readonly DamageRow[];
}

/**
 * The health answer: unavailable when writes cannot be made durable, degraded when some data
 * cannot be served, ok otherwise. Lists at most HEALTH_REASONS_MAX reasons; the last then counts
 * the damaged partitions left out (`strata check` lists them all).
 */
export function healthOf(inputs: HealthInputs): StoreHealth {
  const reasons: HealthReason[] = [];
  if (inputs.wal !== undefined) reasons.push(inputs.wal);
  reasons.push(...inputs.walFindings);
  const room = HEALTH_REASONS_MAX - reasons.length;
  const shown = inputs.damages.length <= room ? inputs.damages : inputs.damages.slice(0, Math.max(0, room - 1));
  reasons.push(...shown.map(damageReason));
  const left = inputs.damages.length - shown.length;
  if (left > 0) {
    reasons.push({ code: 'STORE_PARTITION_DAMAGED', message: `${left} more damaged partitions are not listed; strata check lists them all`, details: { omitted: left } });
  }
  if (inputs.wal !== undefined) return { status: 'unavailable', reasons };
  return reasons.length === 0 ? { status: 'ok', reasons } : { status: 'degraded', reasons };
}
