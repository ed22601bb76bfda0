/** The pure half of `chunkseam.compareStrategies` (no `vscode` import). */

import { ServerCommand } from "./discovery";

export const STRATEGIES: { name: string; detail: string }[] = [
  { name: "fixed", detail: "Fixed windows of the budget, cut wherever it runs out" },
  { name: "recursive", detail: "Paragraphs, then lines, sentences, words (LangChain semantics)" },
  { name: "sentence", detail: "Whole sentences packed up to the budget" },
  { name: "markdown", detail: "Markdown structure: headings and blocks, then sentences" },
  { name: "code", detail: "Source code: definitions, then blocks" },
];

/** The CLI command line for `compare`, from the server's command line. */
export function compareCommandLine(
  server: ServerCommand,
  file: string,
  strategies: string[],
  settings: Record<string, unknown> = {},
): { command: string; args: string[] } {
  const base = server.args.slice(0, -1); // drop "server"
  return {
    command: server.command,
    args: [...base, "compare", file, "--chunkers", strategies.join(","), ...settingFlags(settings), "--format", "html"],
  };
}

/**
 * The editor's chunkseam settings (what the user set) as `chunkseam compare`
 * flags, so the report uses the same budget and rules as the squiggles.
 */
export function settingFlags(settings: Record<string, unknown>): string[] {
  const flags: string[] = [];
  const num = (key: string, flag: string): void => {
    const v = settings[key];
    if (typeof v === "number" && Number.isFinite(v)) {
      flags.push(flag, String(v));
    }
  };
  const str = (key: string, flag: string): void => {
    const v = settings[key];
    if (typeof v === "string" && v) {
      flags.push(flag, v);
    }
  };
  const list = (key: string, flag: string): void => {
    const v = settings[key];
    if (Array.isArray(v) && v.length > 0) {
      flags.push(flag, v.map(String).join(","));
    }
  };
  num("size", "--size");
  num("overlap", "--overlap");
  str("unit", "--unit");
  str("encoding", "--encoding");
  str("tiktokenFile", "--tiktoken-file");
  if (settings.approximateTokens === true) {
    flags.push("--approximate-tokens");
  }
  list("select", "--select");
  list("extendSelect", "--extend-select");
  list("ignore", "--ignore");
  const severity = settings.severity;
  if (typeof severity === "object" && severity !== null) {
    for (const [code, level] of Object.entries(severity as Record<string, unknown>)) {
      if (typeof level === "string") {
        flags.push("--severity", `${code}=${level}`);
      }
    }
  }
  return flags;
}

/** Defaults for the quick pick, by language. */
export function defaultStrategiesFor(languageId: string): string[] {
  return languageId === "python" ? ["fixed", "recursive", "code"] : ["fixed", "recursive", "sentence", "markdown"];
}

/** Make the CLI's self-contained page safe in a webview: no network, inline style and script only. */
export function webviewSafe(html: string): string {
  const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:">`;
  if (/<head[^>]*>/i.test(html)) {
    return html.replace(/<head([^>]*)>/i, (m) => `${m}${csp}`);
  }
  return `<!DOCTYPE html><html><head>${csp}</head><body>${html}</body></html>`;
}
