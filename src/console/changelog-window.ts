// Owns paging the alarm changelog newest first over an API that pages oldest first (each timeline page is a time window narrowed until it fits one request) and the rows the timeline shows (pure, no DOM).
import { parseAlarmState, type ConsoleAlarmState } from './alarm-state.js';
import { WEEK_MS } from './time-units.js';

/** Entries one request asks for, and so the most one timeline page shows. */
export const CHANGELOG_PAGE_SIZE = 100;
/** The span a timeline page starts from before narrowing: the API's own default window. */
export const CHANGELOG_WINDOW_MS = WEEK_MS;
/** Most halvings of a window (7 days halved 16 times is about 9 s), so a page costs at most 17 requests. */
export const CHANGELOG_NARROWINGS_MAX = 16;

/** What a changelog entry needs here: an id and its time. */
export interface TimedEntry {
  readonly id: string;
  readonly timestamp: number;
}

/** A half-open window [fromMs, toMs) of integer ms. */
export interface TimeWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Reads the first page (oldest first, at most `limit` entries) of a window and whether more follow. */
export type ChangelogFetcher<T> = (window: TimeWindow, limit: number, signal: AbortSignal) => Promise<{ readonly values: readonly T[]; readonly nextMarker: string | null }>;

/** One timeline page: its window, its entries newest first, and whether the window held more than were read. */
export interface ChangelogWindow<T> extends TimeWindow {
  readonly entries: readonly T[];
  /** True when even the narrowest window held more than `limit` entries: the oldest `limit` of it are shown. */
  readonly truncated: boolean;
  /** Requests the page took. */
  readonly requests: number;
}

/** The bounds of a window search. */
export interface WindowOptions {
  readonly limit?: number;
  readonly narrowingsMax?: number;
}

/** Entries newest first: by time, then by id (the reverse of the API's order). */
export function newestFirst<T extends TimedEntry>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * The newest timeline page ending at `toMs`: asks for [toMs − spanMs, toMs); while the window holds
 * more than one request's worth, halves it (keeping its end) and asks again, at most
 * `narrowingsMax` times. Every entry of the returned window is returned unless `truncated`.
 */
export async function newestWindow<T extends TimedEntry>(
  fetchPage: ChangelogFetcher<T>,
  toMs: number,
  spanMs: number,
  signal: AbortSignal,
  options: WindowOptions = {},
): Promise<ChangelogWindow<T>> {
  const limit = options.limit ?? CHANGELOG_PAGE_SIZE;
  const narrowingsMax = options.narrowingsMax ?? CHANGELOG_NARROWINGS_MAX;
  let span = Math.max(1, Math.floor(spanMs));
  for (let requests = 1; ; requests++) {
    const window = { fromMs: toMs - span, toMs };
    const page = await fetchPage(window, limit, signal);
    const full = page.nextMarker !== null;
    if (!full || requests > narrowingsMax || span === 1) {
      return { ...window, entries: newestFirst(page.values.slice(0, limit)), truncated: full, requests };
    }
    span = Math.ceil(span / 2);
  }
}

/** A changelog entry as the API sends it (the fields the timeline shows). */
export interface ChangelogEntryLike extends TimedEntry {
  readonly alarm_id: string;
  readonly state: string;
  readonly previous_state: string | null;
  readonly analyzed_by_monitoring_zone_id: string | null;
}

/** A latest alarm state (it carries the criteria's message, which changelog entries do not). */
export interface LatestStateLike {
  readonly alarm_id: string;
  readonly timestamp: number;
  readonly status: string;
  readonly analyzed_by_monitoring_zone_id: string | null;
}

/** One row of the timeline. */
export interface TimelineRow {
  readonly id: string;
  readonly timestampMs: number;
  readonly alarmId: string;
  /** The alarm's label, or its id when it has none (or is deleted). */
  readonly alarmLabel: string;
  /** The zone that decided the change; null for an agent check. */
  readonly zoneId: string | null;
  readonly previous: ConsoleAlarmState;
  readonly state: ConsoleAlarmState;
  /** The criteria's message, known only for the change that is an alarm's latest state. */
  readonly status: string | null;
}

/**
 * The timeline rows of entries, in the entries' order: labels from `alarmLabels`, and the status
 * message from the latest state recorded for the same alarm, zone and time (the changelog API
 * does not carry messages, so older changes show none). A missing previous state is UNKNOWN.
 */
export function timelineRows(entries: readonly ChangelogEntryLike[], alarmLabels: ReadonlyMap<string, string | null>, latest: readonly LatestStateLike[]): TimelineRow[] {
  const statusKey = (alarmId: string, zoneId: string | null, timestamp: number): string => JSON.stringify([alarmId, zoneId, timestamp]);
  const statuses = new Map(latest.map((row) => [statusKey(row.alarm_id, row.analyzed_by_monitoring_zone_id, row.timestamp), row.status]));
  return entries.map((entry) => ({
    id: entry.id,
    timestampMs: entry.timestamp,
    alarmId: entry.alarm_id,
    alarmLabel: alarmLabels.get(entry.alarm_id) ?? entry.alarm_id,
    zoneId: entry.analyzed_by_monitoring_zone_id,
    previous: parseAlarmState(entry.previous_state),
    state: parseAlarmState(entry.state),
    status: statuses.get(statusKey(entry.alarm_id, entry.analyzed_by_monitoring_zone_id, entry.timestamp)) ?? null,
  }));
}
