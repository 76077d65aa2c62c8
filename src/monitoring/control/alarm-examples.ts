// Owns the alarm examples /alarm_examples serves: criteria templates for the check types Strata runs, over the metrics their runs produce.
import { assertWellMade, type AlarmExample, type AlarmExampleField } from './alarm-example-fill.js';

function integer(name: string, description: string): AlarmExampleField {
  return { name, description, type: 'integer' };
}

function text(name: string, description: string): AlarmExampleField {
  return { name, description, type: 'string' };
}

/** The two thresholds of a level example, in `unit`. */
function thresholds(unit: string): AlarmExampleField[] {
  return [integer('critical_threshold', `CRITICAL above this many ${unit}.`), integer('warning_threshold', `WARNING above this many ${unit} (below critical_threshold).`)];
}

/** Criteria that go CRITICAL above one threshold and WARNING above another, on `operand`, saying `what` in the messages (`unit` follows each threshold). */
function levels(operand: string, what: string, unit: string): string {
  return [
    `if (${operand} > \${critical_threshold}) {`,
    `  return new AlarmStatus(CRITICAL, '${what} is above \${critical_threshold}${unit}');`,
    '}',
    `if (${operand} > \${warning_threshold}) {`,
    `  return new AlarmStatus(WARNING, '${what} is above \${warning_threshold}${unit}');`,
    '}',
    `return new AlarmStatus(OK, '${what} is normal');`,
  ].join('\n');
}

/** Like levels, for a share that goes bad as it falls: CRITICAL below one threshold, WARNING below another. */
function lowLevels(operand: string, what: string): string {
  return [
    `if (${operand} < \${critical_threshold}) {`,
    `  return new AlarmStatus(CRITICAL, '${what} is below \${critical_threshold}%');`,
    '}',
    `if (${operand} < \${warning_threshold}) {`,
    `  return new AlarmStatus(WARNING, '${what} is below \${warning_threshold}%');`,
    '}',
    `return new AlarmStatus(OK, '${what} is normal');`,
  ].join('\n');
}

/** Criteria that return `bad` with `message` when `condition` holds, else OK with `okMessage`. */
function either(condition: string, bad: 'WARNING' | 'CRITICAL', message: string, okMessage: string): string {
  return [`if (${condition}) {`, `  return new AlarmStatus(${bad}, '${message}');`, '}', `return new AlarmStatus(OK, '${okMessage}');`].join('\n');
}

const REMOTE: readonly AlarmExample[] = [
  {
    id: 'remote.http_status_code',
    label: 'HTTP status code',
    description: 'CRITICAL when the server answers with a 5xx status, WARNING with a 4xx one, OK otherwise.',
    check_type: 'remote.http',
    criteria: [
      "if (metric['code'] regex '^5') {",
      "  return new AlarmStatus(CRITICAL, 'HTTP server error #{code}');",
      '}',
      "if (metric['code'] regex '^4') {",
      "  return new AlarmStatus(WARNING, 'HTTP client error #{code}');",
      '}',
      "return new AlarmStatus(OK, 'HTTP status #{code}');",
    ].join('\n'),
    fields: [],
  },
  {
    id: 'remote.http_response_time',
    label: 'HTTP response time',
    description: 'Levels on the time the whole request took (metric duration, in milliseconds).',
    check_type: 'remote.http',
    criteria: levels("metric['duration']", 'Response time', ' ms'),
    fields: thresholds('milliseconds'),
  },
  {
    id: 'remote.http_body_match_found',
    label: 'Body match - text found',
    description:
      'CRITICAL when what the check\'s body pattern (details.body) matched contains the text, such as an error page\'s wording; OK otherwise. The text is matched literally.',
    check_type: 'remote.http',
    criteria: either("metric['body_match'] regex '${string}'", 'CRITICAL', 'The body holds the text it should not', 'The body does not hold the text'),
    fields: [text('string', 'Text that must not appear in what details.body matched, matched literally.')],
  },
  {
    id: 'remote.http_body_match_missing',
    label: 'Body match - pattern not found',
    description: "CRITICAL when the check's body pattern (details.body) finds nothing in the body; OK when it matches. A check without details.body stays OK.",
    check_type: 'remote.http',
    criteria: either("metric['body_match'] == ''", 'CRITICAL', 'The body does not match the body pattern', 'The body matches the body pattern'),
    fields: [],
  },
  {
    id: 'remote.http_named_body_match_missing',
    label: 'Named body match - pattern not found',
    description: 'CRITICAL when the pattern details.body_matches.<key> finds nothing in the body (metric body_match_<key>); OK when it matches.',
    check_type: 'remote.http',
    criteria: either("metric['body_match_${key}'] == ''", 'CRITICAL', 'The body does not match a named body pattern', 'The body matches the named body pattern'),
    fields: [text('key', 'Key of the pattern in details.body_matches.')],
  },
  {
    id: 'remote.tcp_connection_time',
    label: 'TCP exchange time',
    description: 'Levels on the time the whole TCP exchange took (metric duration, in milliseconds).',
    check_type: 'remote.tcp',
    criteria: levels("metric['duration']", 'Exchange time', ' ms'),
    fields: thresholds('milliseconds'),
  },
  {
    id: 'remote.tcp_banner_mismatch',
    label: 'TCP banner mismatch',
    description: "CRITICAL when the server's first line does not match the check's details.banner_match; OK when it does.",
    check_type: 'remote.tcp',
    criteria: either("metric['banner_match'] == ''", 'CRITICAL', 'Unexpected banner: #{banner}', 'The banner matches'),
    fields: [],
  },
  {
    id: 'remote.tcp_certificate_error',
    label: 'TLS certificate does not verify',
    description: "WARNING when the server's certificate does not verify (metric cert_error, with details.ssl); OK when it does.",
    check_type: 'remote.tcp',
    criteria: either("metric['cert_error'] != ''", 'WARNING', 'Certificate: #{cert_error}', 'The certificate verifies'),
    fields: [],
  },
  {
    id: 'remote.ping_packet_loss',
    label: 'Ping packet loss',
    description: 'CRITICAL when fewer than 80% of the pings are answered, WARNING below 95% (metric available).',
    check_type: 'remote.ping',
    criteria: [
      "if (metric['available'] < 80) {",
      "  return new AlarmStatus(CRITICAL, 'Packet loss: #{available}% answered');",
      '}',
      "if (metric['available'] < 95) {",
      "  return new AlarmStatus(WARNING, 'Packet loss: #{available}% answered');",
      '}',
      "return new AlarmStatus(OK, 'No packet loss');",
    ].join('\n'),
    fields: [],
  },
  {
    id: 'remote.dns_address_match',
    label: 'DNS record address match',
    description: 'OK when the answer holds the address as one of its records, CRITICAL otherwise.',
    check_type: 'remote.dns',
    criteria: [
      "if (metric['answer'] regex '(^| )${address}( |$)') {",
      "  return new AlarmStatus(OK, 'The answer holds the address');",
      '}',
      "return new AlarmStatus(CRITICAL, 'The answer lacks the address: #{answer}');",
    ].join('\n'),
    fields: [text('address', 'Address (or other record text) the answer must hold, such as 192.0.2.10.')],
  },
  {
    id: 'remote.dns_response_code',
    label: 'DNS response code',
    description: 'CRITICAL when the server answers with anything but NOERROR (NXDOMAIN, SERVFAIL, REFUSED...).',
    check_type: 'remote.dns',
    criteria: either("metric['rcode'] != 'NOERROR'", 'CRITICAL', 'The server answered #{rcode}', 'The server answered NOERROR'),
    fields: [],
  },
  {
    id: 'remote.dns_response_time',
    label: 'DNS response time',
    description: 'Levels on the time until the answer came (metric rtt, in milliseconds).',
    check_type: 'remote.dns',
    criteria: levels("metric['rtt']", 'Response time', ' ms'),
    fields: thresholds('milliseconds'),
  },
  {
    id: 'remote.dns_spf_include',
    label: 'SPF record include',
    description: 'For a TXT query: WARNING when the answer has no include:<domain> clause for the domain, OK when it has.',
    check_type: 'remote.dns',
    criteria: either("metric['answer'] nregex 'include:${domain}( |$)'", 'WARNING', 'The SPF record lacks the include', 'The SPF record has the include'),
    fields: [text('domain', 'Domain the SPF record must include, such as _spf.example.com.')],
  },
];

const AGENT: readonly AlarmExample[] = [
  {
    id: 'agent.cpu_usage_average',
    label: 'CPU usage',
    description: 'Levels on the busy time of the CPUs, averaged (metric usage_average, in percent).',
    check_type: 'agent.cpu',
    criteria: levels("metric['usage_average']", 'CPU usage', '%'),
    fields: thresholds('percent'),
  },
  {
    id: 'agent.memory_usage',
    label: 'Memory usage',
    description: 'CRITICAL when programs use more than 90% of the memory, WARNING above 80% (actual_used of total).',
    check_type: 'agent.memory',
    criteria: [
      "if (percentage(metric['actual_used'], metric['total']) > 90) {",
      "  return new AlarmStatus(CRITICAL, 'Memory usage is above 90%');",
      '}',
      "if (percentage(metric['actual_used'], metric['total']) > 80) {",
      "  return new AlarmStatus(WARNING, 'Memory usage is above 80%');",
      '}',
      "return new AlarmStatus(OK, 'Memory usage is normal');",
    ].join('\n'),
    fields: [],
  },
  {
    id: 'agent.swap_usage',
    label: 'Swap usage',
    description: 'Levels on the share of swap space used (swap_used of swap_total); a host without swap stays OK.',
    check_type: 'agent.memory',
    criteria: levels("percentage(metric['swap_used'], metric['swap_total'])", 'Swap usage', '%'),
    fields: thresholds('percent'),
  },
  {
    id: 'agent.filesystem_usage',
    label: 'Filesystem usage',
    description: 'Levels on the share of the file system used (used of total).',
    check_type: 'agent.filesystem',
    criteria: levels("percentage(metric['used'], metric['total'])", 'Disk usage', '%'),
    fields: thresholds('percent'),
  },
  {
    id: 'agent.filesystem_free_inodes',
    label: 'Filesystem free inodes',
    description: 'CRITICAL when the share of free inodes (free_files of files) falls below one threshold, WARNING below another.',
    check_type: 'agent.filesystem',
    criteria: lowLevels("percentage(metric['free_files'], metric['files'])", 'Free inodes'),
    fields: [integer('critical_threshold', 'CRITICAL below this percent of free inodes.'), integer('warning_threshold', 'WARNING below this percent (above critical_threshold).')],
  },
  {
    id: 'agent.high_load_average',
    label: 'High load average',
    description: 'Levels on the 5-minute load average (metric 5m).',
    check_type: 'agent.load_average',
    criteria: levels("metric['5m']", 'The 5 minute load average', ''),
    fields: [integer('critical_threshold', 'CRITICAL above this load.'), integer('warning_threshold', 'WARNING above this load (below critical_threshold).')],
  },
  {
    id: 'agent.network_transmit_rate',
    label: 'Network transmit rate',
    description: "Levels on the bytes the check's interface sends per second, between two collections (rate of tx_bytes).",
    check_type: 'agent.network',
    criteria: levels("rate(metric['tx_bytes'])", 'Transmit rate', ' bytes/s'),
    fields: thresholds('bytes per second'),
  },
  {
    id: 'agent.network_receive_rate',
    label: 'Network receive rate',
    description: "Levels on the bytes the check's interface receives per second, between two collections (rate of rx_bytes).",
    check_type: 'agent.network',
    criteria: levels("rate(metric['rx_bytes'])", 'Receive rate', ' bytes/s'),
    fields: thresholds('bytes per second'),
  },
  {
    id: 'agent.network_link_down',
    label: 'Network link down',
    description: "CRITICAL when the check's interface has no carrier (metric link_state down).",
    check_type: 'agent.network',
    criteria: either("metric['link_state'] == 'down'", 'CRITICAL', 'The link is down', 'The link is #{link_state}'),
    fields: [],
  },
  {
    id: 'agent.disk_service_time',
    label: 'Disk service time',
    description: 'Levels on the busy time per completed I/O of the check\'s disk since the previous collection (metric service_time, in milliseconds).',
    check_type: 'agent.disk',
    criteria: levels("metric['service_time']", 'Service time', ' ms'),
    fields: thresholds('milliseconds'),
  },
];

/** Every alarm example, sorted by id as every list is; each checked well made when this module loads. */
export const ALARM_EXAMPLES: readonly AlarmExample[] = [...REMOTE, ...AGENT].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
for (const example of ALARM_EXAMPLES) assertWellMade(example);

/** One alarm example, or undefined. */
export function alarmExample(id: string): AlarmExample | undefined {
  return ALARM_EXAMPLES.find((example) => example.id === id);
}
