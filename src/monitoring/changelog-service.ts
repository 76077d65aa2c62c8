// Owns reading alarm changelogs as a time series (default window: the last 7 days) and appending to them.
import type { Clock } from '../core/clock.js';
import type { ChangelogRow } from './changelog-store.js';
import { newUuid } from './ids.js';
import { CHANGELOG_WINDOW_MS_DEFAULT } from './monitoring-limits.js';
import type { MonitoringStore } from './monitoring-store.js';
import type { Page } from './paging.js';
import { resolveWindow, seriesPage, type TimeSeriesRequest, type TimeWindow } from './time-series.js';

/** A changelog read: an optional window and entity, and the page. */
export interface ChangelogRequest extends TimeSeriesRequest {
  readonly entityId?: string;
}

/** Alarm changelogs of a tenant. */
export class ChangelogService {
  constructor(
    private readonly store: MonitoringStore,
    private readonly clock: Clock,
  ) {}

  /**
   * The window a request covers, by the rule of every time series (resolveWindow): `to` defaults
   * to just after now (an entry of the request's own millisecond is in it), `from` to 7 days
   * before `to`; MONITORING_FIELD_INVALID naming `from` when it is not before `to`.
   */
  window(request: Pick<ChangelogRequest, 'fromMs' | 'toMs'>): TimeWindow {
    return resolveWindow(request, this.clock.now(), CHANGELOG_WINDOW_MS_DEFAULT);
  }

  /** A page of entries, oldest first; a marker naming no entry of the tenant yields an empty page. */
  list(tenant: string, request: ChangelogRequest): Page<ChangelogRow> {
    const entityId = request.entityId;
    return seriesPage(
      request,
      this.window(request),
      (id) => this.store.changelogs.entry(tenant, id),
      (query) => this.store.changelogs.page(tenant, entityId === undefined ? query : { ...query, entityId }),
    );
  }

  /** Appends a state change (the alarm evaluator's call); returns the entry id. */
  append(tenant: string, entry: Omit<ChangelogRow, 'id'>): string {
    const id = newUuid();
    this.store.changelogs.append(tenant, { ...entry, id });
    return id;
  }
}
