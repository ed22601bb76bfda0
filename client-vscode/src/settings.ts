/**
 * Which VS Code settings reach the server, and which changes restart it.
 * Pure (no `vscode` import): the extension hands in `inspect()` results.
 */

/**
 * Settings of the `chunkseam` section that the server's engine reads
 * (camelCase, as VS Code spells them; the server accepts camelCase).
 */
export const ENGINE_KEYS = [
  "enable",
  "chunker",
  "size",
  "overlap",
  "overlapUnit",
  "unit",
  "encoding",
  "chunkers",
  "chunkerOptions",
  "select",
  "extendSelect",
  "ignore",
  "perFileIgnores",
  "severity",
  "minTokens",
  "danglingWords",
  "include",
  "exclude",
  "tiktokenFile",
  "allowNetwork",
  "approximateTokens",
  "modelMaxTokens",
  "embeddingModel",
  "plugins",
  "debounceMs",
  "chunkSymbols",
  "chunkFolding",
] as const;

/** Settings the server itself reads (not the engine). */
export const SERVER_ONLY_KEYS = ["logLevel", "maxDiagnostics"] as const;

/** Keys whose workspace values VS Code ignores in untrusted workspaces. */
export const RESTRICTED_KEYS: ReadonlySet<string> = new Set([
  "server.path",
  "interpreter",
  "plugins",
  "tiktokenFile",
]);

/** Client settings that choose the server process: changing one restarts it. */
export const RESTART_KEYS = ["server.path", "interpreter"] as const;

/** The shape of `WorkspaceConfiguration.inspect()`'s answer that is used here. */
export interface Inspected<T = unknown> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultLanguageValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

/**
 * The value the user set for a key, most specific first, or undefined when
 * only the default applies. Defaults are never sent: the server's merge is
 * defaults < project config file < editor, and a default sent as an editor
 * value would hide the project's config file.
 */
export function explicitValue<T>(inspected: Inspected<T> | undefined, trusted: boolean, restricted: boolean): T | undefined {
  if (!inspected) {
    return undefined;
  }
  const order: (T | undefined)[] = trusted || !restricted
    ? [
        inspected.workspaceFolderLanguageValue,
        inspected.workspaceLanguageValue,
        inspected.globalLanguageValue,
        inspected.workspaceFolderValue,
        inspected.workspaceValue,
        inspected.globalValue,
      ]
    : [inspected.globalLanguageValue, inspected.globalValue];
  for (const value of order) {
    if (value !== undefined) {
      return value;
    }
  }
  return undefined;
}

/**
 * The `chunkseam` settings object the server receives (through
 * `workspace/configuration` and the initialization options): only what the
 * user set, only keys the server reads. `chunker: "auto"` and `null` mean
 * "not set".
 */
export function serverSettings(
  inspect: (key: string) => Inspected | undefined,
  trusted: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...ENGINE_KEYS, ...SERVER_ONLY_KEYS]) {
    const value = explicitValue(inspect(key), trusted, RESTRICTED_KEYS.has(key));
    if (value === undefined || value === null) {
      continue;
    }
    if (key === "chunker" && (value === "auto" || value === "")) {
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** Whether a configuration change (tested by `affects("chunkseam.x")`) needs a restart. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return RESTART_KEYS.some((key) => affects(`chunkseam.${key}`));
}

/** Whether a configuration change touches what the server reads. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return [...ENGINE_KEYS, ...SERVER_ONLY_KEYS].some((key) => affects(`chunkseam.${key}`));
}

/** The least a cancellation token offers. */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
}

/**
 * Pull diagnostics without flicker. vscode-languageclient 9.0.1 turns a pull
 * request that was cancelled (the user typed again) into an *empty* report,
 * which clears the Problems panel until the next answer arrives
 * (vscode-languageserver-node#1799). Throwing a cancellation error instead
 * makes the client keep the previous report and pull again.
 */
export async function keepReportWhenCancelled<R>(
  token: CancellationLike,
  pull: () => PromiseLike<R> | R,
  cancelled: () => Error,
): Promise<R> {
  let report: R;
  try {
    report = await pull();
  } catch (e) {
    if (token.isCancellationRequested) {
      throw cancelled();
    }
    throw e;
  }
  if (token.isCancellationRequested) {
    throw cancelled();
  }
  return report;
}
