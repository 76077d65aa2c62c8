// @vitest-environment happy-dom
// Tests the entity page's DOM over a fake server: its testids and alarm states, labels kept as text, and the refresh loop (unmount, 404, in-flight changelog, messages).
// Each "Guard (mutation N)" comment names the change to src/console that makes the test fail; each was checked on a patched copy of src/console (run through a vitest alias), never on src/ itself.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entityPage } from '../../../src/console/entity-page.js';
import type { PageContext } from '../../../src/console/page.js';
import { parseHash } from '../../../src/console/router.js';
import { advance, apiError, flush, gate, MON, ok, page, SESSION, useFakeClock, fakeServer, type FakeHandler, type FakeReply } from './fake-server.js';

// happy-dom has no canvas 2d context, which uPlot draws on: the chart is replaced by a stub here
// (these tests are about the page, not the chart); alignSeries and the rest stay real.
vi.mock('../../../src/console/plot-chart.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/console/plot-chart.js')>()),
  createPlotChart: () => ({ render: () => undefined, width: () => 600, destroy: () => undefined }),
}));

const NOW = Date.UTC(2024, 5, 1, 12, 0, 0);
/** A label that would run script if it ever reached innerHTML. */
const HOSTILE = '<img src=x onerror=alert(1)>';

const entity = { id: 'en1', label: HOSTILE, ip_addresses: { default: '10.0.0.1' }, agent_id: null, created_at: NOW - 86_400_000, updated_at: NOW - 86_400_000 };
const check = { id: 'ch1', entity_id: 'en1', label: `${HOSTILE} check`, type: 'remote.http', monitoring_zones_poll: ['mzord'], period: 60, timeout: 30 };
const alarms = [
  { id: 'al1', entity_id: 'en1', check_id: 'ch1', label: `${HOSTILE} alarm` },
  { id: 'al2', entity_id: 'en1', check_id: 'ch1', label: null },
];
const latest = [
  { timestamp: NOW - 60_000, entity_id: 'en1', alarm_id: 'al1', check_id: 'ch1', state: 'OK', previous_state: 'CRITICAL', status: 'fine', analyzed_by_monitoring_zone_id: 'mzord' },
  { timestamp: NOW - 30_000, entity_id: 'en1', alarm_id: 'al1', check_id: 'ch1', state: 'CRITICAL', previous_state: 'OK', status: 'down', analyzed_by_monitoring_zone_id: 'mzdfw' },
];
const overview = { entity, checks: [check], alarms, latest_alarm_states: latest };
const changelogEntry = { id: 'c1', timestamp: NOW - 30_000, entity_id: 'en1', alarm_id: 'al1', check_id: 'ch1', state: 'CRITICAL', previous_state: 'OK', analyzed_by_monitoring_zone_id: 'mzdfw' };

const OVERVIEW = '/views/overview';
const CHANGELOG = '/changelogs/alarms';
const LISTING = '/entities/en1/checks/ch1/metrics';

/** The fake server: each path's handler (by suffix), defaulting to a healthy entity. */
function serve(overrides: Readonly<Record<string, FakeHandler>> = {}): ReturnType<typeof fakeServer> {
  const routes: Record<string, FakeHandler> = {
    [OVERVIEW]: () => ok(page([overview])),
    [CHANGELOG]: () => ok(page([changelogEntry])),
    [LISTING]: () => ok(page([])),
    '/entities/en1': () => ok(entity),
    ...overrides,
  };
  return fakeServer((call) => {
    const suffix = Object.keys(routes).find((key) => call.path.endsWith(key));
    return suffix === undefined ? apiError(404, `No route ${call.path}`) : (routes[suffix] as FakeHandler)(call);
  });
}

/** The shell's message area, reduced to what it shows. */
interface Shown {
  text: string;
  kind: 'error' | 'info';
}

function mount(root: HTMLElement, hash = '#/entities/en1?refresh=5000'): { shown: Shown; unmount: () => void } {
  const shown: Shown = { text: '', kind: 'info' };
  const context: PageContext = {
    session: SESSION,
    showMessage: (text, kind) => {
      shown.text = text;
      shown.kind = kind;
    },
    navigate: () => undefined,
  };
  root.dataset.loading = 'true';
  return { shown, unmount: entityPage.mount(root, parseHash(hash), context) };
}

function testid(root: ParentNode, id: string): HTMLElement {
  const found = root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  if (found === null) throw new Error(`no [data-testid=${id}]`);
  return found;
}

let root: HTMLElement;
let unmounts: (() => void)[];

beforeEach(() => {
  useFakeClock(NOW);
  root = document.createElement('main');
  document.body.replaceChildren(root);
  unmounts = [];
});

afterEach(() => {
  for (const unmount of unmounts) unmount();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function mounted(hash?: string): Shown {
  const { shown, unmount } = mount(root, hash);
  unmounts.push(unmount);
  return shown;
}

describe('entity page DOM', () => {
  it('renders the testids, alarm states as text and data-state, and labels as text only', async () => {
    serve();
    mounted();
    await flush();

    expect(root.dataset.loading).toBe('false');
    // Guard (mutation 1): `view.title.innerHTML = labelOf(value.entity)` in showOverview turns the label into an <img> (no text).
    expect(testid(root, 'entity-title').textContent).toBe(HOSTILE);
    expect(root.querySelector('img')).toBeNull();
    expect(testid(root, 'check-list').textContent).toContain(`${HOSTILE} check`);
    expect(testid(root, 'alarm-list').textContent).toContain(`${HOSTILE} alarm`);

    const updated = testid(root, 'updated-at');
    expect(updated.textContent).toMatch(/^Updated .* \(every 5 s\)$/);
    expect(updated.dataset.updatedMs).toBe(String(NOW));

    expect(testid(root, 'check-list').querySelector('tr[data-check-id="ch1"]')).not.toBeNull();
    // al1 is OK in one zone and CRITICAL in another: the worst shows; al2 has no state yet.
    const al1 = testid(root, 'alarm-list').querySelector<HTMLElement>('tr[data-alarm-id="al1"]');
    const al2 = testid(root, 'alarm-list').querySelector<HTMLElement>('tr[data-alarm-id="al2"]');
    expect(al1?.dataset.state).toBe('CRITICAL');
    expect(testid(al1 as HTMLElement, 'alarm-state').textContent).toBe('CRITICAL');
    expect(testid(al1 as HTMLElement, 'alarm-state').dataset.state).toBe('CRITICAL');
    expect(al2?.dataset.state).toBe('UNKNOWN');
    expect(testid(al2 as HTMLElement, 'alarm-state').textContent).toBe('UNKNOWN');
    expect(al2?.textContent).toContain('al2');

    const rows = testid(root, 'changelog').querySelectorAll<HTMLElement>('li[data-changelog-id]');
    expect([...rows].map((row) => [row.dataset.changelogId, row.dataset.state])).toEqual([['c1', 'CRITICAL']]);
    expect(rows[0]?.textContent).toContain(`${HOSTILE} alarm`);
    expect(testid(root, 'check-plots').querySelector('[data-plot-id="ch1:mzord"]')?.getAttribute('data-state')).toBe('empty');

    await advance(5_000);
    expect(testid(root, 'updated-at').dataset.updatedMs).toBe(String(NOW + 5_000));
  });

  it('C1: an overview request aborted by unmount does not mark the next page loaded', async () => {
    const first = serve({ [OVERVIEW]: () => new Promise<FakeReply>(() => undefined) });
    const old = mount(root);
    await flush();
    expect(first.pending(OVERVIEW)).toHaveLength(1);

    // As the shell does on a route change: unmount, then mount the next page into the same root.
    const next = gate<FakeReply>();
    serve({ [OVERVIEW]: () => next.promise });
    old.unmount();
    unmounts.push(mount(root, '#/entities/en1?refresh=7000').unmount);
    await flush();
    expect(first.calls[0]?.aborted).toBe(true);
    // Guard (mutation 2): calling failed(error) in tick's rejection handler without `if (!stopped)` sets it to 'false' here.
    expect(root.dataset.loading).toBe('true');

    next.release(ok(page([overview])));
    await flush();
    expect(root.dataset.loading).toBe('false');
    expect(testid(root, 'updated-at').textContent).toContain('every 7 s');
  });

  it('C11: a 404 after the first load stops polling and says the entity no longer exists', async () => {
    let gone = false;
    const server = serve({
      [OVERVIEW]: () => ok(page(gone ? [] : [overview])),
      '/entities/en1': () => (gone ? apiError(404, 'Object "Entity" with key "en1" does not exist') : ok(entity)),
    });
    const shown = mounted();
    await flush();
    await advance(5_000);
    expect(server.callsTo(OVERVIEW)).toHaveLength(2);

    gone = true;
    await advance(5_000);
    // Guard (mutation 3b): showing messageOf(error) for every 404 loses the "no longer exists" message.
    expect(shown).toEqual({ text: 'The entity en1 no longer exists; the page stopped refreshing.', kind: 'error' });
    expect(testid(root, 'updated-at').textContent).toBe('No longer exists');
    const calls = server.calls.length;
    // Guard (mutation 3): `else schedule();` → `schedule();` in failed() keeps polling.
    await advance(10 * 60_000);
    expect(server.calls.length).toBe(calls);
  });

  it('C11: a 404 on the first load shows the API message and does not poll', async () => {
    const server = serve({ [OVERVIEW]: () => ok(page([])), '/entities/en1': () => apiError(404, 'Object "Entity" with key "en1" does not exist') });
    const shown = mounted();
    await flush();
    expect(shown).toEqual({ text: 'Object "Entity" with key "en1" does not exist', kind: 'error' });
    expect(testid(root, 'updated-at').textContent).toBe('Not found');
    expect(root.dataset.loading).toBe('false');
    const calls = server.calls.length;
    await advance(60_000);
    expect(server.calls.length).toBe(calls);
  });

  it('C4: refresh ticks while the changelog is still loading neither abort it nor start another', async () => {
    const slow = gate<FakeReply>();
    let changelogCalls = 0;
    const server = serve({ [CHANGELOG]: () => (++changelogCalls === 1 ? slow.promise : ok(page([changelogEntry]))) });
    mounted();
    await flush();
    await advance(5_000);
    await advance(5_000);
    expect(server.callsTo(OVERVIEW)).toHaveLength(3);
    // Guard (mutation 4, in changelog-timeline.ts): without `if (running !== undefined) return;` in refresh, each tick aborts the load and starts another.
    expect(server.callsTo(CHANGELOG)).toHaveLength(1);
    expect(server.callsTo(CHANGELOG)[0]?.aborted).toBe(false);

    slow.release(ok(page([changelogEntry])));
    await flush();
    expect(testid(root, 'changelog').querySelectorAll('li[data-changelog-id]')).toHaveLength(1);
    // The next tick reloads the newest page again.
    await advance(5_000);
    expect(server.callsTo(CHANGELOG)).toHaveLength(2);
  });

  it('C6: an overview tick keeps a plot error on screen', async () => {
    serve({ [LISTING]: () => apiError(500, 'Listing broke.') });
    const shown = mounted();
    await flush();
    expect(shown).toEqual({ text: 'Listing broke.', kind: 'error' });
    // Guard (mutation 5): clearing the message on every successful overview (without `if (overviewMessage)`) wipes it; plots reload only after a minute.
    await advance(5_000);
    expect(shown).toEqual({ text: 'Listing broke.', kind: 'error' });
  });

  it('C6: an overview tick keeps a changelog error on screen while the next changelog load runs', async () => {
    let changelogCalls = 0;
    serve({ [CHANGELOG]: () => (++changelogCalls === 1 ? apiError(500, 'Changelog broke.') : new Promise<FakeReply>(() => undefined)) });
    const shown = mounted();
    await flush();
    expect(shown).toEqual({ text: 'Changelog broke.', kind: 'error' });
    await advance(5_000);
    expect(changelogCalls).toBe(2);
    expect(shown).toEqual({ text: 'Changelog broke.', kind: 'error' });
  });

  it('C6: the overview clears its own error once a refresh works again', async () => {
    let overviewCalls = 0;
    serve({ [OVERVIEW]: () => (++overviewCalls === 1 ? apiError(503, 'Overview unavailable.') : ok(page([overview]))) });
    const shown = mounted();
    await flush();
    expect(shown).toEqual({ text: 'Overview unavailable.', kind: 'error' });
    await advance(5_000);
    expect(shown.text).toBe('');
    expect(testid(root, 'entity-title').textContent).toBe(HOSTILE);
  });
});
