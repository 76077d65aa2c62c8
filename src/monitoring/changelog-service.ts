// Owns reading alarm changelogs as a time series (default window: the last 7 days) and appending to them.
import type { Clock } from '../core/clock.js';
import type { ChangelogRow } from './changelog-store.js';
import { newUuid } from './ids.js';
import { fieldError } from './monitoring-errors.js';
import { CHANGELOG_WINDOW_MS_DEFAULT } from './monitoring-limits.js';
import type { MonitoringStore } from './monitoring-store.js';
import { pageOf, type Page, type PageRequest } from './paging.js';

/** A changelog read: an optional window and entity, and the page. */
export interface ChangelogRequest extends PageRequest {
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly entityId?: string;
}

/** Alarm changelogs of a tenant. */
export class ChangelogService {
  constructor(
    private readonly store: MonitoringStore,
    private readonly clock: Clock,
  ) {}

  /** The window a request covers: `to` defaults to now, `from` to 7 days before `to`. */
  window(request: ChangelogRequest): { fromMs: number; toMs: number } {
    const toMs = request.toMs ?? this.clock.now();
    const fromMs = request.fromMs ?? toMs - CHANGELOG_WINDOW_MS_DEFAULT;
    if (fromMs >= toMs) throw fieldError('from', "must be before 'to'");
    return { fromMs, toMs };
  }

  /** A page of entries, oldest first; a marker naming no entry of the tenant yields an empty page. */
  list(tenant: string, request: ChangelogRequest): Page<ChangelogRow> {
    const { fromMs, toMs } = this.window(request);
    let after: { timestampMs: number; id: string } | undefined;
    if (request.marker !== undefined) {
      const start = this.store.changelogs.entry(tenant, request.marker);
      if (start === undefined) return { values: [], nextMarker: null };
      after = { timestampMs: start.timestampMs, id: start.id };
    }
    const rows = this.store.changelogs.page(tenant, {
      fromMs,
      toMs,
      limit: request.limit + 1,
      ...(request.entityId !== undefined ? { entityId: request.entityId } : {}),
      ...(after !== undefined ? { after } : {}),
    });
    return pageOf(rows, request.limit, (row) => row.id);
  }

  /** Appends a state change (the alarm evaluator's call); returns the entry id. */
  append(tenant: string, entry: Omit<ChangelogRow, 'id'>): string {
    const id = newUuid();
    this.store.changelogs.append(tenant, { ...entry, id });
    return id;
  }
}
