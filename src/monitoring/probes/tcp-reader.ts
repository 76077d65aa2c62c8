// Owns reading what a server sends on a check's connection, bounded: a banner line, then a reply up to a match.
import type { Socket } from 'node:net';
import { stopwatchStart } from './tcp-socket.js';

/** Why a wait ended: the condition held, the bound was reached, the peer finished sending, or the connection failed or was aborted. */
export type ReadEnd = 'ready' | 'full' | 'ended' | 'failed';

/** What a read phase got: its bytes as text and why it stopped. */
export interface ReadResult {
  readonly text: string;
  readonly end: ReadEnd;
}

const NEWLINE = 0x0a;

/**
 * Collects a socket's bytes, at most `phaseBytesMax` for each of the phases a check reads (the
 * banner line, then the reply), so it never holds more than twice that plus one socket chunk; it
 * pauses the socket when a phase is full. One phase waits at a time.
 */
export class SocketReader {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private failed = false;
  private waiter: (() => void) | null = null;
  /** Monotonic time of the first byte received, or null. */
  firstByteAt: number | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly phaseBytesMax: number,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.firstByteAt ??= stopwatchStart();
      // Keep at most one phase's worth beyond what is held: a talkative server cannot grow the buffer.
      const room = 2 * this.phaseBytesMax - this.buffer.length;
      if (room > 0) this.buffer = Buffer.concat([this.buffer, chunk.subarray(0, room)]);
      if (this.buffer.length >= this.phaseBytesMax) socket.pause();
      this.wake();
    });
    socket.once('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.once('close', () => {
      this.failed = !this.ended;
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  /** Waits until `ready(view)` holds for the unread bytes (at most one phase), the phase is full, or the stream ends. */
  private async waitFor(ready: (view: Buffer) => boolean): Promise<ReadEnd> {
    for (;;) {
      const view = this.buffer.subarray(0, this.phaseBytesMax);
      if (ready(view)) return 'ready';
      if (view.length >= this.phaseBytesMax) return 'full';
      if (this.ended) return this.failed ? 'failed' : 'ended';
      this.socket.resume();
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** The first line the server sends (without its line ending), or what came before the phase filled or the stream ended. */
  async line(): Promise<ReadResult> {
    const end = await this.waitFor((view) => view.includes(NEWLINE));
    const view = this.buffer.subarray(0, this.phaseBytesMax);
    const newline = view.indexOf(NEWLINE);
    const taken = newline === -1 ? view : view.subarray(0, newline);
    this.buffer = this.buffer.subarray(newline === -1 ? view.length : newline + 1);
    return { text: taken.toString('utf8').replace(/\r$/, ''), end };
  }

  /** The unread bytes as text once `ready(text)` holds, the phase fills, or the stream ends. */
  async reply(ready: (text: string) => boolean): Promise<ReadResult> {
    const end = await this.waitFor((view) => ready(view.toString('utf8')));
    return { text: this.buffer.subarray(0, this.phaseBytesMax).toString('utf8'), end };
  }
}
