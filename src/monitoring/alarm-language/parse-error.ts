// Owns the alarm language's parse error: a message and where it happened (offset, line, column, token).

/** Where a parse error happened. */
export interface ErrorPlace {
  /** 0-based offset into the criteria. */
  readonly position: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** The offending token as written ('' at the end of input). */
  readonly token: string;
}

/** Thrown by the tokenizer and parser; the monitoring rules turn it into MONITORING_ALARM_PARSE_FAILED. */
export class AlarmParseError extends Error {
  override readonly name = 'AlarmParseError';
  readonly place: ErrorPlace;

  constructor(message: string, place: ErrorPlace) {
    super(message);
    this.place = place;
  }
}
