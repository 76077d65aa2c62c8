// Owns the bench's own plain-HTTP access to one ClickHouse shard: statements, TSV answers and RowBinary inserts, outside the store under test.
import { request } from 'node:http';

/** Settings every bench statement carries: synchronous Distributed inserts, as the store's own client sends them. */
const BENCH_SETTINGS: Readonly<Record<string, string>> = { insert_distributed_sync: '1' };

function statementUrl(url: string, database: string | undefined, query: string | undefined): URL {
  const target = new URL(url);
  if (database !== undefined) target.searchParams.set('database', database);
  if (query !== undefined) target.searchParams.set('query', query);
  for (const [name, value] of Object.entries(BENCH_SETTINGS)) target.searchParams.set(name, value);
  return target;
}

/**
 * POSTs `body` on a fresh connection (agent: false): a kept-alive socket that the server closes
 * after its 3 s keep_alive_timeout would fail the next statement, and the bench's statements are few.
 */
function post(target: URL, body: string | Buffer, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', agent: false, headers: { 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`ClickHouse answered ${res.statusCode} to ${what.slice(0, 200)}: ${text.slice(0, 500)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs one statement on the shard at `url` (in `database` when given) and returns the answer's text. */
export function chStatement(url: string, sql: string, database?: string): Promise<string> {
  return post(statementUrl(url, database, undefined), sql, sql);
}

/** Runs a SELECT and returns its rows as TabSeparated fields (no escaping expected: numbers and plain names only). */
export async function chRows(url: string, sql: string, database?: string): Promise<string[][]> {
  const text = await chStatement(url, `${sql} FORMAT TabSeparated`, database);
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split('\t'));
}

/** Inserts a RowBinary body into `table` of `database`. */
export async function chInsertRowBinary(url: string, database: string, table: string, body: Buffer): Promise<void> {
  const query = `INSERT INTO ${table} FORMAT RowBinary`;
  await post(statementUrl(url, database, query), body, query);
}
