// Owns parsing the plot parameters (from, to, points, resolution, select) of a query string.
import { StrataError } from '../../../core/errors.js';
import { RESOLUTIONS, isResolution, type Resolution } from '../../../model/resolution.js';
import type { SelectStat } from '../../../store-types.js';

/** The plot parameters of a query, parsed and checked. */
export interface PlotParams {
  readonly from: number;
  readonly to: number;
  /** Desired point count; when given, resolution is ignored (Blueflood: "points wins"). */
  readonly points?: number;
  readonly resolution?: Resolution;
  /** Statistics besides numPoints; undefined means the default (average). */
  readonly select?: readonly SelectStat[];
}

/** A parsed query string as fastify gives it: repeated keys become arrays. */
export type QueryString = Readonly<Record<string, string | string[] | undefined>>;

const SELECTABLE: ReadonlySet<string> = new Set<SelectStat>(['average', 'variance', 'min', 'max']);
const INTEGER_PATTERN = /^-?\d{1,16}$/;

function single(query: QueryString, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw new StrataError('QUERY_INVALID', `parameter '${name}' may be given once`, { parameter: name });
    return value[0];
  }
  return value;
}

function integer(query: QueryString, name: string, required: boolean): number | undefined {
  const text = single(query, name);
  if (text === undefined || text === '') {
    if (required) throw new StrataError('QUERY_INVALID', `parameter '${name}' is required (integer milliseconds since 1970)`, { parameter: name });
    return undefined;
  }
  const value = Number(text);
  if (!INTEGER_PATTERN.test(text) || !Number.isSafeInteger(value)) {
    throw new StrataError('QUERY_INVALID', `parameter '${name}' must be an integer`, { parameter: name, value: text });
  }
  return value;
}

/** The select list: repeated and/or comma-separated, case-insensitive; numPoints is always returned so it is accepted and dropped. */
export function parseSelect(values: string | readonly string[] | undefined): SelectStat[] | undefined {
  if (values === undefined) return undefined;
  const stats: SelectStat[] = [];
  for (const value of typeof values === 'string' ? [values] : values) {
    for (const part of value.split(',')) {
      const name = part.trim().toLowerCase();
      if (name === '' || name === 'numpoints') continue;
      if (!SELECTABLE.has(name)) {
        throw new StrataError('QUERY_SELECT_INVALID', `select '${part.trim()}' is not one of average, variance, min, max`, { select: part.trim() });
      }
      if (!stats.includes(name as SelectStat)) stats.push(name as SelectStat);
    }
  }
  return stats.length > 0 ? stats : undefined;
}

/** Parses and checks the plot parameters; throws a QUERY_* StrataError naming the broken rule. */
export function parsePlotParams(query: QueryString): PlotParams {
  const from = integer(query, 'from', true) as number;
  const to = integer(query, 'to', true) as number;
  if (to <= from) throw new StrataError('QUERY_RANGE_INVALID', "parameter 'to' must be greater than 'from'", { from, to });
  const points = integer(query, 'points', false);
  const resolutionText = single(query, 'resolution');
  const select = parseSelect(query['select']);
  if (points !== undefined) {
    if (points < 1) throw new StrataError('QUERY_INVALID', "parameter 'points' must be a positive integer", { points });
    return { from, to, points, ...(select ? { select } : {}) };
  }
  if (resolutionText === undefined || resolutionText === '') {
    throw new StrataError('QUERY_POINTS_OR_RESOLUTION_REQUIRED', "Either 'points' or 'resolution' is required.");
  }
  const resolution = resolutionText.toUpperCase();
  if (!isResolution(resolution)) {
    throw new StrataError('QUERY_RESOLUTION_INVALID', `parameter 'resolution' is not valid. Allowed values ${RESOLUTIONS.join(', ')}`, {
      resolution: resolutionText,
    });
  }
  return { from, to, resolution, ...(select ? { select } : {}) };
}
