// Owns the metrics page's state as it lives in the hash (pure): plotted metrics, range, points mode; parsed leniently, written canonically.
import { DEFAULT_PRESET, isPreset, isResolutionName, type PointsChoice, type RangePreset, type TimeRange } from './range.js';

/**
 * Most metrics on one plot: the multi-metric views API's limit (VIEWS_METRICS_MAX, 100). The
 * console cannot import the server's constant; if a server's limit were lower, its 400 message
 * is shown like any API error.
 */
export const PLOTTED_METRICS_MAX = 100;

/** The range as chosen: a preset (relative to now at each refresh) or fixed instants. */
export type RangeChoice = { readonly preset: RangePreset } | { readonly fixed: TimeRange };

/** Everything the metrics page shows that a link should reproduce. */
export interface MetricsState {
  readonly metrics: readonly string[];
  readonly range: RangeChoice;
  readonly choice: PointsChoice;
}

/** The state when nothing is chosen yet. */
export const INITIAL_STATE: MetricsState = { metrics: [], range: { preset: DEFAULT_PRESET }, choice: { mode: 'auto' } };

function integerParam(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null || !/^-?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The state in hash parameters; anything unreadable falls back to the default (a stale link still opens). */
export function stateFromParams(params: URLSearchParams): MetricsState {
  const metrics = [...new Set(params.getAll('m').filter((name) => name !== ''))].slice(0, PLOTTED_METRICS_MAX);
  const from = integerParam(params, 'from');
  const to = integerParam(params, 'to');
  const preset = params.get('range');
  const range: RangeChoice =
    from !== undefined && to !== undefined && from < to ? { fixed: { from, to } } : { preset: isPreset(preset) ? preset : DEFAULT_PRESET };
  const points = integerParam(params, 'points');
  const resolution = params.get('resolution')?.toUpperCase();
  const choice: PointsChoice =
    points !== undefined && points >= 1 ? { mode: 'points', points } : isResolutionName(resolution) ? { mode: 'resolution', resolution } : { mode: 'auto' };
  return { metrics, range, choice };
}

/** The hash parameters of a state (stateFromParams's inverse). */
export function paramsFromState(state: MetricsState): URLSearchParams {
  const params = new URLSearchParams();
  for (const metric of state.metrics) params.append('m', metric);
  if ('preset' in state.range) params.set('range', state.range.preset);
  else {
    params.set('from', String(state.range.fixed.from));
    params.set('to', String(state.range.fixed.to));
  }
  if (state.choice.mode === 'points') params.set('points', String(state.choice.points));
  if (state.choice.mode === 'resolution') params.set('resolution', state.choice.resolution);
  return params;
}

/** The state with `metric` added (once); `refused` when the plot already holds PLOTTED_METRICS_MAX metrics. */
export function withMetric(state: MetricsState, metric: string): { readonly state: MetricsState; readonly refused: boolean } {
  if (state.metrics.includes(metric)) return { state, refused: false };
  if (state.metrics.length >= PLOTTED_METRICS_MAX) return { state, refused: true };
  return { state: { ...state, metrics: [...state.metrics, metric] }, refused: false };
}

/** The state without `metric`. */
export function withoutMetric(state: MetricsState, metric: string): MetricsState {
  return { ...state, metrics: state.metrics.filter((name) => name !== metric) };
}
