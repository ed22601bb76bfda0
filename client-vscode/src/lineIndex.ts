/**
 * LSP positions (line, UTF-16 character) <-> offsets in a JavaScript string
 * (which are UTF-16 code units too). Lines end at \n, \r\n or \r, as in LSP.
 */

import { Position } from "./protocol";

export class LineIndex {
  /** Offset of the first character of each line. */
  readonly starts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) {
          i++;
        }
        starts.push(i + 1);
      } else if (c === 10 /* \n */) {
        starts.push(i + 1);
      }
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** End of a line's content (before its line break). */
  lineEnd(line: number): number {
    if (line + 1 >= this.starts.length) {
      return this.text.length;
    }
    let end = this.starts[line + 1];
    if (end > 0 && this.text.charCodeAt(end - 1) === 10) {
      end--;
    }
    if (end > this.starts[line] && this.text.charCodeAt(end - 1) === 13) {
      end--;
    }
    return end;
  }

  /** Offset of a position, clamped to the document and to the line. */
  offsetAt(pos: Position): number {
    if (pos.line < 0) {
      return 0;
    }
    if (pos.line >= this.starts.length) {
      return this.text.length;
    }
    const start = this.starts[pos.line];
    return Math.min(start + Math.max(0, pos.character), this.lineEnd(pos.line));
  }

  positionAt(offset: number): Position {
    const off = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= off) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return { line: lo, character: off - this.starts[lo] };
  }
}
