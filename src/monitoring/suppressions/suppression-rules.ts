// Owns the rules of a suppression's fields: times (0 is now, a minute's grace), targets, the recurrence, and what may change once it started.
import { isDeepStrictEqual } from 'node:util';
import { fieldError } from '../monitoring-errors.js';
import { SUPPRESSION_PAST_GRACE_MS } from '../monitoring-limits.js';
import {
  SUPPRESSION_TARGET_KEYS,
  type RecurrenceBody,
  type SuppressionCreate,
  type SuppressionTargetKey,
  type SuppressionUpdate,
} from '../schemas/suppression-schema.js';
import { compileRecurrence, RECURRENCE_TIME_ZONE_DEFAULT, type RecurrenceDoc } from './suppression-recurrence.js';
import { windowHasOccurrence, type SuppressionWindow } from './suppression-window.js';

/** A suppression as stored (mon_suppression.doc): every field present, lists without repeats. */
export interface SuppressionDoc {
  readonly label: string | null;
  readonly start_time: number;
  readonly end_time: number;
  readonly entities: readonly string[];
  readonly checks: readonly string[];
  readonly alarms: readonly string[];
  readonly notification_plans: readonly string[];
  readonly recurrence: RecurrenceDoc | null;
}

/** The fields a body may give, in the order errors are looked for. */
const FIELDS = ['label', 'start_time', 'end_time', ...SUPPRESSION_TARGET_KEYS, 'recurrence'] as const;

/**
 * A time as given: 0 is now; up to SUPPRESSION_PAST_GRACE_MS in the past is taken as now; earlier
 * is MONITORING_FIELD_INVALID naming `key`.
 */
export function resolveTime(key: string, given: number, nowMs: number): number {
  if (given === 0) return nowMs;
  if (given < nowMs - SUPPRESSION_PAST_GRACE_MS) throw fieldError(key, 'must be 0 (now) or not in the past');
  return Math.max(given, nowMs);
}

/** A list as stored: null is none, repeats count once (first one kept). */
function listOf(given: readonly string[] | null | undefined): readonly string[] {
  return given === null || given === undefined ? [] : [...new Set(given)];
}

/** A recurrence as stored: the zone defaults to UTC. */
function recurrenceOf(given: RecurrenceBody | null | undefined): RecurrenceDoc | null {
  if (given === null || given === undefined) return null;
  return { schedule: given.schedule, time_zone: given.time_zone ?? RECURRENCE_TIME_ZONE_DEFAULT, duration: given.duration };
}

/** The time rule of a document (its recurrence compiled: MONITORING_FIELD_INVALID naming `recurrence` when it does not read). */
export function windowOf(doc: SuppressionDoc): SuppressionWindow {
  return { startMs: doc.start_time, endMs: doc.end_time, recurrence: doc.recurrence === null ? null : compileRecurrence(doc.recurrence) };
}

/** How many target items a document names, its four lists together (what SUPPRESSION_TARGET_ENTRIES_MAX counts per tenant). */
export function targetEntriesOf(doc: SuppressionDoc): number {
  return SUPPRESSION_TARGET_KEYS.reduce((sum, key) => sum + doc[key].length, 0);
}

/** The rules every complete document keeps: a target, end after start, and a recurrence that occurs in the window. */
function checkDoc(doc: SuppressionDoc): SuppressionDoc {
  if (SUPPRESSION_TARGET_KEYS.every((key) => doc[key].length === 0)) {
    throw fieldError('entities', 'at least one of entities, checks, alarms or notification_plans must name a target');
  }
  if (doc.end_time <= doc.start_time) throw fieldError('end_time', 'must be after start_time');
  if (!windowHasOccurrence(windowOf(doc))) throw fieldError('recurrence', '"schedule": no occurrence runs between start_time and end_time');
  return doc;
}

/** A new suppression's document from a body its schema admitted, at `nowMs`. */
export function createSuppressionDoc(body: SuppressionCreate, nowMs: number): SuppressionDoc {
  return checkDoc({
    label: body.label ?? null,
    start_time: resolveTime('start_time', body.start_time ?? 0, nowMs),
    end_time: resolveTime('end_time', body.end_time, nowMs),
    entities: listOf(body.entities),
    checks: listOf(body.checks),
    alarms: listOf(body.alarms),
    notification_plans: listOf(body.notification_plans),
    recurrence: recurrenceOf(body.recurrence),
  });
}

/** The stored form of one given field (times stay as given: 0 means now only where a time is resolved). */
function normalized(key: (typeof FIELDS)[number], body: SuppressionUpdate): unknown {
  if (key === 'recurrence') return recurrenceOf(body.recurrence);
  if (key === 'label') return body.label ?? null;
  if (key === 'start_time' || key === 'end_time') return body[key];
  return listOf(body[key as SuppressionTargetKey]);
}

/** Whether a given list holds the same ids as the stored one, in any order. */
function sameList(given: unknown, stored: readonly string[]): boolean {
  const ids = given as readonly string[];
  return ids.length === stored.length && ids.every((id) => stored.includes(id));
}

/**
 * Once started (start_time <= now) only end_time may change: every other field given must equal
 * the stored one (so a GET sent back with a new end_time passes); otherwise MONITORING_FIELD_INVALID names it.
 */
function checkUnchanged(stored: SuppressionDoc, body: SuppressionUpdate): void {
  for (const key of FIELDS) {
    if (key === 'end_time' || body[key] === undefined) continue;
    const given = normalized(key, body);
    const same = (SUPPRESSION_TARGET_KEYS as readonly string[]).includes(key) ? sameList(given, stored[key as SuppressionTargetKey]) : isDeepStrictEqual(given, stored[key]);
    if (!same) throw fieldError(key, 'cannot change once the suppression has started; only end_time can');
  }
}

/** The document after an update body its schema admitted, at `nowMs`: lists given replace the stored ones; fields left out stay. */
export function updateSuppressionDoc(stored: SuppressionDoc, body: SuppressionUpdate, nowMs: number): SuppressionDoc {
  const endTime = body.end_time === undefined ? stored.end_time : resolveTime('end_time', body.end_time, nowMs);
  if (stored.start_time <= nowMs) {
    checkUnchanged(stored, body);
    if (endTime <= stored.start_time) throw fieldError('end_time', 'must be after start_time');
    return { ...stored, end_time: endTime };
  }
  const changed: Record<string, unknown> = {};
  for (const key of FIELDS) if (body[key] !== undefined && key !== 'start_time' && key !== 'end_time') changed[key] = normalized(key, body);
  const startTime = body.start_time === undefined ? stored.start_time : resolveTime('start_time', body.start_time, nowMs);
  return checkDoc({ ...stored, ...changed, start_time: startTime, end_time: endTime });
}

