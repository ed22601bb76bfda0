/**
 * Band computation: which ranges to paint for a list of chunks, bounded to
 * a window of lines. Pure (no `vscode` import) so it is unit-tested directly.
 */

import { ChunkInfo, Position, Range, comparePositions } from "./protocol";

/** A cut: the place where chunk `chunkNumber` (1-based) begins. */
export interface Cut {
  position: Position;
  /** 1-based number of the chunk that starts here, as the lenses count. */
  chunkNumber: number;
  /** The cut falls at the start of a line: a rule across the line is drawn. */
  atLineStart: boolean;
}

export interface BandPlan {
  /** Chunks with an even 0-based index (chunk 1, 3, 5 … as people count). */
  even: Range[];
  odd: Range[];
  /** Text that belongs to two chunks. */
  overlap: Range[];
  cuts: Cut[];
  /** Number of chunks that the plan covers (≤ the cap). */
  painted: number;
  /** True when the cap cut the plan short. */
  truncated: boolean;
}

export interface LineWindow {
  /** First line of interest, inclusive. */
  start: number;
  /** Last line of interest, inclusive. */
  end: number;
}

function maxPos(a: Position, b: Position): Position {
  return comparePositions(a, b) >= 0 ? a : b;
}

function minPos(a: Position, b: Position): Position {
  return comparePositions(a, b) <= 0 ? a : b;
}

function isEmpty(r: Range): boolean {
  return comparePositions(r.start, r.end) >= 0;
}

/** The part of chunk `cur` that it shares with chunk `prev`, if any. */
export function overlapBetween(prev: ChunkInfo | undefined, cur: ChunkInfo): Range | null {
  if (cur.overlap_previous && !isEmpty(cur.overlap_previous)) {
    return cur.overlap_previous;
  }
  if (!prev) {
    return null;
  }
  const r = { start: maxPos(prev.range.start, cur.range.start), end: minPos(prev.range.end, cur.range.end) };
  return isEmpty(r) ? null : r;
}

/** Index of the first chunk (sorted by start) whose range ends at or after `line`. */
export function firstChunkEndingAtOrAfter(chunks: readonly ChunkInfo[], line: number): number {
  // Chunks are ordered and never nested, so their ends are non-decreasing
  // except for overlaps, which only make ends larger: a binary search on the
  // end line finds the first candidate; the scan below is then exact.
  let lo = 0;
  let hi = chunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (chunks[mid].range.end.line < line) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/**
 * Ranges to paint for the chunks that touch `window` (all chunks when
 * `window` is undefined), at most `maxChunks` of them, starting with the
 * first chunk that reaches into the window.
 *
 * A chunk's band excludes the text it shares with its neighbours; that text is
 * painted as overlap instead, so colours never stack.
 */
export function planBands(
  chunks: readonly ChunkInfo[],
  window: LineWindow | undefined,
  maxChunks: number,
): BandPlan {
  const plan: BandPlan = { even: [], odd: [], overlap: [], cuts: [], painted: 0, truncated: false };
  if (chunks.length === 0 || maxChunks <= 0) {
    return plan;
  }
  const first = window ? firstChunkEndingAtOrAfter(chunks, window.start) : 0;
  for (let i = first; i < chunks.length; i++) {
    const chunk = chunks[i];
    if (window && chunk.range.start.line > window.end) {
      break;
    }
    if (plan.painted >= maxChunks) {
      plan.truncated = true;
      break;
    }
    plan.painted++;
    const before = overlapBetween(chunks[i - 1], chunk);
    const after = i + 1 < chunks.length ? overlapBetween(chunk, chunks[i + 1]) : null;
    const band: Range = {
      start: before ? maxPos(chunk.range.start, before.end) : chunk.range.start,
      end: after ? minPos(chunk.range.end, after.start) : chunk.range.end,
    };
    if (!isEmpty(band)) {
      (chunk.index % 2 === 0 ? plan.even : plan.odd).push(band);
    }
    if (before) {
      plan.overlap.push(before);
    }
    if (i > 0) {
      plan.cuts.push({
        position: chunk.range.start,
        chunkNumber: chunk.index + 1,
        atLineStart: chunk.range.start.character === 0,
      });
    }
  }
  return plan;
}

/**
 * The window of lines to paint for the visible ranges of an editor: their
 * union, widened by `margin` lines on each side (so that scrolling a little
 * shows bands at once), clamped to the document.
 */
export function windowFor(
  visible: readonly { start: number; end: number }[],
  lineCount: number,
  margin: number,
): LineWindow | undefined {
  if (visible.length === 0) {
    return undefined;
  }
  let start = Infinity;
  let end = -Infinity;
  for (const v of visible) {
    start = Math.min(start, v.start);
    end = Math.max(end, v.end);
  }
  return {
    start: Math.max(0, start - margin),
    end: Math.min(Math.max(0, lineCount - 1), end + margin),
  };
}

/** The chunk containing `pos` (the later one inside an overlap), or undefined. */
export function chunkAt(chunks: readonly ChunkInfo[], pos: Position): ChunkInfo | undefined {
  let found: ChunkInfo | undefined;
  const start = firstChunkEndingAtOrAfter(chunks, pos.line);
  for (let i = start; i < chunks.length; i++) {
    const c = chunks[i];
    if (comparePositions(c.range.start, pos) > 0) {
      break;
    }
    if (comparePositions(pos, c.range.end) <= 0) {
      found = c;
    }
  }
  return found;
}
