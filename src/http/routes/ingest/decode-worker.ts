// Owns the decode thread's task: a raw ingest body in, clean points out as columns (or "use the full decoder").
import { decodeJsonInto } from './fast-json.js';
import { decodeMsgpackInto } from './fast-msgpack.js';
import type { IngestScope } from './ingest-body.js';
import { NameCache } from './name-cache.js';
import { ColumnSink, transferList, type PointColumns } from './point-columns.js';
import { Piscina } from 'piscina';

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

/** The piscina entry: decodes and transfers the result's buffers back. */
export default function decodeOnThread(task: DecodeTask): unknown {
  const outcome = decodeTask(task);
  if (outcome.ok) return Piscina.move(outcome as never, transferList(outcome.columns) as never);
  return Piscina.move(outcome as never, [outcome.body.buffer as ArrayBuffer] as never);
}
