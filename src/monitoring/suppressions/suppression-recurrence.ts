// Owns reading a suppression's recurrence: its cron schedule (croner) in its time zone, and the occurrences next to a time.
import { Cron } from 'croner';
import { fieldError } from '../monitoring-errors.js';

/** A recurrence as stored: the schedule, its IANA time zone and how long each occurrence lasts (ms). */
export interface RecurrenceDoc {
  readonly schedule: string;
  readonly time_zone: string;
  readonly duration: number;
}

/** The time zone a recurrence without one reads its schedule in. */
export const RECURRENCE_TIME_ZONE_DEFAULT = 'UTC';

/** A recurrence ready to answer: the occurrences (start times, ms) nearest to a time. */
export interface CompiledRecurrence {
  readonly durationMs: number;
  /** The latest occurrence at or before `t`, or null when there is none (croner searches back to year 1). */
  latestAtOrBefore(t: number): number | null;
  /** The earliest occurrence at or after `t`, or null when there is none up to year 9999. */
  earliestAtOrAfter(t: number): number | null;
}

/** Whether `name` is an IANA time zone this process knows (Intl decides, as croner reads zones through Intl). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * A recurrence's schedule as a croner job that never runs (no function: croner starts no timer).
 * Five fields only (the schema refuses more and nicknames); day of month and day of week combine
 * with OR when both are restricted, as in Vixie cron. Throws MONITORING_FIELD_INVALID naming
 * `recurrence` when the zone is unknown or croner refuses the schedule.
 */
function cronOf(doc: RecurrenceDoc): Cron {
  if (!knownTimeZone(doc.time_zone)) throw fieldError('recurrence', `"time_zone": unknown time zone ${JSON.stringify(doc.time_zone)}`);
  try {
    return new Cron(doc.schedule, { timezone: doc.time_zone, mode: '5-part', paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : 'not a cron schedule';
    throw fieldError('recurrence', `"schedule": ${reason}`);
  }
}

/** The first element's time, or null. */
function timeOf(date: Date | null | undefined): number | null {
  return date === null || date === undefined ? null : date.getTime();
}

/**
 * Compiles a stored or submitted recurrence. croner's previousRuns(1, d) answers the latest run
 * strictly before d and nextRun(d) the earliest strictly after d, at whole seconds; occurrences
 * fall on whole minutes, so shifting by one ms makes both inclusive.
 */
export function compileRecurrence(doc: RecurrenceDoc): CompiledRecurrence {
  const cron = cronOf(doc);
  return {
    durationMs: doc.duration,
    latestAtOrBefore: (t) => timeOf(cron.previousRuns(1, new Date(t + 1))[0]),
    earliestAtOrAfter: (t) => timeOf(cron.nextRun(new Date(t - 1))),
  };
}
