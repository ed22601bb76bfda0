/**
 * HTML of the chunk preview (a webview): every chunk as the embedder sees it,
 * with its metadata, its overlap with the previous chunk and its issues.
 * Pure (no `vscode` import).
 */

import { LineIndex } from "./lineIndex";
import { ChunkInfo, Range, comparePositions } from "./protocol";
import { percent } from "./status";

export interface PreviewIssue {
  code: string;
  message: string;
  severity: "error" | "warning" | "info" | "hint";
  range: Range;
}

export interface PreviewInput {
  title: string;
  text: string;
  chunks: readonly ChunkInfo[];
  issues: readonly PreviewIssue[];
  unit?: string;
  chunker?: string;
  /** For the Content-Security-Policy. */
  nonce: string;
  cspSource: string;
  /** The server's statistics (`chunkseam/stats`), so the summary matches the status bar. */
  stats?: { chunks: number; chunks_with_issues: number };
  /** Longest chunk text shown whole; longer ones keep both ends. */
  maxChunkChars?: number;
  /** Most chunks rendered. */
  maxChunks?: number;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** Issues attached to the chunk whose span contains their start (first such chunk). */
export function issuesByChunk(chunks: readonly ChunkInfo[], issues: readonly PreviewIssue[]): Map<number, PreviewIssue[]> {
  const out = new Map<number, PreviewIssue[]>();
  for (const issue of issues) {
    const owner =
      chunks.find(
        (c) => comparePositions(c.range.start, issue.range.start) <= 0 && comparePositions(issue.range.start, c.range.end) < 0,
      ) ?? chunks.find((c) => comparePositions(c.range.start, issue.range.start) <= 0 && comparePositions(issue.range.start, c.range.end) <= 0);
    if (!owner) {
      continue;
    }
    const list = out.get(owner.index) ?? [];
    list.push(issue);
    out.set(owner.index, list);
  }
  return out;
}

/** The chunk's text, shortened in the middle when longer than `max` (both cut ends stay visible). */
export function clip(text: string, max: number): { head: string; tail: string; omitted: number } {
  if (text.length <= max) {
    return { head: text, tail: "", omitted: 0 };
  }
  const headLen = Math.floor(max * 0.6);
  const tailLen = max - headLen;
  return { head: text.slice(0, headLen), tail: text.slice(text.length - tailLen), omitted: text.length - max };
}

export function chunkTitle(chunk: ChunkInfo, total: number, unit = "tokens"): string {
  const parts = [`Chunk ${chunk.index + 1}/${total}`, `${chunk.tokens} ${unit}`];
  if (chunk.heading_path.length > 0) {
    parts.push(chunk.heading_path.join(" › "));
  }
  if (chunk.issues > 0) {
    parts.push(`${chunk.issues} ${chunk.issues === 1 ? "issue" : "issues"}`);
  }
  return parts.join(" · ");
}

export function renderPreviewHtml(input: PreviewInput): string {
  const index = new LineIndex(input.text);
  const maxChars = input.maxChunkChars ?? 6000;
  const maxChunks = input.maxChunks ?? 2000;
  const total = input.chunks.length;
  const broken = input.stats ? input.stats.chunks_with_issues : input.chunks.filter((c) => c.issues > 0).length;
  const byChunk = issuesByChunk(input.chunks, input.issues);
  const unit = input.unit ?? "tokens";
  const sections: string[] = [];
  for (const chunk of input.chunks.slice(0, maxChunks)) {
    const start = index.offsetAt(chunk.range.start);
    const end = index.offsetAt(chunk.range.end);
    const overlapEnd = chunk.overlap_previous ? Math.min(end, index.offsetAt(chunk.overlap_previous.end)) : start;
    const text = input.text.slice(start, end);
    const ov = Math.max(0, overlapEnd - start);
    const body = renderBody(text, ov, maxChars);
    const issues = byChunk.get(chunk.index) ?? [];
    const issueList =
      issues.length === 0
        ? ""
        : `<ul class="issues">${issues
            .map(
              (i) =>
                `<li class="${i.severity}"><span class="code">${escapeHtml(i.code)}</span> ` +
                `<a href="#" data-line="${i.range.start.line}" data-character="${i.range.start.character}">` +
                `${i.range.start.line + 1}:${i.range.start.character + 1}</a> ${escapeHtml(i.message)}</li>`,
            )
            .join("")}</ul>`;
    sections.push(
      `<section class="chunk ${chunk.index % 2 === 0 ? "even" : "odd"}${chunk.issues > 0 ? " broken" : ""}" id="chunk-${chunk.index + 1}">` +
        `<h2><a href="#" data-line="${chunk.range.start.line}" data-character="${chunk.range.start.character}">` +
        `${escapeHtml(chunkTitle(chunk, total, unit))}</a></h2>` +
        `<pre>${body}</pre>${issueList}</section>`,
    );
  }
  if (total > maxChunks) {
    sections.push(`<p class="note">${total - maxChunks === 1 ? "1 more chunk is" : `${total - maxChunks} more chunks are`} not shown.</p>`);
  }
  const summary =
    `${total} ${total === 1 ? "chunk" : "chunks"} · ${broken} broken (${percent(broken, total)}%)` +
    (input.chunker ? ` · ${escapeHtml(input.chunker)}` : "");
  const csp =
    `default-src 'none'; style-src ${input.cspSource} 'nonce-${input.nonce}'; ` + `script-src 'nonce-${input.nonce}';`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style nonce="${input.nonce}">${PREVIEW_CSS}</style></head>
<body><header class="summary"><h1>${escapeHtml(input.title)}</h1><p>${summary}</p></header>
<main>${sections.join("\n")}</main>
<script nonce="${input.nonce}">${PREVIEW_SCRIPT}</script></body></html>`;
}

function renderBody(text: string, overlapChars: number, maxChars: number): string {
  const { head, tail, omitted } = clip(text, maxChars);
  const mark = (s: string, from: number): string => {
    // `from` is the offset of s in the chunk text; the overlap is [0, overlapChars).
    const cut = Math.max(0, Math.min(s.length, overlapChars - from));
    return (cut > 0 ? `<mark class="overlap">${escapeHtml(s.slice(0, cut))}</mark>` : "") + escapeHtml(s.slice(cut));
  };
  let html = mark(head, 0);
  if (omitted > 0) {
    html += `<span class="omitted">… ${omitted} characters not shown …</span>` + mark(tail, text.length - tail.length);
  }
  return html;
}

const PREVIEW_CSS = `
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 1em 2em; }
h1 { font-size: 1.2em; margin: .8em 0 .2em; }
.summary p { margin: 0 0 1em; color: var(--vscode-descriptionForeground); }
.chunk { border-left: 3px solid var(--vscode-chunkseam-cut-foreground, var(--vscode-textLink-foreground)); margin: 0 0 1em; padding: .2em .8em .6em; border-radius: 2px; }
.chunk.even { background: var(--vscode-chunkseam-band-evenBackground); }
.chunk.odd { background: var(--vscode-chunkseam-band-oddBackground); }
.chunk.broken { border-left-color: var(--vscode-editorWarning-foreground); }
.chunk h2 { font-size: .95em; font-weight: 600; margin: .4em 0; }
.chunk h2 a, .issues a { color: var(--vscode-textLink-foreground); text-decoration: none; }
pre { white-space: pre-wrap; word-break: break-word; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); margin: 0; }
mark.overlap { background: var(--vscode-chunkseam-band-overlapBackground); color: inherit; text-decoration: underline dashed var(--vscode-chunkseam-band-overlapBorder); }
.omitted { display: block; color: var(--vscode-descriptionForeground); font-style: italic; margin: .3em 0; }
.issues { margin: .5em 0 0; padding-left: 1.2em; }
.issues li.error .code { color: var(--vscode-editorError-foreground); }
.issues li.warning .code { color: var(--vscode-editorWarning-foreground); }
.issues .code { font-weight: 600; font-family: var(--vscode-editor-font-family); }
.note { color: var(--vscode-descriptionForeground); }
`;

const PREVIEW_SCRIPT = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-line]');
  if (!a) return;
  e.preventDefault();
  vscode.postMessage({ type: 'reveal', line: Number(a.dataset.line), character: Number(a.dataset.character) });
});
`;
