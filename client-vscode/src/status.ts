/** Text of the status bar item. Pure. */

import { SettingLayer, StatsResult } from "./protocol";

/** Which of the editor's layers holds a setting's value ("user setting", …), for a kebab-case key. */
export type EditorLayerOf = (key: string) => string | undefined;

/** `min-tokens` -> `minTokens` (the VS Code setting's name). */
export function settingName(key: string): string {
  return key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function fileName(file: string): string {
  return file.split(/[\\/]/).pop() || file;
}

function shownValue(value: unknown): string {
  if (value === null || value === undefined) {
    return "none";
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** Where a setting's value comes from, in words: `chunkseam.toml`, `user setting`, `default`. */
export function layerLabel(layer: SettingLayer, editorLayerOf: EditorLayerOf): string {
  if (layer.source === "default") {
    return "default";
  }
  if (layer.source === "editor") {
    return editorLayerOf(layer.key) ?? "editor setting";
  }
  return fileName(layer.source);
}

/** The settings whose editor value overrides the project's configuration file. */
export function overrides(layers: readonly SettingLayer[] | undefined): SettingLayer[] {
  return (layers ?? []).filter((l) => l.source === "editor" && !!l.overrides);
}

/**
 * The tooltip's settings section: each value and the layer it comes from, and
 * a warning when an editor setting overrides the project's file (what
 * `chunkseam lint`, pre-commit and CI will not see).
 */
export function formatSettings(layers: readonly SettingLayer[] | undefined, editorLayerOf: EditorLayerOf): string[] {
  if (!layers || layers.length === 0) {
    return [];
  }
  const lines = ["**Settings**: the value and where it comes from", "", "| setting | value | from |", "| --- | --- | --- |"];
  for (const layer of layers) {
    const from = layerLabel(layer, editorLayerOf);
    const over = layer.overrides ? ` ⚠ overrides ${escapeMarkdown(fileName(layer.overrides))}` : "";
    lines.push(`| ${escapeMarkdown(layer.key)} | ${escapeMarkdown(shownValue(layer.value))} | ${escapeMarkdown(from)}${over} |`);
  }
  const over = overrides(layers);
  if (over.length > 0) {
    const files = [...new Set(over.map((l) => fileName(l.overrides ?? "")))].join(", ");
    lines.push(
      "",
      `⚠ ${over.length === 1 ? "An editor setting overrides" : `${over.length} editor settings override`} ` +
        `${escapeMarkdown(files)}: \`chunkseam lint\`, pre-commit and CI read the file and will not see ${over.length === 1 ? "it" : "them"}.`,
    );
  }
  return lines;
}

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
export function formatStatus(
  stats: StatsResult,
  ruleNames: Record<string, string> = {},
  editorLayerOf: EditorLayerOf = () => undefined,
): StatusView {
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
  const settings = formatSettings(stats.settings, editorLayerOf);
  if (settings.length > 0) {
    lines.push("", ...settings);
  }
  lines.push("", "Click to preview the chunks.");
  const overridden = overrides(stats.settings).length > 0;
  return { text: overridden ? `${text} · ⚠ override` : text, tooltip: lines.join("\n"), warning: broken > 0 };
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
