// Owns the decode thread's task: a raw ingest body in, clean points out as columns (or "use the full decoder").
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { decodeJsonInto } from './fast-json.js';
import { decodeMsgpackInto } from './fast-msgpack.js';
import type { IngestScope } from './ingest-body.js';
import { NameCache } from './name-cache.js';
import { ColumnSink, transferList, type PointColumns } from './point-columns.js';

/** A decode task: the body (its buffer transferred) and how to read it. */
export interface DecodeTask {
  readonly body: Uint8Array;
  readonly msgpack: boolean;
  readonly scope: IngestScope;
}

/** The outcome: columns of clean points, or the body handed back for the full decoder on the main thread. */
export type DecodeOutcome = { readonly ok: true; readonly columns: PointColumns } | { readonly ok: false; readonly body: Uint8Array };

// One cache per decode thread, kept across tasks: metric names repeat from batch to batch.
const names = new NameCache();

/** Decodes one body; runs on a decode thread (piscina), or inline in tests. */
export function decodeTask(task: DecodeTask): DecodeOutcome {
  const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  const sink = new ColumnSink();
  const ok = task.msgpack ? decodeMsgpackInto(body, task.scope, names, sink) : decodeJsonInto(body, task.scope, names, sink);
  return ok ? { ok: true, columns: sink.columns() } : { ok: false, body: task.body };
}

/** The piscina entry: decodes, and moves (not copies) the columns or the body back. */
export default function decodeOnThread(task: DecodeTask): unknown {
  const outcome = decodeTask(task);
  const buffers = outcome.ok ? transferList(outcome.columns) : [outcome.body.buffer as ArrayBuffer];
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return outcome;
    },
  } as never);
}
