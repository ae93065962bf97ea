import type { FrameBody, StreamFrame } from '../../protocol/frames';

/** The ring's bounds (docs/reference.md, Stream frames): at most 2000 frames or 8 MiB per session. */
export const RING_FRAMES = 2000;
export const RING_BYTES = 8 * 1024 * 1024;

/**
 * An in-memory ring of a session's stream frames with a monotonic cursor. A page that lost some
 * frames asks for those after its cursor; when they have left the ring it is told to resync.
 */
export class FrameRing {
  private readonly frames: { frame: StreamFrame; bytes: number }[] = [];
  private bytes = 0;
  private last = 0;

  constructor(
    private readonly maxFrames = RING_FRAMES,
    private readonly maxBytes = RING_BYTES,
  ) {}

  /** The cursor of the newest frame (0 before the first). */
  get cursor(): number {
    return this.last;
  }

  push(body: FrameBody): StreamFrame {
    const frame = { ...body, cursor: ++this.last } as StreamFrame;
    const bytes = JSON.stringify(frame).length * 2;
    this.frames.push({ frame, bytes });
    this.bytes += bytes;
    while (this.frames.length > this.maxFrames || (this.bytes > this.maxBytes && this.frames.length > 1)) {
      this.bytes -= this.frames.shift()!.bytes;
    }
    return frame;
  }

  /** The frames after `cursor`, or undefined when some of them are gone (the page must resync). */
  after(cursor: number): StreamFrame[] | undefined {
    if (cursor > this.last) return undefined;
    if (cursor === this.last) return [];
    const oldest = this.frames[0]?.frame.cursor ?? this.last + 1;
    if (cursor + 1 < oldest) return undefined;
    return this.frames.filter((f) => f.frame.cursor > cursor).map((f) => f.frame);
  }
}
