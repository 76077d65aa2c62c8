// Owns the rules of an alarm its schema cannot state: check_id stays, criteria follow the alarm language; and the stored doc.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { parseCriteria } from './alarm-language/parser.js';
import { AlarmParseError } from './alarm-language/parse-error.js';
import { checkCriteriaPatterns } from './alarms/criteria-patterns.js';
import { keep } from './body-merge.js';
import { fieldError } from './monitoring-errors.js';
import type { AlarmCreate, AlarmUpdate } from './schemas/alarm-schema.js';
import type { Metadata } from './schemas/field-schemas.js';

/** The stored fields of an alarm (besides id, entity and times). */
export interface AlarmDoc {
  readonly check_id: string;
  readonly notification_plan_id: string;
  readonly criteria: string | null;
  readonly label: string | null;
  readonly disabled: boolean;
  readonly metadata: Metadata | null;
}

/**
 * Checks criteria against the alarm language; a failure is MONITORING_ALARM_PARSE_FAILED whose details
 * carry the reference's fields (input, error_position, error_line, error_column, error_token, message).
 */
export function checkCriteria(criteria: string): void {
  try {
    parseCriteria(criteria);
    // regex/nregex literals must also be safe to run (compileSafePattern); a refused one is a parse error at it.
    checkCriteriaPatterns(criteria);
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

/**
 * The alarm a schema-valid body describes: on update check_id may only be repeated unchanged and
 * keys left out keep their stored value; criteria given are parsed with the alarm language.
 * Whether the check and plan exist is the service's business.
 */
export function alarmDoc(input: AlarmCreate): AlarmDoc;
export function alarmDoc(input: AlarmUpdate, existing: AlarmDoc): AlarmDoc;
export function alarmDoc(input: AlarmUpdate, existing?: AlarmDoc): AlarmDoc {
  if (existing !== undefined && input.check_id !== undefined && input.check_id !== existing.check_id) throw fieldError('check_id', 'cannot be changed');
  const checkId = existing?.check_id ?? input.check_id;
  const planId = input.notification_plan_id ?? existing?.notification_plan_id;
  assert(checkId !== undefined && planId !== undefined, 'an alarm create body has check_id and notification_plan_id (its schema requires them)');
  if (input.criteria !== undefined && input.criteria !== null) checkCriteria(input.criteria);
  return {
    check_id: checkId,
    notification_plan_id: planId,
    criteria: keep(input.criteria, existing?.criteria ?? null),
    label: keep(input.label, existing?.label ?? null),
    disabled: keep(input.disabled, existing?.disabled ?? false),
    metadata: keep(input.metadata, existing?.metadata ?? null),
  };
}
