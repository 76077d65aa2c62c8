// Owns what a damaged partition is: the reasons, the record of one, and the one error every reader and writer of it raises.
import { StrataError } from '../core/errors.js';
import { isoOrMs } from '../core/time.js';
import { isResolution, LAYOUT, type Resolution } from '../model/resolution.js';

/**
 * Why a partition cannot be used. missing: the catalog lists it and there is no file; empty: the
 * file has no bytes (and no WAL beside it); header: not a SQLite file, or a page size SQLite never
 * writes; truncated: the file ends before its last page; corrupt: SQLite's quick_check, or a read,
 * found the file malformed; chunks: it holds fewer chunks than the catalog recorded at its last
 * write; lost: a repair put the file aside and could not rebuild or restore it.
 */
export type DamageReason = 'missing' | 'empty' | 'header' | 'truncated' | 'corrupt' | 'chunks' | 'lost';

/** Every damage reason, for validating rows read back from the catalog. */
export const DAMAGE_REASONS: readonly DamageReason[] = ['missing', 'empty', 'header', 'truncated', 'corrupt', 'chunks', 'lost'];

/** One damaged (or lost) partition. */
export interface PartitionDamage {
  readonly res: Resolution;
  readonly startMs: number;
  readonly reason: DamageReason;
  /** A sentence for people: what was found. */
  readonly detail: string;
}

/** A finding about one file before it is tied to a partition: the reason and the sentence. */
export interface FileFault {
  readonly reason: DamageReason;
  readonly detail: string;
}

/** End of the partition window of `res` starting at `startMs` (exclusive). */
export function partitionEndOf(res: Resolution, startMs: number): number {
  return startMs + LAYOUT[res].partitionWidthMs;
}

/** The range of a partition for messages: `FULL [2026-01-01T00:00:00.000Z, 2026-01-01T06:00:00.000Z)`. */
export function partitionRangeText(res: Resolution, startMs: number): string {
  return `${res} [${isoOrMs(startMs)}, ${isoOrMs(partitionEndOf(res, startMs))})`;
}

/**
 * The error raised by every read or write that needs a damaged partition. Kind 'unavailable' (503),
 * not 'internal': the data exists (or existed) and the condition is an operating one the operator
 * can fix with `strata check --repair`, not a bug; and the HTTP layer shows an unavailable error's
 * message and details, so the client learns which range is affected (an internal error's are hidden).
 */
export function partitionDamagedError(damage: PartitionDamage): StrataError {
  const { res, startMs, reason, detail } = damage;
  const advice = reason === 'lost' ? 'its data could not be restored; `strata check --repair --accept-loss` clears the mark' : 'run `strata check --repair`';
  return new StrataError('STORE_PARTITION_DAMAGED', `the ${partitionRangeText(res, startMs)} partition is unavailable (${reason}: ${detail}); ${advice}`, {
    resolution: res,
    partitionStartMs: startMs,
    partitionEndMs: partitionEndOf(res, startMs),
    reason,
    detail,
  });
}

/** The damage a STORE_PARTITION_DAMAGED error describes (its details), or undefined for any other value. */
export function damageOfError(error: unknown): PartitionDamage | undefined {
  if (!(error instanceof StrataError) || error.code !== 'STORE_PARTITION_DAMAGED') return undefined;
  return damageFromDetails(error.details);
}

/** A damage record from the details of a STORE_PARTITION_DAMAGED error (as a worker returns them), or undefined. */
export function damageFromDetails(details: Readonly<Record<string, unknown>> | undefined): PartitionDamage | undefined {
  const res = details?.['resolution'];
  const startMs = details?.['partitionStartMs'];
  const reason = details?.['reason'];
  const detail = details?.['detail'];
  if (!isResolution(res) || typeof startMs !== 'number' || !DAMAGE_REASONS.includes(reason as DamageReason) || typeof detail !== 'string') return undefined;
  return { res, startMs, reason: reason as DamageReason, detail };
}

/**
 * The fault with paths under `dataDir` shown relative to it: damage details reach /healthz, which
 * answers without a token, and the data directory's place on the server is nobody's business there.
 */
export function relativeFault<T extends FileFault>(fault: T, dataDir: string): T {
  const prefix = dataDir.endsWith('/') ? dataDir : `${dataDir}/`;
  return { ...fault, detail: fault.detail.split(prefix).join('') };
}

/**
 * The SQLite result codes (better-sqlite3 puts them in `code`) that mean the file itself is bad,
 * as opposed to a busy lock, a full disk or a bug: these turn into damage rather than a bare 500.
 */
const FILE_FAULT_CODES = /^SQLITE_(CORRUPT|NOTADB|FORMAT|IOERR_SHORT_READ)/;

/** The fault a thrown SQLite error describes when it means the file is malformed, else undefined. */
export function fileFaultOf(error: unknown): FileFault | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !FILE_FAULT_CODES.test(code)) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return { reason: 'corrupt', detail: `SQLite reports ${code}: ${message}` };
}
