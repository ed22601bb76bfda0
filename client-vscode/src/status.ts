/** Text of the status bar item. Pure. */

import { StatsResult } from "./protocol";

export interface StatusView {
  text: string;
  /** Markdown for the tooltip. */
  tooltip: string;
  /** True when at least one chunk is broken. */
  warning: boolean;
}

export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((100 * part) / whole) : 0;
}

/** `⧉ 12 chunks · 2 broken (17%)`, and a tooltip listing per-rule counts. */
export function formatStatus(stats: StatsResult, ruleNames: Record<string, string> = {}): StatusView {
  const n = stats.chunks;
  const broken = stats.chunks_with_issues;
  const text = `⧉ ${n} ${n === 1 ? "chunk" : "chunks"} · ${broken} broken (${percent(broken, n)}%)`;
  const lines = [`**chunkseam** — ${n} ${n === 1 ? "chunk" : "chunks"}, ${broken} with issues`, ""];
  if (stats.simulated) {
    lines.push(escapeMarkdown(stats.simulated), "");
  }
  const rules = Object.entries(stats.per_rule)
    .filter(([, count]) => count > 0)
    .sort(([a, ca], [b, cb]) => cb - ca || a.localeCompare(b));
  if (rules.length === 0) {
    lines.push("No issues.");
  } else {
    lines.push("| rule | issues |", "| --- | ---: |");
    for (const [code, count] of rules) {
      const name = ruleNames[code];
      lines.push(`| ${escapeMarkdown(code)}${name ? ` ${escapeMarkdown(name)}` : ""} | ${count} |`);
    }
  }
  lines.push("", "Click to preview the chunks.");
  return { text, tooltip: lines.join("\n"), warning: broken > 0 };
}

export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

/**
 * The status bar when the configuration has errors: a config file that cannot
 * be used (the document is not analysed: `unusable`), or bad values (the
 * analysis ran with them left out). Never the plain counts, which would look
 * like the project's settings were applied.
 */
export function formatConfigErrors(configErrors: readonly string[], unusable: boolean, counts?: StatusView): StatusView {
  const text = unusable ? "$(error) ⧉ config error" : `$(warning) ${counts ? counts.text : "⧉"} · config error`;
  const lines = [
    unusable
      ? "**chunkseam** — the configuration cannot be used, so this document is not analysed:"
      : "**chunkseam** — these settings were left out (their defaults apply):",
    "",
    ...configErrors.map((e) => `- ${escapeMarkdown(e)}`),
    "",
    "The errors are also shown on the configuration file. Click to show the output.",
  ];
  return { text, tooltip: lines.join("\n"), warning: true };
}
