// Owns reading a whole recording file into memory for tests: its header and every frame, the reader closed after.
import { openRecording } from '../../src/recording/recording-reader.js';
import type { RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';

/** The header and every frame of the recording at `path` (small test files only: it keeps them all). */
export async function readRecordingFile(path: string): Promise<{ header: RecordingHeader; frames: RecordingFrame[] }> {
  const reader = await openRecording(path);
  try {
    const frames: RecordingFrame[] = [];
    for await (const frame of reader.frames()) frames.push(frame);
    return { header: reader.header, frames };
  } finally {
    await reader.close();
  }
}
