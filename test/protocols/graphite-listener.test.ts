// Tests the Graphite plaintext listener with a real store and real TCP clients: framing, limits, backpressure, retries, close.
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import type { PointColumns } from '../../src/model/point-columns.js';
import { GraphiteListener, type GraphiteListenerOptions } from '../../src/protocols/graphite-listener.js';
import type { Store, StoreLogger, WriteOptions, WriteResult } from '../../src/store-types.js';
import { GRAPHITE_LINE_BYTES_MAX } from '../../src/wire/protocol-limits.js';
import { openTestStore, T_NOON, type TestStore } from '../store-harness.js';

const TENANT = 't1';
const T_SECONDS = T_NOON / 1000;

/** A logger that keeps every line. */
function recordingLogger(): StoreLogger & { readonly lines: { level: string; obj: Record<string, unknown>; msg?: string }[] } {
  const lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** A store whose writeColumns calls go through `hook` first (the hook may wait or throw). */
function hookedStore(store: Store, hook: (columns: PointColumns, call: number) => Promise<void>): Store & { calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    write: (points, options) => store.write(points, options),
    query: (request) => store.query(request),
    plan: (request) => store.plan(request),
    listMetrics: (tenant, options) => store.listMetrics(tenant, options),
    flush: () => store.flush(),
    stats: () => store.stats(),
    timestampBounds: () => store.timestampBounds(),
    close: () => store.close(),
    async writeColumns(columns: PointColumns, options?: WriteOptions): Promise<WriteResult> {
      calls.push(columns.length);
      await hook(columns, calls.length);
      return store.writeColumns(columns, options);
    },
  };
}

/** A gate a hooked store's writes wait on until release(). */
function gate(): { wait: () => Promise<void>; release: () => void } {
  let release = (): void => {};
  const opened = new Promise<void>((resolve) => (release = resolve));
  return { wait: () => opened, release };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('GraphiteListener', () => {
  let t: TestStore;
  let listener: GraphiteListener | undefined;
  let logger: ReturnType<typeof recordingLogger>;
  const clients: Socket[] = [];

  beforeEach(async () => {
    t = await openTestStore();
    logger = recordingLogger();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await listener?.close();
    listener = undefined;
    await t.cleanup();
  });

  async function start(options: Partial<GraphiteListenerOptions> = {}): Promise<number> {
    listener = new GraphiteListener({ store: t.store, tenant: TENANT, port: 0, clock: t.clock, logger, ...options });
    return listener.listen();
  }

  async function client(port: number): Promise<Socket> {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    clients.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('error', () => {});
    return socket;
  }

  function send(socket: Socket, data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  function closed(socket: Socket): Promise<void> {
    return socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once('close', () => resolve()));
  }

  async function finish(socket: Socket): Promise<void> {
    socket.end();
    await closed(socket);
    await waitFor(() => listener?.stats().connections === 0, 'the connection to close');
  }

  async function series(metric: string): Promise<[number, number | null | undefined][]> {
    const result = await t.store.query({ tenant: TENANT, metric, from: T_NOON - 3_600_000, to: T_NOON + 3_600_000, resolution: 'FULL' });
    return result.values.map((v) => [v.timestamp, v.average]);
  }

  it('writes lines split anywhere across writes, tags named by the series scheme, seconds in ms, the last line unterminated', async () => {
    const socket = await client(await start());
    const parts = ['a.b 1 ', `${T_SECONDS}\nc;`, 'host=h1;dc=x 2.5 ', `${T_SECONDS}.5`, '\r\nd 3 N\n\ne nan ', `${T_SECONDS}\nf 4 ${T_SECONDS + 1}`];
    for (const part of parts) {
      await send(socket, part);
      await sleep(5);
    }
    await finish(socket);
    expect(await series('a.b')).toEqual([[T_NOON, 1]]);
    expect(await series('c{dc="x",host="h1"}')).toEqual([[T_NOON + 500, 2.5]]);
    expect(await series('d')).toEqual([[T_NOON, 3]]);
    expect(await series('f')).toEqual([[T_NOON + 1000, 4]]);
    expect(listener?.stats()).toEqual({ connections: 0, pointsAccepted: 4, pointsRejected: 0, pointsSkipped: 1, linesTooLong: 0, connectionsRefused: 0, pointsDropped: 0 });
  });

  it('drops a too-long line up to its newline, keeps reading the connection, and reports drops in one warn line', async () => {
    const socket = await client(await start());
    const tail = ` 1 ${T_SECONDS}`;
    const longest = `${'p'.repeat(GRAPHITE_LINE_BYTES_MAX - tail.length)}${tail}`;
    expect(Buffer.byteLength(longest)).toBe(GRAPHITE_LINE_BYTES_MAX);
    await send(socket, 'x'.repeat(3_000));
    await sleep(5);
    await send(socket, `${'x'.repeat(3_000)}\ngood 7 ${T_SECONDS}\n`);
    await send(socket, `q${longest}\n${longest}\r\nbad line\nold 1 ${T_SECONDS - 30 * 86_400}\n`);
    await finish(socket);
    expect(await series('good')).toEqual([[T_NOON, 7]]);
    // The longest line is read (its 4,073-character path is then too long for the store); one byte more is not.
    expect(listener?.stats()).toMatchObject({ pointsAccepted: 1, linesTooLong: 2, pointsRejected: 3 });
    // The first drop is logged at once, the rest of the interval's when the connection closes.
    const warns = logger.lines.filter((line) => line.level === 'warn');
    expect(warns.map((line) => line.obj)).toMatchObject([
      { tenant: TENANT, dropped: { GRAPHITE_LINE_TOO_LONG: 1 }, example: { code: 'GRAPHITE_LINE_TOO_LONG' } },
      {
        tenant: TENANT,
        dropped: { GRAPHITE_LINE_TOO_LONG: 1, INGEST_METRIC_NAME_TOO_LONG: 1, GRAPHITE_LINE_MALFORMED: 1, INGEST_TIMESTAMP_TOO_OLD: 1 },
        example: { code: 'GRAPHITE_LINE_TOO_LONG' },
      },
    ]);
  });

  it('logs a sender repeating a mistake at most once per interval while connected', async () => {
    const socket = await client(await start());
    for (let i = 0; i < 5; i++) {
      await send(socket, 'not a point at all\n');
      await waitFor(() => listener?.stats().pointsRejected === i + 1, 'the line to be read');
    }
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    await finish(socket);
    const warns = logger.lines.filter((line) => line.level === 'warn');
    expect(warns.map((line) => line.obj.dropped)).toEqual([{ GRAPHITE_LINE_MALFORMED: 1 }, { GRAPHITE_LINE_MALFORMED: 4 }]);
  });

  it('closes connections over the limit on arrival and counts them', async () => {
    const port = await start({ connectionsMax: 2 });
    const first = await client(port);
    await client(port);
    await waitFor(() => listener?.stats().connections === 2, 'two connections');
    const third = await client(port);
    await closed(third);
    expect(listener?.stats()).toMatchObject({ connections: 2, connectionsRefused: 1 });
    first.end();
    await closed(first);
    await waitFor(() => listener?.stats().connections === 1, 'the first connection to close');
    const fourth = await client(port);
    await send(fourth, `late 1 ${T_SECONDS}\n`);
    await waitFor(() => listener?.stats().pointsAccepted === 1, 'the fourth connection to be served');
    expect(listener?.stats().connectionsRefused).toBe(1);
  });

  it('reads nothing more from a connection while its write is in flight', async () => {
    const open = gate();
    const store = hookedStore(t.store, () => open.wait());
    const socket = await client(await start({ store }));
    await send(socket, `g 1 ${T_SECONDS}\n`);
    await waitFor(() => store.calls.length === 1, 'the first write');
    // 64 MiB of too-long lines: far more than the socket buffers hold, cheap to skip once read.
    const junk = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < 64; i++) {
      socket.write(junk);
      socket.write('\n');
    }
    socket.write(`h 2 ${T_SECONDS}\n`);
    await sleep(300);
    expect(listener?.stats().linesTooLong).toBe(0);
    expect(socket.writableLength).toBeGreaterThan(0);
    expect(store.calls).toEqual([1]);
    open.release();
    await waitFor(() => listener?.stats().pointsAccepted === 2, 'both points');
    expect(listener?.stats().linesTooLong).toBe(64);
    expect(await series('g')).toEqual([[T_NOON, 1]]);
    expect(await series('h')).toEqual([[T_NOON, 2]]);
  });

  it('writes a chunk in batches of batchPointsMax, one at a time', async () => {
    const store = hookedStore(t.store, async () => {});
    const socket = await client(await start({ store, batchPointsMax: 3 }));
    await send(socket, Array.from({ length: 8 }, (_, i) => `m${i} ${i} ${T_SECONDS}\n`).join(''));
    await finish(socket);
    expect(store.calls.reduce((a, b) => a + b, 0)).toBe(8);
    expect(Math.max(...store.calls)).toBe(3);
    expect(await series('m7')).toEqual([[T_NOON, 7]]);
  });

  it('close() stops accepting and waits for the in-flight write to be durable', async () => {
    const open = gate();
    const store = hookedStore(t.store, () => open.wait());
    const port = await start({ store });
    const socket = await client(port);
    await send(socket, `k 1 ${T_SECONDS}\nk 2 ${T_SECONDS + 1}\n`);
    await waitFor(() => store.calls.length === 1, 'the write');
    let done = false;
    const closing = listener?.close().then(() => (done = true));
    await sleep(50);
    expect(done).toBe(false);
    await expect(client(port)).rejects.toThrow(/ECONNREFUSED/);
    open.release();
    await closing;
    await closed(socket);
    expect(await series('k')).toEqual([
      [T_NOON, 1],
      [T_NOON + 1000, 2],
    ]);
    expect(listener?.stats()).toMatchObject({ connections: 0, pointsAccepted: 2, pointsDropped: 0 });
  });

  it('retries a batch the store cannot take now, the same batch, until it is written', async () => {
    const store = hookedStore(t.store, async (_columns, call) => {
      if (call <= 2) throw new StrataError('STORE_NOT_DURABLE', 'the log cannot be written');
    });
    const socket = await client(await start({ store, retryDelayMs: 10 }));
    await send(socket, `r 1 ${T_SECONDS}\nr 2 ${T_SECONDS + 1}\n`);
    await waitFor(() => listener?.stats().pointsAccepted === 2, 'the retried write');
    expect(store.calls).toEqual([2, 2, 2]);
    expect(await series('r')).toEqual([
      [T_NOON, 1],
      [T_NOON + 1000, 2],
    ]);
    expect(logger.lines.filter((line) => line.level === 'warn' && line.obj.code === 'STORE_NOT_DURABLE')).toHaveLength(1);
    await finish(socket);
  });

  it('gives up a batch the store keeps refusing when the listener closes, counting and logging the points', async () => {
    const store = hookedStore(t.store, async () => {
      throw new StrataError('INGEST_HEAD_FULL', 'the head is full');
    });
    const socket = await client(await start({ store, retryDelayMs: 60_000 }));
    await send(socket, `s 1 ${T_SECONDS}\ns 2 ${T_SECONDS}\ns 3 ${T_SECONDS}\n`);
    await waitFor(() => store.calls.length === 1, 'the first attempt');
    await listener?.close();
    await closed(socket);
    expect(store.calls).toEqual([3, 3]);
    expect(listener?.stats()).toMatchObject({ pointsAccepted: 0, pointsDropped: 3 });
    expect(logger.lines.some((line) => line.level === 'error' && line.obj.points === 3)).toBe(true);
    expect(await series('s')).toEqual([]);
  });

  it('closes a connection silent for idleMs', async () => {
    const socket = await client(await start({ idleMs: 50 }));
    await send(socket, `i 1 ${T_SECONDS}\n`);
    await closed(socket);
    await waitFor(() => listener?.stats().connections === 0, 'the idle connection to close');
    expect(await series('i')).toEqual([[T_NOON, 1]]);
  });
});
