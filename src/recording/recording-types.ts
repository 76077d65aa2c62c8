// Owns the shapes of a recording: its header, the frames that follow, and the writer's and reader's interfaces.

/** The first frame of every recording file: what made it and when it started. */
export interface RecordingHeader {
  readonly kind: 'header';
  /** RECORDING_FORMAT_VERSION of the writer. */
  readonly version: number;
  /** Wall clock when this recording (the first file of a rotation set) started, integer ms. */
  readonly startedAtMs: number;
  /** 0 for the first file, +1 for each rotation; every file's frames carry `atMs` relative to the same startedAtMs. */
  readonly sequence: number;
  /** What wrote the file, for example "strata 0.1.0 serve" or "strata 0.1.0 workload generate walk". */
  readonly producer: string;
  /** One sentence on the content (the workload description, or where the server listened; never a local path such as the data directory). */
  readonly description: string;
}

/** One recorded HTTP request: everything needed to send it again, nothing that authenticates. */
export interface RecordedExchange {
  readonly kind: 'exchange';
  /** Arrival time of the request, integer ms since the header's startedAtMs (never negative, never decreasing within a file). */
  readonly atMs: number;
  /** 'GET' or 'POST'. */
  readonly method: string;
  /** Path and query string exactly as received, e.g. `/ingest/v2.0/100000/ingest` or `/metrics/v2.0/100000/views/a.b?from=1&to=2&points=10`. */
  readonly url: string;
  /** The tenant segment of the URL (the recorder knows it from the route); replay maps it. */
  readonly tenant: string;
  /** The Content-Type header as sent, or null when absent. */
  readonly contentType: string | null;
  /** The body bytes exactly as received (before any parsing), or null when no body was read (none sent, or refused before it was read). */
  readonly body: Uint8Array | null;
  /** Status the recorded server answered. */
  readonly status: number;
  /** Time from arrival to the response being sent, integer ms, as the recording server measured it. */
  readonly durationMs: number;
}

/** Requests the recorder could not write (its queue was full): replay reports them, never silently. */
export interface RecordingGap {
  readonly kind: 'gap';
  /** When the first of them arrived, integer ms since startedAtMs. */
  readonly atMs: number;
  /** How many requests were dropped. */
  readonly dropped: number;
}

/** Every frame after the header. */
export type RecordingFrame = RecordedExchange | RecordingGap;

/** Where and how much a writer records. */
export interface RecordingWriterOptions {
  /**
   * The current file; rotated files are `${path}.1` (newest) … `${path}.${files - 1}` (oldest). A
   * recording already at `path` is rotated like a full file; anything else there (another file, a
   * symbolic link, a directory, a device) is refused with CONFIG_INVALID, never replaced.
   */
  readonly path: string;
  /** A file is rotated before a frame would make it larger than this (RECORDING_FILE_BYTES_MIN … RECORDING_FILE_BYTES_MAX). */
  readonly fileBytesMax: number;
  /** Files kept, the current one included (1 … RECORDING_FILES_MAX); the oldest is deleted on rotation. */
  readonly files: number;
  /** Bytes of encoded frames waiting for the disk before new frames are dropped (counted in a gap frame). */
  readonly queueBytesMax: number;
  readonly producer: string;
  readonly description: string;
  /** Wall clock, integer ms (injected). */
  readonly now: () => number;
  /** Told about a write, fsync, rotation or close failure (for example a full disk), and about a malformed exchange given to `record`; after a write failure the writer drops every further frame. */
  readonly onError?: (error: Error) => void;
}

/** Counters a writer exposes (for /metrics and for the closing line of a run). */
export interface RecordingWriterStats {
  readonly framesWritten: number;
  readonly bytesWritten: number;
  readonly dropped: number;
  readonly rotations: number;
  /** Bytes encoded and not yet on disk. */
  readonly queuedBytes: number;
}

/**
 * A body handed to a writer: its bytes in one piece, or the chunks it arrived in (in order; their
 * concatenation is the body, an empty list an empty body), or null when no body was read. The
 * writer keeps references to these bytes, never copies, until they are on disk: the caller must
 * not change them after handing them over (Node never reuses a chunk a request stream gave out).
 */
export type RecordingBody = Uint8Array | readonly Uint8Array[] | null;

/** What `record` and `append` take: an exchange as it happened, its arrival on the wall clock instead of atMs, its body whole or in chunks. */
export type RecordingInput = Omit<RecordedExchange, 'kind' | 'atMs' | 'body'> & {
  /** Wall clock arrival of the request, integer ms; atMs is computed from it and the header's startedAtMs. */
  readonly arrivedAtMs: number;
  readonly body: RecordingBody;
};

/** Appends frames to a recording; never blocks the caller, never throws from `record`. */
export interface RecordingWriter {
  /**
   * Queues one exchange, cheaply: it checks the fields, encodes the few bytes around the body and
   * counts the frame against queueBytesMax; the body's checksum and the write happen later, in
   * bounded steps off the caller's turn. Drops it and counts a gap when the queue is full, the body
   * is over RECORDING_FRAME_BYTES_MAX or the exchange is malformed (reported to onError).
   */
  record(exchange: RecordingInput): void;
  /** Queues one exchange like `record`, but waits for queue room instead of dropping; rejects with the write error once the writer has failed (for generators and tests). */
  append(exchange: RecordingInput): Promise<void>;
  stats(): RecordingWriterStats;
  /** Writes everything queued (and a pending gap frame), fsyncs and closes the file. */
  close(): Promise<void>;
}
