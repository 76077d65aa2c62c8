// Runs every alarm example, filled with sample values, through the parser and the evaluator the runtime uses, with results that reach each state it can return.
import { describe, expect, it } from 'vitest';
import type { AlarmState, Condition, Operand, Statement } from '../../../src/monitoring/alarm-language/ast.js';
import { parseCriteria } from '../../../src/monitoring/alarm-language/parser.js';
import { compileCriteria, evaluateCriteria } from '../../../src/monitoring/alarms/criteria-eval.js';
import type { CheckResult, ResultMetric } from '../../../src/monitoring/check-result.js';
import { fillExample } from '../../../src/monitoring/control/alarm-example-fill.js';
import { alarmExample, ALARM_EXAMPLES } from '../../../src/monitoring/control/alarm-examples.js';
import { checkType } from '../../../src/monitoring/control/check-type-catalogue.js';
import { metricEntry } from '../../../src/monitoring/control/check-type-metrics.js';

type Values = Readonly<Record<string, number | string>>;

/** One observation and the state it must give: this run's metrics, and the previous run's (60 s before) where rate() needs one. */
interface Case {
  readonly state: AlarmState;
  readonly metrics: Values;
  readonly previous?: Values;
}

/** Sample field values and cases of every example, by id. */
const SAMPLES: Readonly<Record<string, { readonly values: Values; readonly cases: readonly Case[] }>> = {
  'agent.cpu_usage_average': { values: { critical_threshold: 90, warning_threshold: 75 }, cases: levels('usage_average', 95.5, 80, 10) },
  'agent.disk_service_time': { values: { critical_threshold: 50, warning_threshold: 20 }, cases: levels('service_time', 60.2, 25, 3) },
  'agent.filesystem_free_inodes': {
    values: { critical_threshold: 5, warning_threshold: '010' },
    cases: [
      { state: 'CRITICAL', metrics: { free_files: 2, files: 100 } },
      { state: 'WARNING', metrics: { free_files: 8, files: 100 } },
      { state: 'OK', metrics: { free_files: 50, files: 100 } },
    ],
  },
  'agent.filesystem_usage': {
    values: { critical_threshold: 90, warning_threshold: 80 },
    cases: [
      { state: 'CRITICAL', metrics: { used: 95_000, total: 100_000 } },
      { state: 'WARNING', metrics: { used: 85_000, total: 100_000 } },
      { state: 'OK', metrics: { used: 10_000, total: 100_000 } },
    ],
  },
  'agent.high_load_average': { values: { critical_threshold: 8, warning_threshold: 4 }, cases: levels('5m', 9.5, 4.5, 0.3) },
  'agent.memory_usage': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { actual_used: 15_500_000_000, total: 16_000_000_000 } },
      { state: 'WARNING', metrics: { actual_used: 13_600_000_000, total: 16_000_000_000 } },
      { state: 'OK', metrics: { actual_used: 4_000_000_000, total: 16_000_000_000 } },
    ],
  },
  'agent.network_link_down': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { link_state: 'down' } },
      { state: 'OK', metrics: { link_state: 'up' } },
    ],
  },
  'agent.network_receive_rate': { values: { critical_threshold: 1_000_000, warning_threshold: 100_000 }, cases: rates('rx_bytes') },
  'agent.network_transmit_rate': { values: { critical_threshold: 1_000_000, warning_threshold: 100_000 }, cases: rates('tx_bytes') },
  'agent.swap_usage': {
    values: { critical_threshold: 50, warning_threshold: 25 },
    cases: [
      { state: 'CRITICAL', metrics: { swap_used: 60, swap_total: 100 } },
      { state: 'WARNING', metrics: { swap_used: 30, swap_total: 100 } },
      { state: 'OK', metrics: { swap_used: 1, swap_total: 100 } },
      { state: 'OK', metrics: { swap_used: 0, swap_total: 0 } },
    ],
  },
  'remote.dns_address_match': {
    values: { address: '192.0.2.10' },
    cases: [
      { state: 'OK', metrics: { answer: '192.0.2.11 192.0.2.10' } },
      // The address is matched literally and whole: neither a longer one nor dots standing for any character.
      { state: 'CRITICAL', metrics: { answer: '192.0.2.100' } },
      { state: 'CRITICAL', metrics: { answer: '192x0x2x10' } },
    ],
  },
  'remote.dns_response_code': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { rcode: 'NXDOMAIN' } },
      { state: 'OK', metrics: { rcode: 'NOERROR' } },
    ],
  },
  'remote.dns_response_time': { values: { critical_threshold: 100, warning_threshold: 50 }, cases: levels('rtt', 150.5, 60, 3.2) },
  'remote.dns_spf_include': {
    values: { domain: '_spf.example.com' },
    cases: [
      { state: 'OK', metrics: { answer: 'v=spf1 include:_spf.example.com -all' } },
      { state: 'WARNING', metrics: { answer: 'v=spf1 include:_spf.example.community -all' } },
      { state: 'WARNING', metrics: { answer: 'v=spf1 -all' } },
    ],
  },
  'remote.http_body_match_found': {
    values: { string: 'Error (500)' },
    cases: [
      { state: 'CRITICAL', metrics: { body_match: 'Fatal Error (500) here' } },
      { state: 'OK', metrics: { body_match: 'Error 500' } },
    ],
  },
  'remote.http_body_match_missing': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { body_match: '' } },
      { state: 'OK', metrics: { body_match: 'Welcome' } },
    ],
  },
  'remote.http_named_body_match_missing': {
    values: { key: 'title' },
    cases: [
      { state: 'CRITICAL', metrics: { body_match_title: '' } },
      { state: 'OK', metrics: { body_match_title: '<title>' } },
    ],
  },
  'remote.http_response_time': { values: { critical_threshold: 2000, warning_threshold: 1000 }, cases: levels('duration', 2500, 1500, 100) },
  'remote.http_status_code': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { code: '503' } },
      { state: 'WARNING', metrics: { code: '404' } },
      { state: 'OK', metrics: { code: '200' } },
    ],
  },
  'remote.ping_packet_loss': { values: {}, cases: levels('available', 60, 80, 100) },
  'remote.tcp_banner_mismatch': {
    values: {},
    cases: [
      { state: 'CRITICAL', metrics: { banner: 'SSH-2.0-OpenSSH', banner_match: '' } },
      { state: 'OK', metrics: { banner: '220 mail ESMTP', banner_match: '220' } },
    ],
  },
  'remote.tcp_certificate_error': {
    values: {},
    cases: [
      { state: 'WARNING', metrics: { cert_error: 'self-signed certificate' } },
      { state: 'OK', metrics: { cert_error: '' } },
    ],
  },
  'remote.tcp_connection_time': { values: { critical_threshold: 1000, warning_threshold: 500 }, cases: levels('duration', 1500, 700, 20) },
};

/** CRITICAL, WARNING and OK cases of one metric. */
function levels(name: string, critical: number, warning: number, ok: number): Case[] {
  return [
    { state: 'CRITICAL', metrics: { [name]: critical } },
    { state: 'WARNING', metrics: { [name]: warning } },
    { state: 'OK', metrics: { [name]: ok } },
  ];
}

/** Cases of a byte counter over 60 s: 2 MB/s, 200 kB/s and 10 kB/s. */
function rates(name: string): Case[] {
  return [
    { state: 'CRITICAL', metrics: { [name]: 5_000_000 + 120_000_000 }, previous: { [name]: 5_000_000 } },
    { state: 'WARNING', metrics: { [name]: 5_000_000 + 12_000_000 }, previous: { [name]: 5_000_000 } },
    { state: 'OK', metrics: { [name]: 5_000_000 + 600_000 }, previous: { [name]: 5_000_000 } },
  ];
}

const NOW_MS = 1_790_000_000_000;
const PERIOD_MS = 60_000;

/** A result of an example's check type: each metric typed and united as the catalogue lists it. */
function resultOf(type: string, values: Values, timestampMs: number): CheckResult {
  const metrics: Record<string, ResultMetric> = {};
  for (const [name, data] of Object.entries(values)) {
    const entry = metricEntry(type, name);
    expect(entry, `${type} produces ${name}`).toBeDefined();
    metrics[name] = { type: entry?.type ?? 's', data, unit: entry?.unit ?? 'unknown' };
  }
  return { monitoringZoneId: 'mzdfw', timestampMs, available: true, status: 'sample', metrics };
}

/** Metric names an operand reads. */
function metricsOfOperand(operand: Operand): string[] {
  if (operand.kind === 'metric') return [operand.name];
  if (operand.kind === 'previous' || operand.kind === 'rate') return [operand.metric.name];
  if (operand.kind === 'percentage') return [...metricsOfOperand(operand.part), ...metricsOfOperand(operand.whole)];
  return [];
}

function metricsOfCondition(condition: Condition): string[] {
  if (condition.kind === 'compare') return [...metricsOfOperand(condition.left), ...metricsOfOperand(condition.right)];
  return [...metricsOfCondition(condition.left), ...metricsOfCondition(condition.right)];
}

/** The metrics and return states of statements. */
function walk(body: readonly Statement[], metrics: Set<string>, states: Set<AlarmState>): void {
  for (const statement of body) {
    if (statement.kind === 'return') states.add(statement.state);
    else {
      for (const name of metricsOfCondition(statement.condition)) metrics.add(name);
      walk(statement.body, metrics, states);
    }
  }
}

describe('alarm examples', () => {
  it('form a useful set: at least 14, every id sampled here, each for a type Strata runs', () => {
    expect(ALARM_EXAMPLES.length).toBeGreaterThanOrEqual(14);
    expect(Object.keys(SAMPLES).sort()).toEqual(ALARM_EXAMPLES.map((example) => example.id));
    const ids = ALARM_EXAMPLES.map((example) => example.id);
    expect(ids).toEqual([...ids].sort());
    for (const example of ALARM_EXAMPLES) {
      expect(checkType(example.check_type), `${example.id}: ${example.check_type} runs`).toBeDefined();
      expect(example.id.split('.')[0]).toBe(example.check_type.split('.')[0]);
      expect(Object.keys(example).sort()).toEqual(['check_type', 'criteria', 'description', 'fields', 'id', 'label']);
      expect(alarmExample(example.id)).toBe(example);
    }
    expect(alarmExample('remote.ssh_fingerprint_match')).toBeUndefined();
  });

  it.each(ALARM_EXAMPLES.map((example) => [example.id, example] as const))('%s: filled, it parses, reads only metrics its type produces, and reaches each of its states', (_id, example) => {
    const sample = SAMPLES[example.id];
    expect(sample).toBeDefined();
    const bound = fillExample(example, sample?.values ?? {});
    expect(bound).not.toContain('${');
    const tree = parseCriteria(bound);
    const metrics = new Set<string>();
    const states = new Set<AlarmState>();
    walk(tree.body, metrics, states);
    // No example relies on the default return: each ends with an unconditional return.
    expect(tree.body.at(-1)?.kind).toBe('return');
    for (const name of metrics) expect(metricEntry(example.check_type, name), `${example.check_type} produces ${name}`).toBeDefined();
    const compiled = compileCriteria(bound);
    const reached = new Set<AlarmState>();
    for (const c of sample?.cases ?? []) {
      const current = resultOf(example.check_type, c.metrics, NOW_MS);
      const previous = c.previous === undefined ? null : resultOf(example.check_type, c.previous, NOW_MS - PERIOD_MS);
      const verdict = evaluateCriteria(compiled, current, previous);
      expect(verdict.state, `${example.id} on ${JSON.stringify(c.metrics)}: ${verdict.status}`).toBe(c.state);
      // Every message names what it found, with every #{metric} filled in.
      expect(verdict.status).not.toMatch(/#\{|Matched/);
      reached.add(verdict.state);
    }
    expect([...reached].sort()).toEqual([...states].sort());
  });

  it('an unavailable run goes CRITICAL through the evaluator unless a branch decides otherwise', () => {
    const example = alarmExample('remote.http_status_code');
    expect(example).toBeDefined();
    const compiled = compileCriteria(fillExample(example!, {}));
    const down: CheckResult = { monitoringZoneId: 'mzdfw', timestampMs: NOW_MS, available: false, status: 'connection refused', metrics: {} };
    expect(evaluateCriteria(compiled, down, null)).toEqual({ state: 'CRITICAL', status: 'Check failed: connection refused' });
  });
});
