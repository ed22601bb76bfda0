import { ChunkInfo, Range } from "../src/protocol";

export function r(sl: number, sc: number, el: number, ec: number): Range {
  return { start: { line: sl, character: sc }, end: { line: el, character: ec } };
}

export function chunk(index: number, range: Range, extra: Partial<ChunkInfo> = {}): ChunkInfo {
  return { index, range, tokens: 10, heading_path: [], issues: 0, overlap_previous: null, ...extra };
}
