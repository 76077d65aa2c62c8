// Owns a brute-force cron oracle for the recurrence tests: schedules as data, a matcher written from the cron rules, and a minute scan.
import fc from 'fast-check';

/** One part of a field: a value, a range, a stepped wildcard or a stepped range. */
export type CronPart =
  | { readonly kind: 'value'; readonly v: number }
  | { readonly kind: 'range'; readonly a: number; readonly b: number }
  | { readonly kind: 'step'; readonly s: number }
  | { readonly kind: 'rangeStep'; readonly a: number; readonly b: number; readonly s: number };

/** A field: `*`, or a comma list of parts. */
export type CronField = { readonly kind: 'star' } | { readonly kind: 'list'; readonly parts: readonly CronPart[] };

/** A 5-field schedule as data. */
export interface CronSpec {
  readonly minute: CronField;
  readonly hour: CronField;
  readonly dom: CronField;
  readonly month: CronField;
  readonly dow: CronField;
}

function partText(part: CronPart): string {
  switch (part.kind) {
    case 'value':
      return String(part.v);
    case 'range':
      return `${part.a}-${part.b}`;
    case 'step':
      return `*/${part.s}`;
    case 'rangeStep':
      return `${part.a}-${part.b}/${part.s}`;
  }
}

function fieldText(field: CronField): string {
  return field.kind === 'star' ? '*' : field.parts.map(partText).join(',');
}

/** The schedule text croner reads. */
export function cronText(spec: CronSpec): string {
  return [spec.minute, spec.hour, spec.dom, spec.month, spec.dow].map(fieldText).join(' ');
}

/** The values a field matches, its range being [min, max]; day of week 7 is Sunday (0). */
function valuesOf(field: CronField, min: number, max: number, isDow = false): Set<number> {
  const out = new Set<number>();
  const add = (v: number): void => void out.add(isDow && v === 7 ? 0 : v);
  if (field.kind === 'star') {
    for (let v = min; v <= max; v++) add(v);
    return out;
  }
  for (const part of field.parts) {
    if (part.kind === 'value') add(part.v);
    else if (part.kind === 'range') for (let v = part.a; v <= part.b; v++) add(v);
    else if (part.kind === 'step') for (let v = min; v <= max; v += part.s) add(v);
    else for (let v = part.a; v <= part.b; v += part.s) add(v);
  }
  return out;
}

/** Whether croner treats the schedule as a fixed-time job (one value each in minute and hour, no * or /): those differ in DST gaps and repeats. */
export function fixedTime(spec: CronSpec): boolean {
  const single = (field: CronField, min: number, max: number): boolean => {
    const text = fieldText(field);
    return !text.includes('*') && !text.includes('/') && valuesOf(field, min, max).size === 1;
  };
  return single(spec.minute, 0, 59) && single(spec.hour, 0, 23);
}

/** Local wall-clock fields of an instant in a zone. */
interface Local {
  readonly minute: number;
  readonly hour: number;
  readonly day: number;
  readonly month: number;
  readonly weekday: number;
}

const WEEKDAYS: Readonly<Record<string, number>> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formats = new Map<string, Intl.DateTimeFormat>();

function localOf(ms: number, zone: string): Local {
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { minute: Number(parts['minute']), hour: Number(parts['hour']), day: Number(parts['day']), month: Number(parts['month']), weekday: WEEKDAYS[parts['weekday'] as string] as number };
}

/** A matcher written from the rules: day of month and day of week OR-ed when neither is `*`, AND-ed otherwise. */
export function matcherOf(spec: CronSpec): (ms: number, zone: string) => boolean {
  const minutes = valuesOf(spec.minute, 0, 59);
  const hours = valuesOf(spec.hour, 0, 23);
  const doms = valuesOf(spec.dom, 1, 31);
  const months = valuesOf(spec.month, 1, 12);
  const dows = valuesOf(spec.dow, 0, 7, true);
  const bothRestricted = spec.dom.kind !== 'star' && spec.dow.kind !== 'star';
  return (ms, zone) => {
    const l = localOf(ms, zone);
    if (!minutes.has(l.minute) || !hours.has(l.hour) || !months.has(l.month)) return false;
    const domOk = doms.has(l.day);
    const dowOk = dows.has(l.weekday);
    return bothRestricted ? domOk || dowOk : domOk && dowOk;
  };
}

const MINUTE_MS = 60_000;

/** Every occurrence (whole-minute instant) in [fromMs, toMs) by a minute scan. */
export function scanOccurrences(spec: CronSpec, zone: string, fromMs: number, toMs: number): number[] {
  const matches = matcherOf(spec);
  const out: number[] = [];
  for (let m = Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS; m < toMs; m += MINUTE_MS) if (matches(m, zone)) out.push(m);
  return out;
}

/** A part of a field over [min, max], steps from 1 to `stepMax`. */
function partArb(min: number, max: number, stepMax: number): fc.Arbitrary<CronPart> {
  const value = fc.integer({ min, max });
  const range = fc.tuple(value, value).map(([x, y]) => [Math.min(x, y), Math.max(x, y)] as const);
  return fc.oneof(
    value.map((v): CronPart => ({ kind: 'value', v })),
    range.map(([a, b]): CronPart => ({ kind: 'range', a, b })),
    fc.integer({ min: 1, max: stepMax }).map((s): CronPart => ({ kind: 'step', s })),
    fc.tuple(range, fc.integer({ min: 1, max: stepMax })).map(([[a, b], s]): CronPart => ({ kind: 'rangeStep', a, b, s })),
  );
}

/** A field over [min, max]: `*` with weight `starWeight`, else a list of one to three parts. */
function fieldArb(min: number, max: number, stepMax: number, starWeight: number): fc.Arbitrary<CronField> {
  return fc.oneof(
    { weight: starWeight, arbitrary: fc.constant<CronField>({ kind: 'star' }) },
    { weight: 3, arbitrary: fc.array(partArb(min, max, stepMax), { minLength: 1, maxLength: 3 }).map((parts): CronField => ({ kind: 'list', parts })) },
  );
}

/** Schedules that occur often enough to matter over a few days (days, months and weekdays mostly `*`). */
export const cronSpecArb: fc.Arbitrary<CronSpec> = fc.record({
  minute: fieldArb(0, 59, 30, 1),
  hour: fieldArb(0, 23, 12, 2),
  dom: fieldArb(1, 31, 10, 4),
  month: fieldArb(1, 12, 6, 6),
  dow: fieldArb(0, 7, 3, 3),
});
