// Owns reading one /proc (or /sys) file for the collectors: asynchronous, capped at a byte limit, cut back to whole lines.
import { open } from 'node:fs/promises';
import { AGENT_PROC_FILE_BYTES_MAX } from '../agent-limits.js';

/** The text of a /proc file as read; `truncated` when the file held more than the limit (the text then ends at its last complete line). */
export interface ProcText {
  readonly text: string;
  readonly truncated: boolean;
}

/** Bytes asked of the kernel per read: most /proc files fit in one, and the buffer never outgrows the limit by more than this. */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Reads `path` up to `bytesMax` bytes. /proc files report size 0, so the file is read to its end in chunks
 * rather than sized first. Rejects with the file system's own error (ENOENT, EACCES...), which names the path.
 */
export async function readProcFile(path: string, bytesMax: number = AGENT_PROC_FILE_BYTES_MAX): Promise<ProcText> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // One byte past the limit tells a file of exactly bytesMax bytes from a longer one.
    while (total <= bytesMax) {
      const want = Math.min(READ_CHUNK_BYTES, bytesMax + 1 - total);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    const bytes = Buffer.concat(chunks, total);
    if (total <= bytesMax) return { text: bytes.toString('utf8'), truncated: false };
    const kept = bytes.subarray(0, bytesMax);
    return { text: kept.subarray(0, kept.lastIndexOf(0x0a) + 1).toString('utf8'), truncated: true };
  } finally {
    await handle.close();
  }
}
