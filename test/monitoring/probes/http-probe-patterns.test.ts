// Tests remote.http body patterns: judged when a check is saved (schema, then rules, as the API does: unsafe ones are a 400 naming their key), and run over bounded text.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { checkDoc, type CheckContext } from '../../../src/monitoring/check-rules.js';
import { HTTP_CHECK_BODY_BYTES_MAX, HTTP_CHECK_BODY_MATCH_LENGTH_MAX, PATTERN_SUBJECT_LENGTH_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { bodyMatchMetrics, checkBodyPatterns } from '../../../src/monitoring/probes/http-body-match.js';
import type { CheckCreate, CheckUpdate } from '../../../src/monitoring/schemas/check-schema.js';
import { MONITORING_BODY_SCHEMAS } from '../../../src/monitoring/schemas/monitoring-body-schemas.js';
import { compileSafePattern, subjectLengthFor } from '../../../src/monitoring/safe-pattern.js';
import { bodyKey } from '../body-verdict.js';

const context: CheckContext = { zoneIds: ['mzdfw'], addressNames: ['web'] };
const http = (details: Record<string, unknown>) => ({ type: 'remote.http', details: { url: 'https://x.example', ...details }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web' });
/**
 * Bound on the CPU time (user + system, all threads of this process) of matching every pattern of a
 * run over a full-size body. Measured: a few ms; the polynomial pattern below takes about 5 s over
 * just 100 characters unbounded, and would never finish over the whole body. CPU time, not wall
 * time: a loaded machine that preempts this process stretches wall time, not the CPU it uses.
 */
const BODY_MATCH_WORST_CPU_MS = 2_000;
const createKey = (body: unknown) => bodyKey<CheckCreate>(MONITORING_BODY_SCHEMAS.check.create, body, (input) => checkDoc(input, context));

describe('remote.http body patterns when a check is saved', () => {
  it('accepts safe patterns in body and body_matches', () => {
    expect(createKey(http({ body: 'version \\d+', body_matches: { ok: '^OK$', word: '\\bready\\b' } }))).toBe('ok');
  });

  it('refuses an unsafe details.body as a field error naming details.body', () => {
    expect(createKey(http({ body: '(a+)+$' }))).toBe('details.body');
    expect(createKey(http({ body: '([a-z]' }))).toBe('details.body');
  });

  it('refuses an unsafe body_matches entry naming its key', () => {
    expect(createKey(http({ body_matches: { fine: 'ok', slow: '(x*)*y' } }))).toBe('details.body_matches.slow');
  });

  it('judges the patterns of an update that gives details, and leaves stored details alone otherwise', () => {
    const stored = checkDoc(http({ body: 'ok' }) as CheckCreate, context);
    const updateKey = (body: unknown) => bodyKey<CheckUpdate>(MONITORING_BODY_SCHEMAS.check.update, body, (input) => checkDoc(input, context, stored));
    expect(updateKey({ type: 'remote.http', details: { url: 'https://x.example', body: '(a+)+$' } })).toBe('details.body');
    expect(updateKey({ label: 'renamed' })).toBe('ok');
  });

  it('the error is MONITORING_FIELD_INVALID, an invalid (400) error with the reason in its problem', () => {
    let thrown: unknown;
    try {
      checkBodyPatterns({ url: 'https://x.example', body: '(a+)+$' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StrataError);
    expect((thrown as StrataError).code).toBe('MONITORING_FIELD_INVALID');
    expect((thrown as StrataError).kind).toBe('invalid');
    expect(String((thrown as StrataError).details['problem'])).toMatch(/backtrack/);
  });
});

describe('body_match metrics', () => {
  it('a stored pattern the checker now refuses matches nothing, and a long match is cut', () => {
    const metrics = bodyMatchMetrics({ url: 'http://x', body: '(a+)+$', body_matches: { long: 'z+' } }, Buffer.from(`aaa${'z'.repeat(5000)}`));
    expect(metrics['body_match']).toEqual({ type: 's', data: '', unit: 'unknown' });
    expect(String(metrics['body_match_long']?.data)).toHaveLength(HTTP_CHECK_BODY_MATCH_LENGTH_MAX);
    expect(bodyMatchMetrics({ url: 'http://x' }, Buffer.from('anything'))).toEqual({});
  });

  it('runs a polynomial pattern the save-time check admits over a full-size body without holding the event loop', () => {
    const slow = 'a*a*a*a*a*c';
    expect(createKey(http({ body: slow }))).toBe('ok');
    const started = process.cpuUsage();
    const metrics = bodyMatchMetrics({ url: 'http://x', body: slow, body_matches: { head: '^a{3}' } }, Buffer.alloc(HTTP_CHECK_BODY_BYTES_MAX, 'a'));
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(BODY_MATCH_WORST_CPU_MS);
    expect(metrics['body_match']?.data).toBe('');
    expect(metrics['body_match_head']?.data).toBe('aaa');
  });

  it('finds a match within the part of the body safe-pattern lets the pattern see, and not beyond', () => {
    const source = 'status: \\w+';
    const seen = subjectLengthFor(compileSafePattern(source));
    expect(seen).toBeGreaterThan(1024);
    expect(seen).toBeLessThanOrEqual(PATTERN_SUBJECT_LENGTH_MAX);
    const near = Buffer.concat([Buffer.alloc(seen - 100, 'x'), Buffer.from('status: healthy')]);
    expect(bodyMatchMetrics({ url: 'http://x', body: source }, near)['body_match']?.data).toBe('status: healthy');
    const far = Buffer.concat([Buffer.alloc(seen, 'x'), Buffer.from('status: healthy')]);
    expect(bodyMatchMetrics({ url: 'http://x', body: source }, far)['body_match']?.data).toBe('');
  });
});
