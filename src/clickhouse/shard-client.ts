// Owns the conversation with one ClickHouse shard over HTTP (the only importer of @clickhouse/client): statements, bounded reads, RowBinary inserts, and every failure as a StrataError.
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { StrataError } from '../core/errors.js';
import {
  CLICKHOUSE_ERROR_TEXT_CHARS_MAX,
  CLICKHOUSE_IDLE_SOCKET_TTL_MS,
  CLICKHOUSE_RESPONSE_BYTES_MAX,
  CLICKHOUSE_SOCKETS_PER_SHARD_MAX,
} from '../core/limits.js';
import { sqlIdentifier } from './sql-text.js';

/** How to reach one shard. */
export interface ShardClientOptions {
  /** The shard's HTTP interface, e.g. `http://127.0.0.1:8123`. */
  readonly url: string;
  /** The database every statement runs in (unless `noDatabase`). */
  readonly database: string;
  readonly username?: string;
  readonly password?: string;
  /** How long one statement may take, answer included, before the shard counts as unavailable. */
  readonly requestTimeoutMs: number;
  /** Most bytes one SELECT answer may hold; CLICKHOUSE_RESPONSE_BYTES_MAX when absent. */
  readonly responseBytesMax?: number;
}

/** Settings of one statement. The client sends them as URL parameters, which 18.16 honours where a SETTINGS clause inside INSERT … SELECT is not. */
type StatementSettings = Record<string, string | number>;

/**
 * ClickHouse error codes that mean a shard could not be reached in time: the one asked, or one it
 * fans a Distributed statement out to. Measured on 18.16 with one of two shards stopped: a
 * Distributed SELECT fails with 279 (its log lists 210 "Connection refused" per try, and 32 when a
 * pooled connection to the stopped shard went stale), a synchronous Distributed INSERT with 210.
 * 209 is a socket timeout to a shard and 159 a statement over its max_execution_time. 394
 * (QUERY_WAS_CANCELLED) is not here: it marks a query killed or abandoned by its client, which
 * says nothing about a shard, and 18.16 did not raise it for a stopped shard.
 */
const UNAVAILABLE_CODES: ReadonlyMap<number, string> = new Map([
  [159, 'TIMEOUT_EXCEEDED'],
  [209, 'SOCKET_TIMEOUT'],
  [210, 'NETWORK_ERROR'],
  [279, 'ALL_CONNECTION_TRIES_FAILED'],
]);
/** Node's codes for a shard that refused, dropped or never answered the connection (or whose name does not resolve). */
const UNAVAILABLE_SYSTEM_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT',
  'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);
/** The client's own words for its request timeout, and Node's for a socket closed before the answer. */
const UNAVAILABLE_MESSAGE = /^(Timeout error\.|socket hang up)/;
const CLICKHOUSE_CODE = /Code: (\d+)/;
/** Every statement that may insert through a Distributed table returns only once each shard holds its rows. */
const SYNC_INSERT = { insert_distributed_sync: 1 } as const;
/** A native `host:port` in parentheses, as 18.16 names the shard it failed to reach: `Connection refused (127.0.0.1:9001)`. */
const REMOTE_ADDRESS = /\(([A-Za-z0-9.\-[\]:]+:\d+)\)/;

/**
 * One shard of the cluster, over HTTP with keep-alive. Every statement carries its FORMAT (18.16
 * does not know the client's default formats) and inlines its literals (it takes no query
 * parameters); every failure is thrown as STORE_SHARD_UNAVAILABLE (details: shard, cause,
 * clickhouseCode, and remote when 18.16 names the shard it could not reach) or STORE_BACKEND_FAILED
 * (details: shard, clickhouseCode or null, message).
 */
export class ShardClient {
  /** The shard's URL as given. */
  readonly url: string;
  /** The URL without credentials, for messages and details. */
  readonly #label: string;
  readonly #client: ClickHouseClient;
  /** The same shard with no database selected, for CREATE DATABASE before the database exists. */
  readonly #serverClient: ClickHouseClient;
  readonly #responseBytesMax: number;

  /** Prepares the connection pools; nothing is sent until the first statement. */
  constructor(options: ShardClientOptions) {
    this.url = options.url;
    this.#label = withoutCredentials(options.url);
    this.#responseBytesMax = options.responseBytesMax ?? CLICKHOUSE_RESPONSE_BYTES_MAX;
    this.#client = makeClient(options, options.database, this.#label);
    this.#serverClient = makeClient(options, undefined, this.#label);
  }

  /** DDL or any statement with no result (uses the database unless `noDatabase`). */
  async command(sql: string, options: { noDatabase?: boolean; settings?: StatementSettings } = {}): Promise<void> {
    const client = options.noDatabase === true ? this.#serverClient : this.#client;
    // An INSERT … SELECT into a Distributed table must be visible on every shard when it returns.
    const clickhouse_settings = { ...options.settings, ...SYNC_INSERT };
    await this.#attempt(() => client.command({ query: sql, clickhouse_settings }));
  }

  /** A SELECT answered as JSONEachRow, parsed (UInt64 and Int64 arrive as strings, NaN and infinities as null). */
  async rows<T>(sql: string, options: { settings?: StatementSettings } = {}): Promise<T[]> {
    const body = await this.#select(sql, 'JSONEachRow', options.settings);
    const rows: T[] = [];
    for (const line of body.toString('utf8').split('\n')) {
      if (line.length === 0) continue;
      try {
        rows.push(JSON.parse(line) as T);
      } catch {
        throw this.#backendFailed(null, `a JSONEachRow line is not JSON: ${line.slice(0, 200)}`);
      }
    }
    return rows;
  }

  /** A SELECT answered as RowBinary, the whole body. */
  async binary(sql: string, options: { settings?: StatementSettings } = {}): Promise<Buffer> {
    return this.#select(sql, 'RowBinary', options.settings);
  }

  /**
   * INSERT INTO <table> FORMAT RowBinary with `body` (sync insert into Distributed: insert_distributed_sync=1 always).
   * Through a Distributed table with a shard down, 18.16 fails the insert (code 210). Measured with
   * the shard down before the insert: no row landed on the live shard either (up to 3 M rows; the
   * first block fails). A shard lost in the middle of a long insert may leave the blocks before,
   * which a retry of the same rows overwrites (they are keyed and versioned).
   */
  async insertRowBinary(table: string, body: Buffer): Promise<void> {
    // The client's insert() refuses RowBinary; exec() streams `values` as the body and sends the query in the URL.
    const query = `INSERT INTO ${sqlIdentifier(table)} FORMAT RowBinary`;
    await this.#attempt(async () => {
      const values = Readable.from([body], { objectMode: false });
      const result = await this.#client.exec({ query, values, clickhouse_settings: SYNC_INSERT });
      for await (const _chunk of result.stream) {
        // An INSERT answers an empty body; reading it releases the socket.
      }
    });
  }

  /** True when the shard answers /ping; never throws. */
  async ping(): Promise<boolean> {
    try {
      return (await this.#client.ping()).success;
    } catch {
      return false;
    }
  }

  /** Closes the sockets; the client takes no statements afterwards. */
  async close(): Promise<void> {
    await Promise.all([this.#client.close(), this.#serverClient.close()]);
  }

  /**
   * Runs a SELECT and collects its answer, at most `responseBytesMax` bytes. wait_end_of_query makes
   * the server hold the answer until the query has finished: otherwise an error after the first
   * block (a shard lost mid-query) arrives as HTTP 200 with the error text appended to the data.
   */
  async #select(sql: string, format: 'JSONEachRow' | 'RowBinary', settings: StatementSettings | undefined): Promise<Buffer> {
    const query = `${sql.replace(/[\s;]+$/, '')}\nFORMAT ${format}`;
    return this.#attempt(async () => {
      const result = await this.#client.exec({ query, clickhouse_settings: { ...settings, ...COMPLETE_ANSWERS } });
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of result.stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > this.#responseBytesMax) {
          // Leaving the loop destroys the stream and its socket, so the rest is never read.
          throw new StrataError(
            'STORE_BACKEND_FAILED',
            `ClickHouse shard ${this.#label} answered a SELECT with more than ${this.#responseBytesMax} bytes (CLICKHOUSE_RESPONSE_BYTES_MAX); read it in smaller pages.`,
            { shard: this.#label, clickhouseCode: null, limitBytes: this.#responseBytesMax },
          );
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks, bytes);
    });
  }

  async #attempt<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#failure(error);
    }
  }

  #failure(error: unknown): StrataError {
    if (error instanceof StrataError) return error;
    const text = errorText(error);
    const codeMatch = CLICKHOUSE_CODE.exec(text);
    if (codeMatch === null) {
      const systemCode = (error as { code?: unknown } | null)?.code;
      if ((typeof systemCode === 'string' && UNAVAILABLE_SYSTEM_CODES.has(systemCode)) || UNAVAILABLE_MESSAGE.test(text)) {
        return withCause(
          new StrataError('STORE_SHARD_UNAVAILABLE', `ClickHouse shard ${this.#label} is unavailable (${typeof systemCode === 'string' ? systemCode : 'no answer'}).`, {
            shard: this.#label,
            clickhouseCode: null,
          }),
          text,
        );
      }
      return this.#backendFailed(null, text);
    }
    const clickhouseCode = Number(codeMatch[1]);
    const name = UNAVAILABLE_CODES.get(clickhouseCode);
    if (name === undefined) return this.#backendFailed(clickhouseCode, text);
    const remote = REMOTE_ADDRESS.exec(text)?.[1];
    const message =
      remote === undefined
        ? `ClickHouse shard ${this.#label} is unavailable: ${name} (code ${clickhouseCode}).`
        : `ClickHouse shard ${remote} could not be reached through ${this.#label}: ${name} (code ${clickhouseCode}).`;
    return withCause(
      new StrataError('STORE_SHARD_UNAVAILABLE', message, {
        shard: this.#label,
        clickhouseCode,
        ...(remote === undefined ? {} : { remote }),
      }),
      text,
    );
  }

  #backendFailed(clickhouseCode: number | null, text: string): StrataError {
    return new StrataError('STORE_BACKEND_FAILED', `ClickHouse shard ${this.#label} failed a statement: ${text}`, {
      shard: this.#label,
      clickhouseCode,
      message: text,
    });
  }
}

/**
 * Keeps the server's own text as the error's `cause` (logs show it) rather than in its details,
 * which an HTTP API hands to its clients: ClickHouse's exception log names internal addresses.
 */
function withCause(error: StrataError, text: string): StrataError {
  Object.defineProperty(error, 'cause', { value: text, enumerable: false, configurable: true, writable: true });
  return error;
}

/**
 * Settings every SELECT carries, whatever the server's profile says: the whole answer or an error,
 * never part of one. wait_end_of_query: 18.16 otherwise streams rows with HTTP 200 and appends a
 * late error to the body. skip_unavailable_shards 0: a Distributed read fails when a shard is
 * down instead of answering without it. The overflow modes throw rather than cut an answer short.
 */
const COMPLETE_ANSWERS = {
  wait_end_of_query: 1,
  skip_unavailable_shards: 0,
  read_overflow_mode: 'throw',
  result_overflow_mode: 'throw',
  timeout_overflow_mode: 'throw',
} as const;

function makeClient(options: ShardClientOptions, database: string | undefined, label: string): ClickHouseClient {
  try {
    return createClient({
      url: options.url,
      ...(database === undefined ? {} : { database }),
      // Only when given: the URL may carry them, and the client warns on stderr when both do.
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      application: 'strata',
      request_timeout: options.requestTimeoutMs,
      max_open_connections: CLICKHOUSE_SOCKETS_PER_SHARD_MAX,
      // Below the server's keep_alive_timeout (3 s on 18.16): a request written to a socket the server is closing fails with ECONNRESET.
      keep_alive: { enabled: true, idle_socket_ttl: CLICKHOUSE_IDLE_SOCKET_TTL_MS },
      // Every failure leaves as a StrataError for the caller to log; the client's own console lines would say it twice.
      log: { level: ClickHouseLogLevel.OFF },
    });
  } catch (error) {
    throw new StrataError('STORE_OPTIONS_INVALID', `The ClickHouse shard URL ${label} is not usable: ${errorText(error)}`, { url: label });
  }
}

/** The error's text, trimmed and cut to CLICKHOUSE_ERROR_TEXT_CHARS_MAX; an AggregateError (every address refused) by its code. */
function errorText(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  if (text.trim().length === 0) {
    const code = (error as { code?: unknown } | null)?.code;
    text = typeof code === 'string' ? code : 'no answer';
  }
  text = text.trim();
  return text.length > CLICKHOUSE_ERROR_TEXT_CHARS_MAX ? `${text.slice(0, CLICKHOUSE_ERROR_TEXT_CHARS_MAX)}…` : text;
}

/** The URL without user and password, so errors and logs never carry a secret. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
