// Owns the tests of `strata replay --convert`: a recording of mixed traffic converts to exactly the stored points, with the right counts, under backpressure.
import { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pack } from 'msgpackr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeRecording } from '../../src/recording/recording-codec.js';
import { RECORDING_FORMAT_VERSION } from '../../src/recording/recording-limits.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';
import { CONVERT_OUT_FILE_MODE, convertRecordings, openConvertOutput, type ConvertSummary } from '../../src/replay/convert-recording.js';
import type { PeerPoint } from '../../src/replay/peer-formats.js';

const T0 = 1_700_000_000_000;
const JSON_TYPE = 'application/json';
const MSGPACK_TYPE = 'application/x-msgpack';

function header(sequence: number): RecordingHeader {
  return { kind: 'header', version: RECORDING_FORMAT_VERSION, startedAtMs: T0, sequence, producer: 'test', description: 'convert test' };
}

let atMs = 0;
function exchange(url: string, status: number, body: unknown, contentType: string | null = JSON_TYPE, method = 'POST', tenant = '100000'): RecordedExchange {
  const bytes = body === null ? null : Buffer.isBuffer(body) ? body : contentType?.startsWith(MSGPACK_TYPE) === true ? pack(body) : Buffer.from(JSON.stringify(body));
  return { kind: 'exchange', atMs: (atMs += 5), method, url, tenant, contentType: bytes === null ? null : contentType, body: bytes, status, durationMs: 1 };
}

function metric(metricName: string, metricValue: unknown, collectionTime: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { metricName, metricValue, collectionTime, ttlInSeconds: 86400, ...extra };
}

/** Traffic of every kind, with the points Strata stored from it listed in `stored`. */
function firstFile(): RecordingFrame[] {
  return [
    // JSON: two numbers stored, one string stored but not convertible, one null value skipped as Blueflood does.
    exchange('/ingest/v2.0/100000/ingest', 200, [metric('cpu.user', 1, T0), metric('cpu.user', 2.5, T0 + 1000), metric('build.tag', 'v1.2', T0), metric('cpu.idle', null, T0)]),
    // Hand-written JSON: JSON.stringify and msgpackr both write -0 as 0, clients need not.
    exchange('/ingest/v2.0/100000/ingest', 200, Buffer.from(`[{"metricName":"zero","metricValue":-0,"collectionTime":${T0},"ttlInSeconds":60}]`)),
    // msgpack, charset parameter and a query string on the URL: still the ingest route.
    exchange('/ingest/v2.0/100000/ingest?trace=1', 200, [metric('mem used,kb', 3.25, T0 + 2000), metric('mem used,kb', 1e21, T0 + 3000)], `${MSGPACK_TYPE}; charset=binary`),
    // Multi: each point names its tenant.
    exchange('/ingest/v2.0/100000/ingest/multi', 200, [metric('disk', 7, T0, { tenantId: '200000' }), metric('disk', 8, T0, { tenantId: '100000' })]),
    // 207: the valid point was stored, the one with a text time was not.
    exchange('/ingest/v2.0/100000/ingest', 207, [metric('net.rx', 0.1, T0 + 4000), metric('net.rx', 3, 'yesterday')]),
    // Refused outright and overloaded: nothing stored.
    exchange('/ingest/v2.0/100000/ingest', 400, [metric('never.a', 1, T0)]),
    exchange('/ingest/v2.0/100000/ingest', 503, [metric('never.b', 1, T0)]),
    // Queries carry no points.
    exchange('/metrics/v2.0/100000/views/cpu.user?from=1&to=2&points=10', 200, null, null, 'GET'),
    { kind: 'gap', atMs: (atMs += 1), dropped: 3 },
  ];
}

/** The second file of the rotation: a msgpack NaN (the store refuses it), a '#' name, and a body that does not decode. */
function secondFile(): RecordingFrame[] {
  return [
    exchange('/ingest/v2.0/100000/ingest', 207, [metric('load', 0.75, T0 + 5000), metric('load', Number.NaN, T0 + 6000)], MSGPACK_TYPE),
    exchange('/ingest/v2.0/300000/ingest', 200, [metric('#hash', 4, T0 + 7000)], JSON_TYPE, 'POST', '300000'),
    exchange('/ingest/v2.0/100000/ingest', 200, Buffer.from('[{"metricName": "cut')),
  ];
}

const STORED: readonly PeerPoint[] = [
  { tenant: '100000', metric: 'cpu.user', timestampMs: T0, value: 1 },
  { tenant: '100000', metric: 'cpu.user', timestampMs: T0 + 1000, value: 2.5 },
  { tenant: '100000', metric: 'zero', timestampMs: T0, value: -0 },
  { tenant: '100000', metric: 'mem used,kb', timestampMs: T0 + 2000, value: 3.25 },
  { tenant: '100000', metric: 'mem used,kb', timestampMs: T0 + 3000, value: 1e21 },
  { tenant: '200000', metric: 'disk', timestampMs: T0, value: 7 },
  { tenant: '100000', metric: 'disk', timestampMs: T0, value: 8 },
  { tenant: '100000', metric: 'net.rx', timestampMs: T0 + 4000, value: 0.1 },
  { tenant: '100000', metric: 'load', timestampMs: T0 + 5000, value: 0.75 },
  { tenant: '300000', metric: '#hash', timestampMs: T0 + 7000, value: 4 },
];

/** A writable that keeps what it is given. */
class Collect extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    callback();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function vmPoints(text: string): PeerPoint[] {
  return text
    .trimEnd()
    .split('\n')
    .flatMap((line) => {
      const { metric, values, timestamps } = JSON.parse(line) as { metric: { __name__: string; tenant: string }; values: number[]; timestamps: number[] };
      return values.map((value, i) => ({ tenant: metric.tenant, metric: metric.__name__, timestampMs: timestamps[i] as number, value }));
    });
}

function expectPoints(actual: readonly PeerPoint[], expected: readonly PeerPoint[]): void {
  expect(actual).toEqual(expected);
  actual.forEach((p, i) => expect(Object.is(p.value, expected[i]?.value)).toBe(true));
}

describe('convertRecordings', () => {
  let dir: string;
  let paths: string[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-convert-'));
    atMs = 0;
    // Rotation order on disk: `.1` is the older file; the caller passes files oldest first.
    paths = [join(dir, 'traffic.rec.1'), join(dir, 'traffic.rec')];
    await writeFile(paths[0] as string, encodeRecording(header(0), firstFile()));
    await writeFile(paths[1] as string, encodeRecording(header(1), secondFile()));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const COUNTS: Omit<ConvertSummary, 'points' | 'bytesWritten' | 'unrepresentable'> = {
    frames: 12,
    ingestRequests: 8,
    skippedStrings: 1,
    rejected: 2,
    skippedRequests: 1,
    droppedRequests: 3,
  };

  it('writes exactly the stored numeric points as VictoriaMetrics import lines', async () => {
    const out = new Collect();
    const summary = await convertRecordings(paths, 'vm', out);
    const text = out.text();
    expectPoints(vmPoints(text), STORED);
    expect(summary).toEqual({ ...COUNTS, points: STORED.length, unrepresentable: 0, bytesWritten: Buffer.byteLength(text) });
    // One line per series of each request: the two cpu.user points share one.
    expect(text.split('\n')[0]).toBe('{"metric":{"__name__":"cpu.user","tenant":"100000"},"values":[1,2.5],"timestamps":[1700000000000,1700000001000]}');
  });

  it('writes the same points as InfluxDB line protocol, leaving out the one InfluxDB would read as a comment', async () => {
    const out = new Collect();
    const summary = await convertRecordings(paths, 'influx', out);
    expect(out.text()).toBe(
      [
        'cpu.user,tenant=100000 value=1 1700000000000',
        'cpu.user,tenant=100000 value=2.5 1700000001000',
        'zero,tenant=100000 value=-0 1700000000000',
        'mem\\ used\\,kb,tenant=100000 value=3.25 1700000002000',
        'mem\\ used\\,kb,tenant=100000 value=1e+21 1700000003000',
        'disk,tenant=200000 value=7 1700000000000',
        'disk,tenant=100000 value=8 1700000000000',
        'net.rx,tenant=100000 value=0.1 1700000004000',
        'load,tenant=100000 value=0.75 1700000005000',
        '',
      ].join('\n'),
    );
    expect(summary).toEqual({ ...COUNTS, points: STORED.length - 1, unrepresentable: 1, bytesWritten: Buffer.byteLength(out.text()) });
  });

  it('waits for drain before writing more', async () => {
    // A stream that is full after every write and drains a little later; writing while full is the bug.
    const out = new (class extends EventEmitter {
      full = false;
      overruns = 0;
      text = '';
      write(chunk: Buffer): boolean {
        if (this.full) this.overruns += 1;
        this.full = true;
        this.text += chunk.toString('utf8');
        setTimeout(() => {
          this.full = false;
          this.emit('drain');
        }, 1);
        return false;
      }
    })();
    const summary = await convertRecordings(paths, 'vm', out as unknown as NodeJS.WritableStream);
    expect(out.overruns).toBe(0);
    expectPoints(vmPoints(out.text), STORED);
    expect(summary.points).toBe(STORED.length);
  });

  it('writes nothing for a recording without stored ingest requests', async () => {
    const path = join(dir, 'queries.rec');
    await writeFile(path, encodeRecording(header(0), [exchange('/metrics/v2.0/100000/metrics/search?query=a*', 200, null, null, 'GET')]));
    const out = new Collect();
    const summary = await convertRecordings([path], 'influx', out);
    expect(out.text()).toBe('');
    expect(summary).toEqual({ frames: 1, ingestRequests: 0, points: 0, skippedStrings: 0, rejected: 0, skippedRequests: 0, bytesWritten: 0, unrepresentable: 0, droppedRequests: 0 });
  });

  it('fails with the reader’s coded error on a file that is not a recording', async () => {
    const path = join(dir, 'not.rec');
    await writeFile(path, 'hello, world');
    await expect(convertRecordings([path], 'vm', new Collect())).rejects.toMatchObject({ code: 'RECORDING_NOT_A_RECORDING' });
  });
});

describe('openConvertOutput', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-convert-out-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writeAll(path: string, text: string): Promise<void> {
    const stream = openConvertOutput(path);
    stream.write(text);
    await new Promise<void>((done) => stream.end(done));
  }

  it('creates the file readable by its owner only (0600), whatever the umask allows', async () => {
    const path = join(dir, 'out.vm');
    const previous = process.umask(0o022);
    try {
      await writeAll(path, 'line\n');
    } finally {
      process.umask(previous);
    }
    expect(statSync(path).mode & 0o777).toBe(CONVERT_OUT_FILE_MODE);
    expect(CONVERT_OUT_FILE_MODE).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('line\n');
  });

  it('truncates an existing regular file, which keeps its mode', async () => {
    const path = join(dir, 'out.vm');
    await writeFile(path, 'a much longer earlier content\n');
    await chmod(path, 0o640);
    await writeAll(path, 'new\n');
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it('refuses a symbolic link instead of following it, leaving its target alone', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep me');
    const link = join(dir, 'out.vm');
    symlinkSync(victim, link);
    expect(() => openConvertOutput(link)).toThrow(/is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const dangling = join(dir, 'dangling.vm');
    symlinkSync(join(dir, 'nowhere'), dangling);
    expect(() => openConvertOutput(dangling)).toThrow(/is a symbolic link/);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('refuses what is not a regular file (a FIFO without a reader, a directory) with CONFIG_INVALID', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => openConvertOutput(fifo)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => openConvertOutput(dir)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
