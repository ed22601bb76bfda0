/** The pure half of `chunkseam.compareStrategies` (no `vscode` import). */

import { isCodeLanguage } from "./languages";

export const COMPARE_REQUEST = "chunkseam/compare";

/** Descriptions of the strategies the quick pick offers (the server says which exist). */
export const STRATEGY_DETAILS: Record<string, string> = {
  fixed: "Fixed windows of the budget, cut wherever it runs out",
  recursive: "Paragraphs, then lines, sentences, words (LangChain semantics)",
  langchain: "LangChain's own text splitter (needs langchain-text-splitters installed with chunkseam)",
  sentence: "Whole sentences packed up to the budget",
  markdown: "Markdown structure: headings and blocks, then sentences",
  code: "Source code: definitions, then blocks",
  llamaindex: "Your installed LlamaIndex node parser (needs chunkseam[llamaindex])",
  chonkie: "Your installed chonkie chunker (needs chunkseam[chonkie])",
  semchunk: "Your installed semchunk (needs chunkseam[semchunk])",
  "text-splitter": "Your installed semantic-text-splitter (needs chunkseam[text-splitter])",
  haystack: "Your installed Haystack DocumentSplitter (needs chunkseam[haystack])",
};

/** The strategies offered: those the server has (in a stable order), else the known ones. */
export function strategyItems(available: readonly string[] | undefined): { name: string; detail: string }[] {
  const names = available && available.length > 0 ? [...available] : Object.keys(STRATEGY_DETAILS);
  const order = Object.keys(STRATEGY_DETAILS);
  names.sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib) || a.localeCompare(b);
  });
  return names.map((name) => ({ name, detail: STRATEGY_DETAILS[name] ?? "A strategy registered by a plugin" }));
}

/** Defaults for the quick pick, by language. */
export function defaultStrategiesFor(languageId: string): string[] {
  return isCodeLanguage(languageId) ? ["fixed", "recursive", "code"] : ["fixed", "recursive", "sentence", "markdown"];
}

/** A message when the picked strategies cannot be compared, else undefined. */
export function validatePick(picked: readonly string[]): string | undefined {
  return picked.length < 2 ? "Pick at least two strategies to compare." : undefined;
}

/** The answer of `chunkseam/compare`. */
export interface CompareResult {
  available: string[];
  strategies: string[];
  errors: Record<string, string>;
  html: string | null;
}

export function parseCompareResult(raw: unknown): CompareResult | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const v = raw as Record<string, unknown>;
  const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === "string") : []);
  const errors: Record<string, string> = {};
  if (typeof v.errors === "object" && v.errors !== null) {
    for (const [k, e] of Object.entries(v.errors as Record<string, unknown>)) {
      errors[k] = String(e);
    }
  }
  return {
    available: strings(v.available),
    strategies: strings(v.strategies),
    errors,
    html: typeof v.html === "string" ? v.html : null,
  };
}

/** Make the server's self-contained page safe in a webview: no network, inline style and script only. */
export function webviewSafe(html: string): string {
  const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:">`;
  if (/<head[^>]*>/i.test(html)) {
    return html.replace(/<head([^>]*)>/i, (m) => `${m}${csp}`);
  }
  return `<!DOCTYPE html><html><head>${csp}</head><body>${html}</body></html>`;
}
