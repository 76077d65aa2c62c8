// Owns the metrics page's range and density controls: preset or custom range, and auto / points / resolution.
import { el } from './dom.js';
import type { RangeChoice } from './metrics-state.js';
import { customRange, isPreset, isResolutionName, RANGE_PRESETS, RESOLUTION_NAMES, type PointsChoice, type TimeRange } from './range.js';
import { formatLocalDateTime } from './time-format.js';

/** The controls and how the page keeps them in step with its state. */
export interface RangeControls {
  readonly element: HTMLElement;
  /** Shows a state (without firing the callbacks). */
  set(range: RangeChoice, choice: PointsChoice, resolvedRange: TimeRange, autoPointsNow: number): void;
}

/** What the controls report. */
export interface RangeControlEvents {
  onRange(range: RangeChoice): void;
  onChoice(choice: PointsChoice): void;
  onInvalid(message: string): void;
}

const CUSTOM = 'custom';

/** One labelled control. */
function control(id: string, label: string, input: HTMLElement): HTMLElement {
  return el('div', { class: 'control' }, el('label', { for: id }, label), input);
}

/** The range select and the custom from/to inputs (shown for "custom"). */
function createRangePicker(events: RangeControlEvents): { readonly parts: readonly HTMLElement[]; showParts(): void; set(choice: RangeChoice, resolved: TimeRange): void } {
  const range = el('select', { id: 'metrics-range', 'data-testid': 'range' });
  for (const preset of Object.keys(RANGE_PRESETS)) range.append(el('option', { value: preset }, preset));
  range.append(el('option', { value: CUSTOM }, 'custom'));
  // step=1: the inputs keep seconds, so a range shown and applied again is the same range.
  const from = el('input', { id: 'metrics-from', type: 'datetime-local', step: 1, 'data-testid': 'from' });
  const to = el('input', { id: 'metrics-to', type: 'datetime-local', step: 1, 'data-testid': 'to' });
  const custom = el('div', { class: 'control custom-range' }, el('label', { for: 'metrics-from' }, 'From'), from, el('label', { for: 'metrics-to' }, 'To'), to);
  let shown: TimeRange | undefined;

  const showParts = (): void => {
    custom.hidden = range.value !== CUSTOM;
  };
  const applyCustom = (): void => {
    const result = customRange(from.value, to.value);
    if ('error' in result) events.onInvalid(result.error);
    else events.onRange({ fixed: result.range });
  };
  range.addEventListener('change', () => {
    showParts();
    if (isPreset(range.value)) events.onRange({ preset: range.value });
    else applyCustom();
  });
  from.addEventListener('change', applyCustom);
  to.addEventListener('change', applyCustom);

  const set = (choice: RangeChoice, resolved: TimeRange): void => {
    range.value = 'preset' in choice ? choice.preset : CUSTOM;
    // The inputs show the range in use, so switching to custom starts from it; they are rewritten
    // only when that range moved, and never under the user's typing.
    if (shown === undefined || shown.from !== resolved.from || shown.to !== resolved.to) {
      if (document.activeElement !== from) from.value = formatLocalDateTime(resolved.from);
      if (document.activeElement !== to) to.value = formatLocalDateTime(resolved.to);
      shown = resolved;
    }
  };
  return { parts: [control('metrics-range', 'Range', range), custom], showParts, set };
}

/** The density select (auto / points / resolution) with its points input and resolution select. */
function createDensityPicker(events: RangeControlEvents): { readonly parts: readonly HTMLElement[]; showParts(): void; set(choice: PointsChoice, autoPointsNow: number): void } {
  const mode = el('select', { id: 'metrics-points-mode', 'data-testid': 'points-mode' });
  for (const [value, label] of [['auto', 'auto (by width)'], ['points', 'points'], ['resolution', 'resolution']] as const) mode.append(el('option', { value }, label));
  const points = el('input', { id: 'metrics-points', type: 'number', min: 1, step: 1, inputmode: 'numeric', 'data-testid': 'points' });
  const resolution = el('select', { id: 'metrics-resolution', 'data-testid': 'resolution' });
  for (const name of RESOLUTION_NAMES) resolution.append(el('option', { value: name }, name));
  const pointsBox = control('metrics-points', 'Points', points);
  const resolutionBox = control('metrics-resolution', 'Resolution', resolution);

  const showParts = (): void => {
    pointsBox.hidden = mode.value !== 'points';
    resolutionBox.hidden = mode.value !== 'resolution';
  };
  const applyChoice = (): void => {
    if (mode.value === 'points') {
      const value = Number(points.value);
      if (!Number.isInteger(value) || value < 1) events.onInvalid('Points must be a whole number of at least 1.');
      else events.onChoice({ mode: 'points', points: value });
    } else if (mode.value === 'resolution' && isResolutionName(resolution.value)) {
      events.onChoice({ mode: 'resolution', resolution: resolution.value });
    } else events.onChoice({ mode: 'auto' });
  };
  mode.addEventListener('change', () => {
    showParts();
    applyChoice();
  });
  points.addEventListener('change', applyChoice);
  resolution.addEventListener('change', applyChoice);

  const set = (choice: PointsChoice, autoPointsNow: number): void => {
    mode.value = choice.mode;
    if (choice.mode === 'points') points.value = String(choice.points);
    else if (points.value === '') points.value = String(autoPointsNow);
    if (choice.mode === 'resolution') resolution.value = choice.resolution;
  };
  return { parts: [control('metrics-points-mode', 'Density', mode), pointsBox, resolutionBox], showParts, set };
}

/** Range select with custom from/to, and the points mode with its points or resolution input. */
export function createRangeControls(events: RangeControlEvents): RangeControls {
  const range = createRangePicker(events);
  const density = createDensityPicker(events);
  const element = el('div', { class: 'range-controls', role: 'group', 'aria-label': 'Range and density' }, ...range.parts, ...density.parts);
  const showParts = (): void => {
    range.showParts();
    density.showParts();
  };
  showParts();
  return {
    element,
    set(rangeChoice, choice, resolvedRange, autoPointsNow) {
      range.set(rangeChoice, resolvedRange);
      density.set(choice, autoPointsNow);
      showParts();
    },
  };
}
