/**
 * The chunkseam language server's custom protocol, as seen by this client.
 * Plain data types only: no `vscode` import, so unit tests can use them.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * One chunk as returned by `chunkseam/chunks`. `index` is 0-based.
 * The server spells keys in camelCase (`headingPath`, `overlapPrevious` —
 * a size, not a range); the parsers below accept both spellings and
 * normalise to these names.
 */
export interface ChunkInfo {
  index: number;
  range: Range;
  tokens: number;
  heading_path: string[];
  issues: number;
  overlap_previous?: Range | null;
}

export interface ChunksResult {
  version: number | null;
  chunks: ChunkInfo[];
  /** Name of the strategy that produced the chunks, when the server says. */
  chunker?: string;
  unit?: string;
  /** False when chunkseam is disabled for the document (setting `enable`). */
  enabled?: boolean;
  /** The analysis failed: the server's message. */
  error?: string;
  /** Errors of the configuration (a broken config file, bad values). */
  configErrors?: string[];
  /**
   * For a notebook cell: the notebook's URI. The chunks are the notebook's
   * that hold some of the cell, in the cell's positions; `version` is the
   * notebook's.
   */
  notebook?: string;
}

export interface StatsResult {
  chunks: number;
  chunks_with_issues: number;
  rate: number;
  per_rule: Record<string, number>;
  /** Which chunker is simulated and where that setting came from, when the server says. */
  simulated?: string;
  /** Each setting that matters, its value and its layer, when the server says. */
  settings?: SettingLayer[];
}

/** A setting as the server resolved it (`settings` of chunkseam/stats). */
export interface SettingLayer {
  /** kebab-case key, as in chunkseam.toml */
  key: string;
  value: unknown;
  /** "default", the path of a configuration file, or "editor" (one of the editor's layers) */
  source: string;
  /** The configuration file whose value an editor setting replaced. */
  overrides?: string;
}

/** Result of `workspace/executeCommand` `chunkseam.showChunk`. */
export interface ShowChunkResult {
  text: string;
  index: number;
  start: number;
  end: number;
  tokens: number;
  heading_path: string[];
  range: Range;
  /** Total number of chunks, when the server says (`count`). */
  total?: number;
  /** Unit of `tokens`: "tokens" or "chars" (the configured unit). */
  unit?: string;
}

/** "387 tokens", "1 char": a size in its unit. */
export function sizeLabel(n: number, unit: string | undefined): string {
  const word = unit === "chars" || unit === "char" ? "char" : "token";
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export const CHUNKS_REQUEST = "chunkseam/chunks";
export const STATS_REQUEST = "chunkseam/stats";
/** A file's tab is there, its text not yet sent: the server may start on the file (no answer). */
export const WILL_OPEN_NOTIFICATION = "chunkseam/willOpen";
/** The diagnostics of a file analysed from disk before it opened (see earlyDiagnostics.ts). */
export const HEAD_START_DIAGNOSTICS_NOTIFICATION = "chunkseam/headStartDiagnostics";
export const SHOW_CHUNK_COMMAND = "chunkseam.showChunk";

/** Compare positions: negative when a is before b. */
export function comparePositions(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

export function isPosition(value: unknown): value is Position {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return Number.isInteger(v.line) && Number.isInteger(v.character);
}

export function isRange(value: unknown): value is Range {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return isPosition(v.start) && isPosition(v.end);
}

/**
 * Validate and normalise a `chunkseam/chunks` response. Malformed chunks are
 * dropped (a client must never throw on what a server sends); chunks are
 * returned ordered by start.
 */
export function parseChunksResult(value: unknown): ChunksResult {
  if (typeof value !== "object" || value === null) {
    return { version: null, chunks: [] };
  }
  const v = value as Record<string, unknown>;
  const raw = Array.isArray(v.chunks) ? v.chunks : [];
  const chunks: ChunkInfo[] = [];
  for (const item of raw as unknown[]) {
    if (typeof item !== "object" || item === null) {
      continue;
    }
    const c = item as Record<string, unknown>;
    if (!Number.isInteger(c.index) || !isRange(c.range)) {
      continue;
    }
    const rawHeading = c.heading_path ?? c.headingPath;
    const heading = Array.isArray(rawHeading)
      ? (rawHeading as unknown[]).filter((h): h is string => typeof h === "string")
      : [];
    const overlap = c.overlap_previous ?? c.overlapPrevious;
    chunks.push({
      index: c.index as number,
      range: c.range,
      tokens: typeof c.tokens === "number" ? c.tokens : 0,
      heading_path: heading,
      issues: typeof c.issues === "number" ? c.issues : Array.isArray(c.issues) ? c.issues.length : 0,
      overlap_previous: isRange(overlap) ? overlap : null,
    });
  }
  chunks.sort((a, b) => comparePositions(a.range.start, b.range.start) || a.index - b.index);
  const result: ChunksResult = {
    version: typeof v.version === "number" ? v.version : null,
    chunks,
  };
  if (typeof v.chunker === "string") {
    result.chunker = v.chunker;
  }
  if (typeof v.unit === "string") {
    result.unit = v.unit;
  }
  if (typeof v.enabled === "boolean") {
    result.enabled = v.enabled;
  }
  if (typeof v.error === "string" && v.error) {
    result.error = v.error;
  }
  if (typeof v.notebook === "string" && v.notebook) {
    result.notebook = v.notebook;
  }
  if (Array.isArray(v.configErrors) && v.configErrors.length > 0) {
    result.configErrors = v.configErrors.map(String);
  }
  return result;
}

export function parseStatsResult(value: unknown): StatsResult | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  if (typeof v.chunks !== "number") {
    return undefined;
  }
  const perRule: Record<string, number> = {};
  const rawPerRule = v.per_rule ?? v.perRule;
  if (typeof rawPerRule === "object" && rawPerRule !== null) {
    for (const [code, count] of Object.entries(rawPerRule as Record<string, unknown>)) {
      if (typeof count === "number") {
        perRule[code] = count;
      }
    }
  }
  const rawBroken = v.chunks_with_issues ?? v.chunksWithIssues;
  const broken = typeof rawBroken === "number" ? rawBroken : 0;
  const result: StatsResult = {
    chunks: v.chunks,
    chunks_with_issues: broken,
    rate: typeof v.rate === "number" ? v.rate : v.chunks > 0 ? broken / v.chunks : 0,
    per_rule: perRule,
  };
  if (typeof v.simulated === "string") {
    result.simulated = v.simulated;
  }
  if (Array.isArray(v.settings)) {
    result.settings = v.settings
      .filter((s): s is Record<string, unknown> => typeof s === "object" && s !== null && typeof (s as Record<string, unknown>).key === "string")
      .map((s) => ({
        key: String(s.key),
        value: s.value,
        source: typeof s.source === "string" ? s.source : "default",
        ...(typeof s.overrides === "string" ? { overrides: s.overrides } : {}),
      }));
  }
  return result;
}

/** Validate a `chunkseam.showChunk` result (either key spelling). */
export function parseShowChunkResult(value: unknown): ShowChunkResult | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  if (typeof v.text !== "string" || typeof v.index !== "number") {
    return undefined;
  }
  const heading = v.heading_path ?? v.headingPath;
  const total = v.total ?? v.count;
  const num = (a: unknown, b: unknown): number => (typeof a === "number" ? a : typeof b === "number" ? b : 0);
  return {
    text: v.text,
    index: v.index,
    start: num(v.start, v.startOffset),
    end: num(v.end, v.endOffset),
    tokens: typeof v.tokens === "number" ? v.tokens : 0,
    heading_path: Array.isArray(heading) ? heading.map(String) : [],
    range: isRange(v.range) ? v.range : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    total: typeof total === "number" ? total : undefined,
    ...(typeof v.unit === "string" ? { unit: v.unit } : {}),
  };
}
