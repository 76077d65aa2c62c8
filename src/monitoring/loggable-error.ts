// Owns what of a thrown error the monitoring runtime logs: never its message, which may quote a URL with credentials or a secret.

/** The fields of a thrown error safe to log: its name, code and first stack frames. */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { errType: typeof error };
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, 8);
  return { errName: error.name, errCode: (error as { code?: unknown }).code, frames };
}
