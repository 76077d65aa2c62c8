// Owns the rule that picks the next head window to seal when maintenance or a full head asks for one.
import { HEAD_POINTS_SEAL_EARLY, SEAL_QUIET_MS } from '../core/limits.js';
import type { Head } from './head.js';

/** What the seal-picking rule reads besides the head. */
export interface SealPickContext {
  readonly nowMs: number;
  /** How long after its end a window still takes late writes before it may seal. */
  readonly graceMs: number;
  /** True when the FULL partition of the window starting at `windowStartMs` is damaged. */
  readonly fullDamaged: (windowStartMs: number) => boolean;
}

/**
 * The next window to seal: the oldest whose grace has passed and that has been quiet, else the
 * oldest while the head is over the early-seal line. Windows of damaged partitions stay in the head.
 */
export function nextWindowToSeal(head: Head, { nowMs, graceMs, fullDamaged }: SealPickContext): number | undefined {
  let oldest: number | undefined;
  for (const start of head.starts()) {
    const window = head.windows.get(start);
    if (window === undefined || fullDamaged(start)) continue;
    if (window.endMs + graceMs <= nowMs && nowMs - window.lastWriteMs >= SEAL_QUIET_MS) return start;
    oldest ??= start;
  }
  return head.points > HEAD_POINTS_SEAL_EARLY ? oldest : undefined;
}
