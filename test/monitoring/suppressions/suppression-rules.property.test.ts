// Properties of the suppression field rules: times (0 is now, a minute's grace), targets, repeats, end after start, and what an update may change before and after the start.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SUPPRESSION_PAST_GRACE_MS } from '../../../src/monitoring/monitoring-limits.js';
import type { SuppressionCreate, SuppressionUpdate } from '../../../src/monitoring/schemas/suppression-schema.js';
import { createSuppressionDoc, resolveTime, updateSuppressionDoc, type SuppressionDoc } from '../../../src/monitoring/suppressions/suppression-rules.js';

const NOW = 1_750_000_000_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const LISTS = ['entities', 'checks', 'alarms', 'notification_plans'] as const;

/** The key a thrown MONITORING_FIELD_INVALID names, or undefined when `work` does not throw. */
function keyOf(work: () => unknown): string | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    const e = error as { code?: string; details?: { key?: string } };
    expect(e.code).toBe('MONITORING_FIELD_INVALID');
    return e.details?.key;
  }
}

/** A time as a body gives it: 0, inside the grace, before it, or ahead. */
const givenTime = fc.oneof(
  fc.constant(0),
  fc.integer({ min: NOW - SUPPRESSION_PAST_GRACE_MS, max: NOW }),
  fc.integer({ min: NOW - 10 * SUPPRESSION_PAST_GRACE_MS, max: NOW - SUPPRESSION_PAST_GRACE_MS - 1 }),
  fc.integer({ min: NOW + 1, max: NOW + 3 * 86_400_000 }),
);
/** A time in the next two hours, so that windows without an occurrence of an hourly recurrence happen. */
const soonTime = fc.integer({ min: NOW + 1, max: NOW + 2 * HOUR_MS });
/** A few ids, so that repeats happen. */
const ids = fc.array(fc.constantFrom('enA', 'enB', 'enC', 'npX'), { maxLength: 6 });
const pairs = fc.array(fc.constantFrom('enA:chA', 'enA:chB', 'enB:alA'), { maxLength: 6 });
const list = (items: fc.Arbitrary<string[]>): fc.Arbitrary<string[] | null | undefined> => fc.oneof(items, fc.constant(null), fc.constant(undefined));
/** UTC recurrences with their period: every minute for a minute (covers every time), and on the hour for 5 minutes (NOW, 6:40 past an hour, is not covered). */
const RECURRENCES = [
  { schedule: '* * * * *', duration: MINUTE_MS, periodMs: MINUTE_MS },
  { schedule: '0 * * * *', duration: 5 * MINUTE_MS, periodMs: HOUR_MS },
] as const;
/** One of those, or none. */
const recurrence = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  ...RECURRENCES.map(({ schedule, duration }) => fc.constant({ schedule, duration })),
);

/** Whether [start, end) meets some [occ, occ + duration) of the UTC recurrence given (occurrences at whole multiples of its period), by walking the occurrences. */
function coversSome(given: { readonly schedule: string; readonly duration: number }, start: number, end: number): boolean {
  const { periodMs } = RECURRENCES.find((r) => r.schedule === given.schedule)!;
  for (let occ = Math.floor((start - given.duration) / periodMs) * periodMs; occ < end; occ += periodMs) {
    if (Math.max(occ, start) < Math.min(occ + given.duration, end)) return true;
  }
  return false;
}

const createBody: fc.Arbitrary<SuppressionCreate> = fc
  .record({
    label: fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ minLength: 1, maxLength: 5 })),
    start_time: fc.oneof(fc.constant(undefined), givenTime, soonTime),
    end_time: fc.oneof(givenTime, soonTime),
    entities: list(ids),
    checks: list(pairs),
    alarms: list(pairs),
    notification_plans: list(ids),
    recurrence,
  })
  .map((body) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as unknown as SuppressionCreate);

/** What the rules should decide for a create: the key of the first broken rule, or the times. */
function expectedCreate(body: SuppressionCreate): { key: string } | { start: number; end: number } {
  const resolve = (t: number): number | undefined => (t === 0 ? NOW : t < NOW - SUPPRESSION_PAST_GRACE_MS ? undefined : Math.max(t, NOW));
  const start = resolve(body.start_time ?? 0);
  if (start === undefined) return { key: 'start_time' };
  const end = resolve(body.end_time);
  if (end === undefined) return { key: 'end_time' };
  if (LISTS.every((key) => (body[key] ?? []).length === 0)) return { key: 'entities' };
  if (end <= start) return { key: 'end_time' };
  if (body.recurrence && !coversSome(body.recurrence, start, end)) return { key: 'recurrence' };
  return { start, end };
}

describe('suppression rules', () => {
  it('resolveTime: 0 is now, up to the grace in the past is now, the future stays, earlier is refused naming the key', () => {
    fc.assert(
      fc.property(givenTime, (t) => {
        const key = keyOf(() => resolveTime('start_time', t, NOW));
        if (t !== 0 && t < NOW - SUPPRESSION_PAST_GRACE_MS) expect(key).toBe('start_time');
        else expect(resolveTime('start_time', t, NOW)).toBe(t === 0 ? NOW : Math.max(t, NOW));
      }),
      { numRuns: 500 },
    );
  });

  it('a create is refused naming the first broken rule, or stored with resolved times, lists without repeats and defaults', () => {
    fc.assert(
      fc.property(createBody, (body) => {
        const expected = expectedCreate(body);
        if ('key' in expected) {
          expect(keyOf(() => createSuppressionDoc(body, NOW))).toBe(expected.key);
          return;
        }
        const doc = createSuppressionDoc(body, NOW);
        expect([doc.start_time, doc.end_time]).toEqual([expected.start, expected.end]);
        for (const key of LISTS) expect(doc[key]).toEqual([...new Set(body[key] ?? [])]);
        expect(doc.label).toBe(body.label ?? null);
        expect(doc.recurrence).toEqual(body.recurrence ? { schedule: body.recurrence.schedule, time_zone: 'UTC', duration: body.recurrence.duration } : null);
      }),
      { numRuns: 1000 },
    );
  });

  /** A stored suppression starting at `start` (ms after NOW; <= 0 means started). */
  function stored(startOffset: number): SuppressionDoc {
    return {
      label: 'maint',
      start_time: NOW + startOffset,
      end_time: NOW + startOffset + 3_600_000,
      entities: ['enA', 'enB'],
      checks: [],
      alarms: ['enA:alA'],
      notification_plans: [],
      recurrence: null,
    };
  }

  const updateBody: fc.Arbitrary<SuppressionUpdate> = fc
    .record({
      label: fc.oneof(fc.constant(undefined), fc.constant('maint'), fc.constant(null), fc.constant('other')),
      start_time: fc.oneof(fc.constant(undefined), givenTime),
      end_time: fc.oneof(fc.constant(undefined), givenTime),
      entities: fc.oneof(fc.constant(undefined), fc.constant(['enB', 'enA']), fc.constant(['enA']), fc.constant(null)),
      alarms: fc.oneof(fc.constant(undefined), fc.constant(['enA:alA', 'enA:alA']), fc.constant([])),
      recurrence: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant({ schedule: '* * * * *', duration: MINUTE_MS })),
    })
    .map((body) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as SuppressionUpdate);

  it('once started only end_time may change: any other field given with a new value is refused naming it; the same values pass', () => {
    fc.assert(
      fc.property(fc.integer({ min: -3_000_000, max: 0 }), updateBody, (offset, body) => {
        const before = stored(offset);
        const changes: string[] = [];
        if (body.label !== undefined && body.label !== 'maint') changes.push('label');
        if (body.start_time !== undefined && body.start_time !== before.start_time) changes.push('start_time');
        if (body.entities !== undefined && !(body.entities !== null && new Set(body.entities).size === 2)) changes.push('entities');
        if (body.alarms?.length === 0) changes.push('alarms');
        if (body.recurrence !== undefined && body.recurrence !== null) changes.push('recurrence');
        const end = body.end_time === undefined ? before.end_time : body.end_time === 0 ? NOW : body.end_time < NOW - SUPPRESSION_PAST_GRACE_MS ? undefined : Math.max(body.end_time, NOW);
        const key = keyOf(() => updateSuppressionDoc(before, body, NOW));
        if (end === undefined) return void expect(key).toBe('end_time');
        if (changes.length > 0) return void expect(key).toBe(changes[0]);
        if (end <= before.start_time) return void expect(key).toBe('end_time');
        expect(key).toBeUndefined();
        expect(updateSuppressionDoc(before, body, NOW)).toEqual({ ...before, end_time: end });
      }),
      { numRuns: 1000 },
    );
  });

  it('before the start every field may change: given lists replace, omitted fields stay, and the create rules hold for the result', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_000_000 }), updateBody, (offset, body) => {
        const before = stored(offset);
        const key = keyOf(() => updateSuppressionDoc(before, body, NOW));
        if (key !== undefined) {
          // Whatever is refused is refused by a create of the same merged fields too.
          const merged = { ...before, ...body, start_time: body.start_time ?? before.start_time, end_time: body.end_time ?? before.end_time } as SuppressionCreate;
          expect(keyOf(() => createSuppressionDoc(merged, NOW))).toBeDefined();
          return;
        }
        const after = updateSuppressionDoc(before, body, NOW);
        expect(after.label).toBe(body.label === undefined ? before.label : body.label);
        expect(after.entities).toEqual(body.entities === undefined ? before.entities : [...new Set(body.entities ?? [])]);
        expect(after.alarms).toEqual(body.alarms === undefined ? before.alarms : [...new Set(body.alarms)]);
        expect(after.checks).toEqual(before.checks);
        expect(after.end_time).toBeGreaterThan(after.start_time);
        expect(LISTS.some((k) => after[k].length > 0)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
