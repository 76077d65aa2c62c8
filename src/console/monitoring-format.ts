// Owns the monitoring pages' pure formatting and choices: periods, addresses, the refresh interval, and which check metrics go on which zone's chart (instants: time-format.ts; points by width: plot-density.ts).
import { HOUR_MS, SECOND_MS } from './time-units.js';

/** How often the entity page refreshes alarm states when the hash names no `refresh` (ms). */
export const REFRESH_MS_DEFAULT = 5 * SECOND_MS;
/** The shortest refresh the page accepts (ms); a smaller `refresh` is raised to it. */
export const REFRESH_MS_MIN = SECOND_MS;
/** The longest refresh the page accepts (ms); a larger `refresh` is lowered to it. */
export const REFRESH_MS_MAX = HOUR_MS;
/** Most metrics drawn on one check-zone chart; the rest are named as not plotted. */
export const CHECK_PLOT_METRICS_MAX = 6;
/** Addresses listed beside an entity before "+N more". */
export const ADDRESSES_SHOWN_MAX = 3;

/** The refresh interval a hash parameter asks for: the default when absent or not a number, else clamped to [REFRESH_MS_MIN, REFRESH_MS_MAX]. */
export function refreshIntervalMs(param: string | null): number {
  if (param === null || param.trim() === '') return REFRESH_MS_DEFAULT;
  const asked = Number(param);
  if (!Number.isFinite(asked)) return REFRESH_MS_DEFAULT;
  return Math.min(REFRESH_MS_MAX, Math.max(REFRESH_MS_MIN, Math.round(asked)));
}

/** A duration given in seconds, as a person reads it: `45 s`, `5 min`, `1 min 30 s`, `2 h`. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return whole % 60 === 0 ? `${whole / 60} min` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(whole / 60);
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** An entity's addresses as `name addr, …` (at most ADDRESSES_SHOWN_MAX, then `+N more`); `—` for none. */
export function addressSummary(addresses: Readonly<Record<string, string>> | null | undefined): string {
  const entries = Object.entries(addresses ?? {});
  if (entries.length === 0) return '—';
  const shown = entries.slice(0, ADDRESSES_SHOWN_MAX).map(([name, address]) => `${name} ${address}`);
  const more = entries.length - shown.length;
  return more > 0 ? `${shown.join(', ')}, +${more} more` : shown.join(', ');
}

/** A check metric as operation 5 lists it. */
export interface CheckMetricInfo {
  readonly name: string;
  readonly unit: string;
  /** One-letter type: i I l L n numbers, s string. */
  readonly type: string;
}

/** The metrics of one chart: a zone of a check (null for a check without zones), the metrics drawn and how many were left out. */
export interface ZoneMetrics {
  readonly zoneId: string | null;
  /** Full metric names (`<zone>.<metric>` for remote checks), sorted, at most `perChartMax`. */
  readonly metrics: readonly CheckMetricInfo[];
  /** Numeric metrics of the zone not drawn because of `perChartMax`. */
  readonly omitted: number;
}

/** A metric's name without its zone prefix, for a chart whose title names the zone. */
export function shortMetricName(name: string, zoneId: string | null): string {
  return zoneId !== null && name.startsWith(`${zoneId}.`) ? name.slice(zoneId.length + 1) : name;
}

/** The charts a check gets, by zone: one per distinct polling zone in the check's order, or one (zone null) for a check without zones (an agent check). */
export function chartZones(zones: readonly string[] | null): (string | null)[] {
  return zones === null || zones.length === 0 ? [null] : [...new Set(zones)];
}

/** A check with the zones of its charts that fit. */
export interface PlannedCharts<C> {
  readonly check: C;
  readonly zones: readonly (string | null)[];
}

/**
 * The charts of `checks` that fit `chartsMax`, in the checks' order (of a check that fits only in
 * part, its first zones), and how many charts were left out.
 */
export function capCharts<C extends { readonly monitoring_zones_poll: readonly string[] | null }>(checks: readonly C[], chartsMax: number): { readonly plotted: readonly PlannedCharts<C>[]; readonly omitted: number } {
  const plotted: PlannedCharts<C>[] = [];
  let room = Math.max(0, Math.floor(chartsMax));
  let omitted = 0;
  for (const check of checks) {
    const zones = chartZones(check.monitoring_zones_poll);
    const fit = zones.slice(0, room);
    if (fit.length > 0) plotted.push({ check, zones: fit });
    room -= fit.length;
    omitted += zones.length - fit.length;
  }
  return { plotted, omitted };
}

/**
 * The charts of a check: remote checks (`zones` non-empty) get one chart per polling zone, in
 * the check's zone order, with the metrics named `<zone>.<metric>`; other checks get one chart
 * (zone null) with every metric (see chartZones). String metrics (type `s`) have no line to draw
 * and are left out; a zone's numeric metrics beyond `perChartMax` are counted in `omitted`.
 */
export function chartsOfCheck(metrics: readonly CheckMetricInfo[], zones: readonly string[] | null, perChartMax: number = CHECK_PLOT_METRICS_MAX): ZoneMetrics[] {
  const numeric = metrics.filter((metric) => metric.type !== 's').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return chartZones(zones).map((zoneId) => {
    const all = zoneId === null ? numeric : numeric.filter((metric) => metric.name.startsWith(`${zoneId}.`));
    return { zoneId, metrics: all.slice(0, perChartMax), omitted: Math.max(0, all.length - perChartMax) };
  });
}
