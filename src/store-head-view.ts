// Owns the head as the reader sees it: the fresh head windows merged over the frozen window a seal is writing.
import type { Head, HeadWindow } from './ingest/head.js';
import { mergeSamples } from './model/merge-samples.js';
import type { HeadView } from './query/series-reader.js';

/**
 * The reader's view of `head`, with the window `frozen` returns (the one a seal is writing, read
 * anew on every call) counted as head until its seal is committed.
 */
export function headViewOf(head: Head, frozen: () => HeadWindow | undefined): HeadView {
  return {
    // Membership only: the reader needs no order, so no sort of the head's windows per lookup.
    windowsOf: (id) => {
      const starts: number[] = [];
      for (const [start, window] of head.windows) if (window.series.has(id)) starts.push(start);
      const sealing = frozen();
      if (sealing !== undefined && sealing.series.has(id) && !starts.includes(sealing.startMs)) starts.push(sealing.startMs);
      return starts;
    },
    samples: (id, w) => {
      const fresh = head.windows.get(w)?.series.get(id)?.samples();
      const sealing = frozen();
      const older = sealing?.startMs === w ? sealing.series.get(id)?.samples() : undefined;
      // Writes that arrived after the freeze are newer than every frozen point: they win.
      if (older === undefined) return fresh;
      return fresh === undefined ? older : mergeSamples(older, fresh);
    },
  };
}
