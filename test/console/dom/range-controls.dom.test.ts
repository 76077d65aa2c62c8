// @vitest-environment happy-dom
// Tests the metrics page's range controls in a DOM: the custom from/to inputs keep seconds, and set() never rewrites them under typing or when the range did not move.
// Each "Guard (mutation N)" comment names the change to src/console that makes the test fail; each was checked on a patched copy of src/console (run through a vitest alias), never on src/ itself.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RangeChoice } from '../../../src/console/metrics-state.js';
import { createRangeControls, type RangeControls } from '../../../src/console/range-controls.js';
import type { TimeRange } from '../../../src/console/range.js';
import { DAY_MS } from '../../../src/console/time-units.js';

/** 2024-06-01 10:20:30 local time (whatever the time zone), 24 h long: seconds that a minute-only input would lose. */
const FROM = new Date(2024, 5, 1, 10, 20, 30).getTime();
const RANGE: TimeRange = { from: FROM, to: FROM + DAY_MS };
const PRESET: RangeChoice = { preset: '24h' };

interface Controls {
  readonly controls: RangeControls;
  readonly events: { onRange: ReturnType<typeof vi.fn>; onChoice: ReturnType<typeof vi.fn>; onInvalid: ReturnType<typeof vi.fn> };
  readonly select: HTMLSelectElement;
  readonly from: HTMLInputElement;
  readonly to: HTMLInputElement;
}

function byTestId<T extends HTMLElement>(root: ParentNode, id: string): T {
  const found = root.querySelector<T>(`[data-testid="${id}"]`);
  if (found === null) throw new Error(`no [data-testid=${id}]`);
  return found;
}

let shown: Controls;

beforeEach(() => {
  const events = { onRange: vi.fn(), onChoice: vi.fn(), onInvalid: vi.fn() };
  const controls = createRangeControls(events);
  document.body.replaceChildren(controls.element);
  shown = { controls, events, select: byTestId(controls.element, 'range'), from: byTestId(controls.element, 'from'), to: byTestId(controls.element, 'to') };
});

afterEach(() => {
  document.body.replaceChildren();
});

describe('range controls DOM', () => {
  it('shows the range to the second and applies it back unchanged when switched to custom', () => {
    shown.controls.set(PRESET, { mode: 'auto' }, RANGE, 500);
    expect(shown.select.value).toBe('24h');
    // Guard (mutation 10): formatLocalDateTime(...).slice(0, 16) in set() drops the seconds.
    expect(shown.from.value).toBe('2024-06-01T10:20:30');
    expect(shown.to.value).toBe('2024-06-02T10:20:30');
    expect(shown.from.getAttribute('step')).toBe('1');

    shown.select.value = 'custom';
    shown.select.dispatchEvent(new Event('change'));
    expect(shown.events.onRange).toHaveBeenCalledTimes(1);
    expect(shown.events.onRange).toHaveBeenCalledWith({ fixed: RANGE });
    expect(shown.events.onInvalid).not.toHaveBeenCalled();
  });

  it('C8: a refresh does not rewrite the input being typed in, but does the other one', () => {
    shown.controls.set(PRESET, { mode: 'auto' }, RANGE, 500);
    shown.from.focus();
    expect(document.activeElement).toBe(shown.from);
    shown.from.value = '2024-05-01T08:00:15';

    // The preset moved on by 5 s (a refresh tick).
    const moved = { from: RANGE.from + 5_000, to: RANGE.to + 5_000 };
    shown.controls.set(PRESET, { mode: 'auto' }, moved, 500);
    // Guard (mutation 11): without `document.activeElement !== from`, the typed text is replaced.
    expect(shown.from.value).toBe('2024-05-01T08:00:15');
    expect(shown.to.value).toBe('2024-06-02T10:20:35');
  });

  it('C8: a refresh with the same range (a resize) leaves both inputs alone', () => {
    shown.controls.set(PRESET, { mode: 'auto' }, RANGE, 500);
    shown.to.value = '2024-06-03T00:00:07';
    // The user's edit of `to`, committed or not, is not undone by a redraw of the same state.
    shown.controls.set(PRESET, { mode: 'auto' }, { ...RANGE }, 640);
    // Guard (mutation 12): writing the inputs whatever `shown` holds rewrites `to` here.
    expect(shown.to.value).toBe('2024-06-03T00:00:07');
    expect(shown.from.value).toBe('2024-06-01T10:20:30');
  });

  it('reports a custom range typed with seconds, and an unreadable one as invalid', () => {
    shown.controls.set({ fixed: RANGE }, { mode: 'auto' }, RANGE, 500);
    expect(shown.select.value).toBe('custom');
    shown.to.value = '2024-06-01T11:00:45';
    shown.to.dispatchEvent(new Event('change'));
    expect(shown.events.onRange).toHaveBeenLastCalledWith({ fixed: { from: FROM, to: new Date(2024, 5, 1, 11, 0, 45).getTime() } });

    shown.from.value = '';
    shown.from.dispatchEvent(new Event('change'));
    expect(shown.events.onInvalid).toHaveBeenCalledTimes(1);
  });
});
