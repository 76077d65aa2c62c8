// Owns the metrics page's range arithmetic (pure): presets to [from, to) in integer ms, custom ranges, and the view request with its limit notes.
import { pointsForWidth, PX_PER_POINT } from './plot-density.js';
import { parseLocalDateTime } from './time-format.js';
import { DAY_MS, HOUR_MS } from './time-units.js';

/** The range presets the range select offers, with their lengths. */
export const RANGE_PRESETS = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': DAY_MS,
  '2d': 2 * DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
  '1y': 365 * DAY_MS,
} as const;

/** A preset name, e.g. '24h'. */
export type RangePreset = keyof typeof RANGE_PRESETS;

/** The preset shown when the hash names none. */
export const DEFAULT_PRESET: RangePreset = '24h';

/** The resolutions a user may pick, finest first (the API's names). */
export const RESOLUTION_NAMES = ['FULL', 'MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] as const;

/** A resolution name. */
export type ResolutionName = (typeof RESOLUTION_NAMES)[number];

/** Most points one view returns, assumed only until the first plan answers with the server's pointsMax. */
export const POINTS_MAX_ASSUMED = 1440;

/** A half-open range [from, to) in integer ms since the epoch. */
export interface TimeRange {
  readonly from: number;
  readonly to: number;
}

/** True when `name` is a preset. */
export function isPreset(name: unknown): name is RangePreset {
  return typeof name === 'string' && Object.hasOwn(RANGE_PRESETS, name);
}

/** True when `name` is a resolution name. */
export function isResolutionName(name: unknown): name is ResolutionName {
  return typeof name === 'string' && (RESOLUTION_NAMES as readonly string[]).includes(name);
}

/** The range a preset covers, ending now: [now - length, now). */
export function presetRange(preset: RangePreset, nowMs: number): TimeRange {
  const to = Math.trunc(nowMs);
  return { from: to - RANGE_PRESETS[preset], to };
}

/** A custom range from two datetime-local values, or the message saying what is wrong with them. */
export function customRange(fromText: string, toText: string): { readonly range: TimeRange } | { readonly error: string } {
  const from = parseLocalDateTime(fromText);
  const to = parseLocalDateTime(toText);
  if (from === undefined) return { error: `The start "${fromText}" is not a date and time.` };
  if (to === undefined) return { error: `The end "${toText}" is not a date and time.` };
  if (to <= from) return { error: 'The end of the range must be after its start.' };
  return { range: { from, to } };
}

/** How the user chose the view's density. */
export type PointsChoice =
  | { readonly mode: 'auto' }
  | { readonly mode: 'points'; readonly points: number }
  | { readonly mode: 'resolution'; readonly resolution: ResolutionName };

/** What is sent: points or a resolution (never both). */
export type ViewAsk = { readonly points: number } | { readonly resolution: ResolutionName };

/** The ask of a choice, with the text "what was asked" and the note when the points limit (pointsMax) changed it. */
export interface AskPlan {
  readonly ask: ViewAsk;
  /** "auto: N points for W px", "N points", or "resolution R". */
  readonly requested: string;
  /** Set when the limit capped the points: what was wanted and what was asked instead. */
  readonly limitNote: string | null;
}

/** The request for a choice at a plot width: points above pointsMax are capped, with a note, rather than refused. */
export function askFor(choice: PointsChoice, widthPx: number, pointsMax: number): AskPlan {
  if (choice.mode === 'resolution') return { ask: { resolution: choice.resolution }, requested: `resolution ${choice.resolution}`, limitNote: null };
  if (choice.mode === 'auto') {
    const width = Math.max(0, Math.floor(widthPx));
    const wanted = Math.floor(width / PX_PER_POINT);
    const points = pointsForWidth(width, pointsMax);
    const limitNote = wanted > pointsMax ? `auto would ask ${wanted} points for ${width} px; a view returns at most ${pointsMax}, so ${points} were asked` : null;
    return { ask: { points }, requested: `auto: ${points} points for ${width} px`, limitNote };
  }
  const wanted = Math.max(1, Math.floor(choice.points));
  const points = Math.min(wanted, pointsMax);
  const limitNote = wanted > pointsMax ? `asked ${wanted} points; a view returns at most ${pointsMax}, so ${points} were asked` : null;
  return { ask: { points }, requested: `${points} points`, limitNote };
}

/** The next coarser resolution, or undefined for the coarsest. */
export function coarserResolution(resolution: string): ResolutionName | undefined {
  const index = RESOLUTION_NAMES.indexOf(resolution as ResolutionName);
  return index === -1 ? undefined : RESOLUTION_NAMES[index + 1];
}

/** The planner's answer as far as the next step depends on it. */
export interface PlanVerdict {
  readonly resolution: string;
  readonly expectedPoints: number;
  readonly overLimit: boolean;
  readonly pointsMax: number;
}

/** What to do after a plan: fetch the view, ask again one resolution coarser, or stop and explain. */
export type NextStep =
  | { readonly kind: 'fetch' }
  | { readonly kind: 'coarser'; readonly ask: ViewAsk; readonly note: string }
  | { readonly kind: 'blocked'; readonly note: string };

/**
 * The step after a plan. A plan within the limit is fetched. Points that land on a resolution over
 * the limit (e.g. 1440 points over 13 h pick FULL, 1560 values) are retried one resolution coarser,
 * since points only express a density; a resolution the user chose over the limit is not requested.
 */
export function nextStep(mode: PointsChoice['mode'], plan: PlanVerdict): NextStep {
  if (!plan.overLimit) return { kind: 'fetch' };
  const over = `${plan.resolution} would return ${plan.expectedPoints} points over this range; a view returns at most ${plan.pointsMax}`;
  const coarser = coarserResolution(plan.resolution);
  if (mode === 'resolution') {
    return { kind: 'blocked', note: `${over}, so the plot was not requested. Pick a coarser resolution, a shorter range, or use ${plan.pointsMax} points.` };
  }
  if (coarser === undefined) return { kind: 'blocked', note: `${over}, and no coarser resolution exists; shorten the range.` };
  return { kind: 'coarser', ask: { resolution: coarser }, note: `${over}, so ${coarser} was asked instead` };
}

/** The query string of a view or plan: the range and the ask. */
export function viewQuery(range: TimeRange, ask: ViewAsk): { readonly from: number; readonly to: number; readonly points?: number; readonly resolution?: string } {
  return 'points' in ask ? { from: range.from, to: range.to, points: ask.points } : { from: range.from, to: range.to, resolution: ask.resolution };
}
