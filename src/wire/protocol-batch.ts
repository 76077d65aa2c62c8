// Owns what a protocol decoder yields: the points for the store, and the points it refused or skipped, counted.
import type { ErrorCode } from '../core/errors.js';
import { PointColumnsBuilder } from '../model/point-columns.js';
import { PROTOCOL_REJECTION_MESSAGES_MAX } from './protocol-limits.js';

/** Why some points of a request were refused before the store (or by it). */
export interface ProtocolRejection {
  /** The Strata metric name of the series, or the protocol's own name when none could be formed. */
  readonly metric: string;
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * The decoded points of one protocol request, of one tenant. Rejected points were refused (a bad
 * series, a bad value); skipped points are non-finite values Strata does not store by design
 * (Prometheus staleness markers, NaN and infinities): they are counted, not reported as errors.
 */
export class ProtocolBatch {
  readonly columns = new PointColumnsBuilder();
  /** The first PROTOCOL_REJECTION_MESSAGES_MAX reasons. */
  readonly rejections: ProtocolRejection[] = [];
  rejectedPoints = 0;
  skippedPoints = 0;

  constructor(readonly tenant: string) {}

  /** Records `points` refused points of `metric`. */
  reject(metric: string, code: ErrorCode, message: string, points = 1): void {
    this.rejectedPoints += points;
    if (this.rejections.length < PROTOCOL_REJECTION_MESSAGES_MAX) this.rejections.push({ metric, code, message });
  }

  /** Appends one numeric point, or counts it skipped when the value is not finite. */
  addNumber(metric: string, timestampMs: number, value: number, unit?: string): void {
    if (!Number.isFinite(value)) {
      this.skippedPoints++;
      return;
    }
    const i = this.columns.add(this.tenant, metric, unit);
    this.columns.timestampsMs[i] = timestampMs;
    this.columns.values[i] = value;
  }
}
