// Owns the entity page's alarm changelog: a timeline (newest first) of state changes, paged by time window with Newer/Older, reloaded on refresh while it shows the newest page.
import { stateBadge } from './alarm-badge.js';
import { isAbortError, type ConsoleSession } from './api-request.js';
import { CHANGELOG_WINDOW_MS, newestWindow, timelineRows, type ChangelogFetcher, type ChangelogWindow, type LatestStateLike, type TimelineRow } from './changelog-window.js';
import { el, replaceChildren } from './dom.js';
import { alarmChangelog, type ChangelogEntryView } from './monitoring-api.js';
import { formatTime } from './time-format.js';

/** One timeline item: time, alarm, zone, previous → new state, and the status message when known. */
export function timelineItem(row: TimelineRow): HTMLLIElement {
  return el(
    'li',
    { 'data-changelog-id': row.id, 'data-state': row.state, class: `alarm-state-line-${row.state.toLowerCase()}` },
    el('time', { class: 'mon-time', datetime: new Date(row.timestampMs).toISOString() }, formatTime(row.timestampMs)),
    el('strong', { title: row.alarmId }, row.alarmLabel),
    el('span', { class: 'mon-muted' }, ` in ${row.zoneId ?? 'agent'} `),
    stateBadge(row.previous),
    el('span', { class: 'mon-arrow', 'aria-label': 'changed to' }, '→'),
    stateBadge(row.state),
    row.status !== null && row.status !== '' ? el('span', { class: 'mon-status-text' }, row.status) : null,
  );
}

/** What the timeline needs from its page on each refresh: alarm labels and latest states (for status messages). */
export interface TimelineContext {
  readonly alarmLabels: ReadonlyMap<string, string | null>;
  readonly latest: readonly LatestStateLike[];
}

/** The changelog section of an entity page. */
export interface ChangelogTimeline {
  readonly element: HTMLElement;
  /**
   * Reloads the newest page when it is shown (else only relabels); while a load is still running it
   * only takes the new context (that load draws with it), so a slow server is never cut off by the
   * refresh ticks. Rejects with the API's error.
   */
  refresh(context: TimelineContext): Promise<void>;
  destroy(): void;
}

/** The section's elements. */
interface TimelineView {
  readonly element: HTMLElement;
  readonly list: HTMLOListElement;
  readonly caption: HTMLElement;
  readonly newer: HTMLButtonElement;
  readonly older: HTMLButtonElement;
}

function renderTimelineView(): TimelineView {
  const list = el('ol', { 'data-testid': 'changelog', class: 'mon-timeline', 'aria-label': 'Alarm changelog, newest first' });
  const caption = el('p', { class: 'mon-status' });
  const newer = el('button', { type: 'button', disabled: true }, 'Newer');
  const older = el('button', { type: 'button', disabled: true }, 'Older');
  const element = el('section', { class: 'mon-section', 'aria-label': 'Alarm changelog' }, el('h2', {}, 'Alarm changelog'), caption, list, el('div', { class: 'mon-pager' }, newer, older));
  return { element, list, caption, newer, older };
}

/** Draws a loaded window: its rows, the caption, and Newer (when `newerPages` > 0) and Older (unless the window starts at the epoch). */
function drawWindow(view: TimelineView, shown: ChangelogWindow<ChangelogEntryView>, context: TimelineContext, newerPages: number): void {
  const rows = timelineRows(shown.entries, context.alarmLabels, context.latest);
  if (rows.length === 0) replaceChildren(view.list, el('li', { class: 'mon-muted' }, 'No alarm state changes in this window.'));
  else replaceChildren(view.list, ...rows.map(timelineItem));
  const note = shown.truncated ? ` More than ${shown.entries.length} changes in this window: the oldest ${shown.entries.length} are shown.` : '';
  view.caption.textContent = `Changes from ${formatTime(shown.fromMs)} to ${formatTime(shown.toMs)}, newest first.${note}`;
  view.newer.disabled = newerPages === 0;
  view.older.disabled = shown.fromMs <= 0;
}

/** The changelog fetcher of one entity, for newestWindow. */
function entityChangelog(session: ConsoleSession, entityId: string): ChangelogFetcher<ChangelogEntryView> {
  return async (window, limit, signal) => {
    const page = await alarmChangelog(session, { entityId, fromMs: window.fromMs, toMs: window.toMs, limit }, signal);
    return { values: page.values, nextMarker: page.metadata.next_marker };
  };
}

/** The timeline of `entityId`'s alarm changes; errors of Newer/Older go to `onError`. */
export function createChangelogTimeline(session: ConsoleSession, entityId: string, onError: (error: unknown) => void, now: () => number = Date.now): ChangelogTimeline {
  const view = renderTimelineView();
  const fetchPage = entityChangelog(session, entityId);
  /** Ends of the newer pages, the nearest first: empty while the newest page is shown. Changed only when a load succeeded. */
  const newerEnds: number[] = [];
  let shown: ChangelogWindow<ChangelogEntryView> | undefined;
  let context: TimelineContext = { alarmLabels: new Map(), latest: [] };
  /** The load in flight, if any. */
  let running: AbortController | undefined;

  const draw = (): void => {
    if (shown !== undefined) drawWindow(view, shown, context, newerEnds.length);
  };

  /** Loads the page ending at `toMs` (a newer load aborts it); `onLoaded` runs only on success, before the page is drawn; a failure draws the old page again and rejects. */
  const load = async (toMs: number, onLoaded: () => void): Promise<void> => {
    running?.abort();
    const mine = new AbortController();
    running = mine;
    try {
      const loaded = await newestWindow(fetchPage, toMs, Math.min(CHANGELOG_WINDOW_MS, toMs), mine.signal);
      if (mine.signal.aborted) return;
      onLoaded();
      shown = loaded;
    } finally {
      if (running === mine) {
        running = undefined;
        draw();
      }
    }
  };

  const navigate = (toMs: number, onLoaded: () => void): void => {
    view.newer.disabled = true;
    view.older.disabled = true;
    load(toMs, onLoaded).catch((error: unknown) => {
      if (!isAbortError(error)) onError(error);
    });
  };
  view.older.addEventListener('click', () => {
    const current = shown;
    if (current !== undefined) navigate(current.fromMs, () => newerEnds.unshift(current.toMs));
  });
  view.newer.addEventListener('click', () => {
    const end = newerEnds[0];
    if (end !== undefined) navigate(newerEnds.length === 1 ? now() : end, () => newerEnds.shift());
  });

  return {
    element: view.element,
    async refresh(next: TimelineContext): Promise<void> {
      context = next;
      if (running !== undefined) return;
      if (newerEnds.length === 0) await load(now(), () => undefined);
      else draw();
    },
    destroy(): void {
      const stopping = running;
      running = undefined;
      stopping?.abort();
    },
  };
}
