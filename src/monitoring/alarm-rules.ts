// Owns the fields of an alarm and their validation, including parsing the criteria with the alarm language.
import { StrataError } from '../core/errors.js';
import { parseCriteria } from './alarm-language/parser.js';
import { AlarmParseError } from './alarm-language/parse-error.js';
import { fieldError } from './monitoring-errors.js';
import { CRITERIA_LENGTH_MAX } from './monitoring-limits.js';
import { bodyObject, bool, label, metadata, onlyKeys, present, required, text } from './field-rules.js';

/** The stored fields of an alarm (besides id, entity and times). */
export interface AlarmDoc {
  readonly check_id: string;
  readonly notification_plan_id: string;
  readonly criteria: string | null;
  readonly label: string | null;
  readonly disabled: boolean;
  readonly metadata: Readonly<Record<string, string>> | null;
}

const KEYS = ['check_id', 'notification_plan_id', 'criteria', 'label', 'disabled', 'metadata'];

/**
 * Checks criteria against the alarm language; a failure is a 400 alarmParseError whose details
 * carry the reference's fields (input, error_position, error_line, error_column, error_token, message).
 */
export function checkCriteria(criteria: string): void {
  try {
    parseCriteria(criteria);
  } catch (error) {
    if (!(error instanceof AlarmParseError)) throw error;
    const { position, line, column, token } = error.place;
    throw new StrataError('MONITORING_ALARM_PARSE_FAILED', `Failed to parse alarm criteria: ${error.message} at line ${line}, column ${column}`, {
      input: criteria,
      error_position: position,
      error_line: line,
      error_column: column,
      error_token: token,
      message: error.message,
    });
  }
}

function criteriaOf(value: unknown): string | null {
  if (value === null) return null;
  const criteria = text('criteria', value, 1, CRITERIA_LENGTH_MAX);
  checkCriteria(criteria);
  return criteria;
}

/** Validates an alarm body; with `existing`, an update (check_id may not change) keeping fields the body leaves out. */
export function parseAlarm(raw: unknown, existing?: AlarmDoc): AlarmDoc {
  const body = bodyObject(raw);
  onlyKeys(body, KEYS);
  const pick = <T>(key: string, parse: (v: unknown) => T, fallback: T): T => {
    const value = present(body, key);
    return value === undefined ? fallback : parse(value);
  };
  const checkId = existing === undefined ? text('check_id', required(body, 'check_id'), 1, 64) : existing.check_id;
  if (existing !== undefined && present(body, 'check_id') !== undefined && body['check_id'] !== existing.check_id) throw fieldError('check_id', 'cannot be changed');
  return {
    check_id: checkId,
    notification_plan_id:
      existing === undefined
        ? text('notification_plan_id', required(body, 'notification_plan_id'), 1, 64)
        : pick('notification_plan_id', (v) => text('notification_plan_id', v, 1, 64), existing.notification_plan_id),
    criteria: pick('criteria', criteriaOf, existing?.criteria ?? null),
    label: pick('label', (v) => (v === null ? null : label(v)), existing?.label ?? null),
    disabled: pick('disabled', (v) => bool('disabled', v), existing?.disabled ?? false),
    metadata: pick('metadata', metadata, existing?.metadata ?? null),
  };
}
