// @vitest-environment happy-dom
// Tests the changelog timeline's DOM over a fake server: paging with Newer/Older, a failed Older click, and refreshes while a load is in flight.
// Each "Guard (mutation N)" comment names the change to src/console that makes the test fail; each was checked on a patched copy of src/console (run through a vitest alias), never on src/ itself.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsoleApiError } from '../../../src/console/api-request.js';
import { CHANGELOG_WINDOW_MS } from '../../../src/console/changelog-window.js';
import { createChangelogTimeline, type ChangelogTimeline, type TimelineContext } from '../../../src/console/changelog-timeline.js';
import { apiError, fakeServer, flush, gate, ok, page, SESSION, type FakeCall, type FakeReply } from './fake-server.js';

const NOW = Date.UTC(2024, 5, 1, 12, 0, 0);
const CHANGELOG = '/changelogs/alarms';

function entry(id: string, timestamp: number, state = 'CRITICAL'): Record<string, unknown> {
  return { id, timestamp, entity_id: 'en1', alarm_id: 'al1', check_id: 'ch1', state, previous_state: 'OK', analyzed_by_monitoring_zone_id: 'mzord' };
}

const CONTEXT: TimelineContext = { alarmLabels: new Map([['al1', 'Disk full']]), latest: [] };

/** The [from, to) a changelog call asked for. */
function windowOf(call: FakeCall | undefined): [number, number] {
  return [Number(call?.query.get('from')), Number(call?.query.get('to'))];
}

interface Timeline {
  readonly timeline: ChangelogTimeline;
  readonly errors: unknown[];
  readonly newer: HTMLButtonElement;
  readonly older: HTMLButtonElement;
  ids(): (string | undefined)[];
}

function createTimeline(): Timeline {
  const errors: unknown[] = [];
  const timeline = createChangelogTimeline(SESSION, 'en1', (error) => errors.push(error), () => NOW);
  document.body.replaceChildren(timeline.element);
  const [newer, older] = [...timeline.element.querySelectorAll('button')] as [HTMLButtonElement, HTMLButtonElement];
  expect([newer.textContent, older.textContent]).toEqual(['Newer', 'Older']);
  return {
    timeline,
    errors,
    newer,
    older,
    ids: () => [...timeline.element.querySelectorAll<HTMLElement>('li[data-changelog-id]')].map((li) => li.dataset.changelogId),
  };
}

let destroy: (() => void) | undefined;

beforeEach(() => {
  destroy = undefined;
});

afterEach(() => {
  destroy?.();
  vi.unstubAllGlobals();
});

describe('changelog timeline DOM', () => {
  it('pages back with Older and forward with Newer; a refresh on an older page only relabels', async () => {
    const server = fakeServer((call) => {
      const [, to] = windowOf(call);
      return ok(page(to === NOW ? [entry('new', NOW - 1_000)] : [entry('old', to - 1_000, 'OK')]));
    });
    const t = createTimeline();
    destroy = () => t.timeline.destroy();
    await t.timeline.refresh(CONTEXT);
    expect(t.ids()).toEqual(['new']);
    expect(t.timeline.element.textContent).toContain('Disk full');
    expect([t.newer.disabled, t.older.disabled]).toEqual([true, false]);

    t.older.click();
    await flush();
    expect(windowOf(server.calls[1])).toEqual([NOW - 2 * CHANGELOG_WINDOW_MS, NOW - CHANGELOG_WINDOW_MS]);
    expect(t.ids()).toEqual(['old']);
    expect(t.newer.disabled).toBe(false);

    await t.timeline.refresh({ alarmLabels: new Map([['al1', 'Disk nearly full']]), latest: [] });
    expect(server.calls).toHaveLength(2);
    expect(t.timeline.element.textContent).toContain('Disk nearly full');

    t.newer.click();
    await flush();
    expect(windowOf(server.calls[2])).toEqual([NOW - CHANGELOG_WINDOW_MS, NOW]);
    expect(t.ids()).toEqual(['new']);
    expect(t.newer.disabled).toBe(true);
  });

  it('C5: a failed Older click keeps the newest page refreshing and Newer disabled', async () => {
    const server = fakeServer((call) => {
      const [, to] = windowOf(call);
      return to === NOW ? ok(page([entry('new', NOW - 1_000)])) : apiError(500, 'Changelog store unavailable.');
    });
    const t = createTimeline();
    destroy = () => t.timeline.destroy();
    await t.timeline.refresh(CONTEXT);

    t.older.click();
    expect([t.newer.disabled, t.older.disabled]).toEqual([true, true]);
    await flush();
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toBeInstanceOf(ConsoleApiError);
    expect((t.errors[0] as ConsoleApiError).message).toBe('Changelog store unavailable.');
    // The newest page is still shown, Older may be tried again.
    expect(t.ids()).toEqual(['new']);
    // Guard (mutation 6): remembering the page left (newerEnds.unshift) before the load succeeded enables Newer here...
    expect([t.newer.disabled, t.older.disabled]).toEqual([true, false]);

    // ...and makes the refresh only redraw instead of reloading the newest page.
    await t.timeline.refresh(CONTEXT);
    expect(server.calls).toHaveLength(3);
    expect(windowOf(server.calls[2])).toEqual([NOW - CHANGELOG_WINDOW_MS, NOW]);
  });

  it('C4: a refresh during a slow load neither aborts it nor starts another; the load draws with the newest labels', async () => {
    const slow = gate<FakeReply>();
    const server = fakeServer(() => slow.promise);
    const t = createTimeline();
    destroy = () => t.timeline.destroy();
    const outcome = (promise: Promise<void>): Promise<unknown> => promise.then(() => 'done', (error: unknown) => error);
    const first = outcome(t.timeline.refresh(CONTEXT));
    await flush();
    // Guard (mutation 4): without `if (running !== undefined) return;` in refresh, this aborts the first load and starts a second.
    const second = outcome(t.timeline.refresh({ alarmLabels: new Map([['al1', 'Renamed alarm']]), latest: [] }));
    await flush();
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]?.aborted).toBe(false);

    slow.release(ok(page([entry('c1', NOW - 5_000)])));
    expect(await first).toBe('done');
    expect(await second).toBe('done');
    expect(t.ids()).toEqual(['c1']);
    expect(t.timeline.element.textContent).toContain('Renamed alarm');
    expect(t.errors).toEqual([]);
  });

  it('destroy aborts the load in flight and nothing is drawn after', async () => {
    const server = fakeServer(() => new Promise<FakeReply>(() => undefined));
    const t = createTimeline();
    const pending = t.timeline.refresh(CONTEXT).catch((error: unknown) => error);
    await flush();
    t.timeline.destroy();
    const error = await pending;
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(server.calls[0]?.aborted).toBe(true);
    expect(t.ids()).toEqual([]);
  });
});
