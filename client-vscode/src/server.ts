/**
 * The language client's life: find the server, start it, check its version,
 * restart it on request, on setting changes and (a bounded number of times)
 * after a crash.
 */

import { ChildProcess, spawn } from "node:child_process";
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import { analysedSelector } from "./analysed";
import { INSTALL_URL, PYTHON_SERVER_ARGS, ServerCommand, discoverServer, pythonEnv } from "./discovery";
import {
  expandPath,
  insideWorkspace,
  isExecutable,
  probePython,
  pythonExtensionInterpreter,
  safeWorkingDirectory,
} from "./python";
import { EarlyDiagnostics } from "./earlyDiagnostics";
import { FirstDiagnosticsGate, settleMs } from "./firstDiagnostics";
import { HEAD_START_DIAGNOSTICS_NOTIFICATION, WILL_OPEN_NOTIFICATION } from "./protocol";
import { RestartPolicy } from "./restartPolicy";
import { Inspected, keepReportWhenCancelled, serverSettings } from "./settings";
import { checkServerVersion } from "./version";

export type ServerStatus = "stopped" | "starting" | "running" | "unavailable" | "incompatible" | "crashed";

export interface ServerHooks {
  /** Runs a command of the server, with the client's own handling (see extension.ts). */
  executeCommand?: (
    command: string,
    args: unknown[],
    next: (command: string, args: unknown[]) => Promise<unknown>,
  ) => Promise<unknown>;
  /** The server reported new diagnostics for a document (pulled or pushed). */
  onDiagnostics?: (uri: vscode.Uri) => void;
}

/**
 * The language client, except that the server's clean exit (code 0: it was
 * asked to shut down, by a restart, a settings change or the window closing)
 * is logged as information, not as "[Error] Server process exited with code 0".
 */
class ChunkseamClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification?: boolean | "force"): void {
    if (/^Server process exited with code 0\b/.test(message)) {
      this.info("The chunkseam server exited cleanly (code 0).");
      return;
    }
    super.error(message, data, showNotification);
  }
}

/**
 * End a server process the language client did not spawn (it does not end
 * those): the server exits on the client's `exit`; if it has not 2 s later,
 * it is ended, as the client ends one it spawned.
 */
function reap(child: ChildProcess | undefined): void {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
    }
  }, 2000);
  child.once("exit", () => clearTimeout(timer));
}

/** How long a new document's lenses, symbols, folds and chunks wait for its diagnostics at most. */
const FIRST_DIAGNOSTICS_WAIT_MS = 5000;

/** The `chunkseam` settings the server should see, for a scope. */
export function currentServerSettings(scope?: vscode.ConfigurationScope | null): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration("chunkseam", scope);
  return serverSettings((key) => config.inspect(key) as Inspected | undefined, vscode.workspace.isTrusted);
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** What waits for a new document's first diagnostics (one per client). */
  private gate = new FirstDiagnosticsGate(FIRST_DIAGNOSTICS_WAIT_MS);
  /**
   * A file's diagnostics from its head start, shown until its own arrive.
   * (Its own name: the language client's collection is "chunkseam", and a
   * second one of that name logged "DiagnosticCollection 'chunkseam' already
   * exists" at every start.)
   */
  private readonly earlyCollection = vscode.languages.createDiagnosticCollection("chunkseam.headStart");
  private readonly early = new EarlyDiagnostics<vscode.Diagnostic>({
    set: (uri, diagnostics) => this.earlyCollection.set(vscode.Uri.parse(uri), diagnostics),
    delete: (uri) => this.earlyCollection.delete(vscode.Uri.parse(uri)),
    clear: () => this.earlyCollection.clear(),
  });
  private busy: Promise<void> = Promise.resolve();
  private readonly policy = new RestartPolicy();
  private readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  private _status: ServerStatus = "stopped";
  private gaveUpShown = false;
  private missingShownFor: string | undefined;
  private disposables: vscode.Disposable[] = [];
  /** chunkseam version of the running server. */
  serverVersion: string | undefined;
  server: ServerCommand | undefined;
  /** The working directory of the server (not a workspace folder). */
  cwd: string | undefined;
  /** The server process when this manager spawned it (see doStart), not the client. */
  private serverProcess: ChildProcess | undefined;

  readonly onDidChangeStatus = this.statusEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
    private readonly hooks: ServerHooks = {},
  ) {
    // A tab shows a file before its text is loaded and sent (didOpen): tell
    // the server, which starts analysing the file from disk meanwhile (the
    // didOpen takes that analysis over if the text is the same).
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of [...e.opened, ...e.changed]) {
          if (tab.input instanceof vscode.TabInputText) {
            this.willOpen(tab.input.uri);
          }
        }
        for (const tab of e.closed) {
          // a tab that went before its document opened leaves no early diagnostics
          if (tab.input instanceof vscode.TabInputText && !this.isOpen(tab.input.uri)) {
            this.early.forget(tab.input.uri.toString());
          }
        }
      }),
      this.earlyCollection,
    );
  }

  private isOpen(uri: vscode.Uri): boolean {
    return vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  }

  private willOpen(uri: vscode.Uri): void {
    const client = this.running;
    if (!client || uri.scheme !== "file" || this.isOpen(uri)) {
      return;
    }
    void client
      .sendNotification(WILL_OPEN_NOTIFICATION, {
        textDocument: { uri: client.code2ProtocolConverter.asUri(uri) },
        diagnostics: true,
      })
      .catch(() => undefined);
  }

  /** The head start's diagnostics of a file not open yet (see earlyDiagnostics.ts). */
  private async headStart(client: LanguageClient, params: { uri?: unknown; diagnostics?: unknown }): Promise<void> {
    if (typeof params?.uri !== "string" || !Array.isArray(params.diagnostics)) {
      return;
    }
    const uri = client.protocol2CodeConverter.asUri(params.uri);
    const key = uri.toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (this.early.isSettled(key) || (open && (open.isDirty || open.version > 1))) {
      // (its own came first, or the text is no longer the file's: unsaved
      // changes restored, or edited since; an untouched document just opened
      // still shows them until its own arrive)
      return;
    }
    const diagnostics = await client.protocol2CodeConverter.asDiagnostics(params.diagnostics);
    if (this.client === client) {
      this.early.offer(key, diagnostics);
    }
  }

  get status(): ServerStatus {
    return this._status;
  }

  /** Resolves when a newly opened document's first diagnostics are in (at once for others). */
  firstDiagnostics(uri: vscode.Uri): Promise<void> {
    return this.gate.ready(uri.toString());
  }

  /** The running client, or undefined. */
  get running(): LanguageClient | undefined {
    return this.client && this.client.state === State.Running ? this.client : undefined;
  }

  private setStatus(status: ServerStatus): void {
    if (status !== this._status) {
      this._status = status;
      this.statusEmitter.fire(status);
    }
  }

  /** Serialise start/stop/restart so two never interleave. */
  private queue(work: () => Promise<void>): Promise<void> {
    this.busy = this.busy.then(work, work).catch((e: unknown) => {
      this.output.error(`chunkseam: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    });
    return this.busy;
  }

  start(): Promise<void> {
    return this.queue(() => this.doStart());
  }

  /** Stop, forget past crashes and start again (the restart command, setting changes). */
  restart(reason: string): Promise<void> {
    return this.queue(async () => {
      this.output.info(`Restarting the chunkseam server: ${reason}`);
      this.policy.reset();
      this.gaveUpShown = false;
      this.missingShownFor = undefined;
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.queue(() => this.doStop());
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    this.setStatus("starting");
    const folder = vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration("chunkseam", folder);
    this.output.info(
      `Looking for the server: chunkseam.server.path = ${JSON.stringify(config.get("server.path") ?? null)}, ` +
        `chunkseam.interpreter = ${JSON.stringify(config.get("interpreter") ?? null)}`,
    );
    // Never the workspace folder: nothing from the workspace may be imported.
    const cwd = await safeWorkingDirectory(this.context);
    this.cwd = cwd;
    const spawnOptions = { cwd, env: pythonEnv(process.env) };
    // The server of the first Python checked for chunkseam starts while it is
    // checked (the check is another Python process: ~0.1 s, more on a busy
    // machine, that the server's start waited for). Only a Python the check
    // runs anyway (the settings' trust rules are applied before it); used if
    // the check finds chunkseam in it, else stopped.
    let early: { python: string; child: ChildProcess } | undefined;
    const startEarly = (python: string): void => {
      if (early) {
        return;
      }
      try {
        const child = spawn(python, [...PYTHON_SERVER_ARGS, "--stdio"], spawnOptions);
        child.on("error", () => undefined); // (cannot be run: the check says why)
        early = { python, child };
      } catch {
        // the check says why
      }
    };
    const found = await discoverServer({
      serverPath: config.get<string | null>("server.path"),
      interpreter: config.get<string | null>("interpreter"),
      pythonExtension: () => pythonExtensionInterpreter(folder?.uri),
      probe: (python) => {
        startEarly(python);
        return probePython(python, cwd);
      },
      isExecutable,
      pathEnv: process.env.PATH ?? "",
      platform: process.platform,
      expand: expandPath,
      trusted: vscode.workspace.isTrusted,
      insideWorkspace,
    });
    for (const note of found.notes) {
      this.output.info(note);
    }
    const prestarted =
      early &&
      found.ok &&
      found.server.command === early.python &&
      found.server.args.join("\0") === PYTHON_SERVER_ARGS.join("\0") &&
      early.child.pid !== undefined &&
      early.child.exitCode === null
        ? early.child
        : undefined;
    if (early && !prestarted) {
      early.child.kill();
    }
    if (!found.ok) {
      this.output.error(found.message);
      this.setStatus("unavailable");
      this.showMissing(found.message);
      return;
    }
    this.server = found.server;
    const { command, args, source, version } = found.server;
    this.output.info(
      `Starting the chunkseam server: ${[command, ...args].join(" ")} (from ${source}${version ? `, chunkseam ${version}` : ""})` +
        (prestarted ? "; it started while its Python was checked" : ""),
    );

    // The workspace reaches the server through `initialize` (rootUri,
    // workspaceFolders), never as the working directory.
    let adopt = prestarted;
    const serverOptions: ServerOptions = prestarted
      ? () => {
          // the server started while its Python was checked; a restart after a crash starts another
          const child = adopt ?? spawn(command, [...args, "--stdio"], spawnOptions);
          adopt = undefined;
          this.serverProcess = child;
          // (what the client logs of a process it spawned)
          child.on("exit", (code, signal) => {
            if (code === 0) {
              this.output.info("The chunkseam server exited cleanly (code 0).");
            } else if (code !== null) {
              this.output.error(`Server process exited with code ${code}.`);
            } else if (signal !== null && this.serverProcess === child) {
              this.output.error(`Server process exited with signal ${signal}.`);
            }
          });
          return Promise.resolve(child);
        }
      : { command, args, transport: TransportKind.stdio, options: spawnOptions };
    this.gate.dispose();
    this.early.clear();
    const gate = (this.gate = new FirstDiagnosticsGate(FIRST_DIAGNOSTICS_WAIT_MS));
    // The chunkseam settings the server last received through
    // workspace/configuration or didChangeConfiguration, of the window and of
    // every folder (unknown until it asks for them).
    const settingsSnapshot = (): string =>
      JSON.stringify([
        vscode.workspace.isTrusted,
        currentServerSettings(folder ?? null),
        ...(vscode.workspace.workspaceFolders ?? []).map((f) => [f.uri.toString(), currentServerSettings(f.uri)]),
      ]);
    let delivered: string | undefined;
    const clientOptions: LanguageClientOptions = {
      documentSelector: analysedSelector(),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { trusted: vscode.workspace.isTrusted, settings: currentServerSettings(folder) },
      markdown: { isTrusted: false, supportHtml: false },
      initializationFailedHandler: (error) => {
        this.output.error(`The chunkseam server failed to initialize: ${String(error)}`);
        return false;
      },
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
        // A server that dies before it has initialized is reported by the
        // failed start below (once); restarts are for crashes of a running server.
        closed: (): CloseHandlerResult =>
          started ? this.onClosed() : { action: CloseAction.DoNotRestart, handled: true },
      },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const out: unknown[] = [];
            if (params.items.some((item) => item.section === "chunkseam")) {
              delivered = settingsSnapshot();
            }
            for (const item of params.items) {
              if (item.section === "chunkseam") {
                out.push(currentServerSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : null));
              } else {
                // Other sections: what VS Code has.
                const single = await next({ items: [item] }, token);
                out.push(Array.isArray(single) ? single[0] : null);
              }
            }
            return out;
          },
          // The server registers for didChangeConfiguration; send it what the
          // user set (never the defaults), like workspace/configuration above.
          // Not when it already has exactly that: the client sends one as soon
          // as the server registers, right after the server asked for the
          // settings, and the server re-analyses every open document on each
          // (a cold start with a 1 MB file analysed it twice, and its first
          // diagnostics waited for the second analysis).
          didChangeConfiguration: async () => {
            const now = settingsSnapshot();
            if (now === delivered) {
              this.output.debug("chunkseam settings unchanged since the server read them: no didChangeConfiguration");
              return;
            }
            delivered = now;
            await this.client?.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { chunkseam: currentServerSettings(folder ?? null) },
            });
          },
        },
        executeCommand: this.hooks.executeCommand,
        // A new document's diagnostics first: its lenses, symbols, folds and
        // code actions (and chunk list, see chunkStore.ts) are asked for
        // once they are in (see firstDiagnostics.ts).
        didOpen: (document, next) => {
          gate.opened(document.uri.toString());
          if (document.isDirty) {
            this.early.settle(document.uri.toString()); // (not the text on disk: unsaved changes restored)
          }
          return next(document);
        },
        didChange: (event, next) => {
          if (event.contentChanges.length) {
            this.early.settle(event.document.uri.toString()); // (of the text on disk)
          }
          return next(event);
        },
        didClose: (document, next) => {
          gate.delivered(document.uri.toString());
          this.early.forget(document.uri.toString());
          return next(document);
        },
        provideCodeLenses: async (document, token, next) => {
          await gate.ready(document.uri.toString());
          return next(document, token);
        },
        provideDocumentSymbols: async (document, token, next) => {
          await gate.ready(document.uri.toString());
          return next(document, token);
        },
        provideFoldingRanges: async (document, context, token, next) => {
          await gate.ready(document.uri.toString());
          return next(document, context, token);
        },
        provideCodeActions: async (document, range, context, token, next) => {
          await gate.ready(document.uri.toString());
          return next(document, range, context, token);
        },
        // Keep the previous diagnostics until the new ones arrive (no flicker).
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const uri = document instanceof vscode.Uri ? document : document.uri;
          let report: Awaited<ReturnType<typeof next>>;
          try {
            report = await keepReportWhenCancelled(
              token,
              () => next(document, previousResultId, token),
              () => new vscode.CancellationError(),
            );
          } catch (e) {
            if (!(e instanceof vscode.CancellationError)) {
              gate.delivered(uri.toString()); // none will come: nothing waits for them
              this.early.settle(uri.toString());
            }
            throw e;
          }
          // the document's own diagnostics replace those of its head start
          this.early.settle(uri.toString());
          if (report && report.kind === "full") {
            this.hooks.onDiagnostics?.(uri);
          }
          // the client hands the report to VS Code when this returns; what
          // waited goes once the workbench has had time to draw it
          const key = uri.toString();
          const size =
            gate.holds(key) && !(document instanceof vscode.Uri) && document.lineCount > 0
              ? document.offsetAt(document.lineAt(document.lineCount - 1).range.end)
              : 0;
          setTimeout(() => gate.delivered(key), settleMs(size));
          return report;
        },
        handleDiagnostics: (uri, diagnostics, next) => {
          this.early.settle(uri.toString());
          next(uri, diagnostics);
          this.hooks.onDiagnostics?.(uri);
          gate.delivered(uri.toString());
        },
      },
    };

    let started = false;
    const client = new ChunkseamClient("chunkseam", "chunkseam", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.setStatus("running");
      } else if (e.newState === State.Stopped && this.client === client && this._status === "running") {
        this.setStatus("stopped");
      }
    });
    try {
      await client.start();
      started = true;
      client.onNotification(HEAD_START_DIAGNOSTICS_NOTIFICATION, (params) => {
        void this.headStart(client, params).catch(() => undefined);
      });
    } catch (e) {
      this.output.error(`The chunkseam server did not start: ${e instanceof Error ? e.message : String(e)}`);
      this.client = undefined;
      try {
        await client.dispose(2000);
      } catch {
        // already dead
      }
      reap(this.serverProcess);
      this.serverProcess = undefined;
      this.setStatus("crashed");
      void vscode.window
        .showErrorMessage(
          `The chunkseam server (${[command, ...args].join(" ")}) did not start. See the "chunkseam" output for details.`,
          "Show Output",
        )
        .then((choice) => choice && this.output.show());
      return;
    }

    const handshake = checkServerVersion(
      client.initializeResult?.serverInfo,
      String(this.context.extension.packageJSON.version ?? "0.0.0"),
    );
    if (!handshake.ok) {
      this.output.error(handshake.message);
      this.setStatus("incompatible");
      this.client = undefined;
      await client.stop(2000).catch(() => undefined);
      reap(this.serverProcess);
      this.serverProcess = undefined;
      void vscode.window.showErrorMessage(handshake.message, "Install Instructions").then((choice) => {
        if (choice) {
          void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
        }
      });
      return;
    }
    this.serverVersion = handshake.version;
    this.output.info(`chunkseam server ${handshake.version} is running.`);
    this.setStatus("running");
  }

  private onClosed(): CloseHandlerResult {
    if (this.policy.crashed()) {
      this.output.warn(`The chunkseam server stopped unexpectedly; restarting it (${this.policy.recent}/${this.policy.maxRestarts}).`);
      this.setStatus("starting");
      return { action: CloseAction.Restart, handled: true };
    }
    this.setStatus("crashed");
    const message =
      `The chunkseam server crashed ${this.policy.recent} times in ${Math.round(this.policy.windowMs / 60000)} minutes ` +
      `and will not be restarted. See the "chunkseam" output for its last words.`;
    this.output.error(message);
    if (!this.gaveUpShown) {
      this.gaveUpShown = true;
      void vscode.window.showErrorMessage(message, "Show Output", "Restart Server").then((choice) => {
        if (choice === "Show Output") {
          this.output.show();
        } else if (choice === "Restart Server") {
          void vscode.commands.executeCommand("chunkseam.restartServer");
        }
      });
    }
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private showMissing(message: string): void {
    if (this.missingShownFor === message) {
      return;
    }
    this.missingShownFor = message;
    const buttons = ["Install Instructions", "Set Interpreter…", "Show Output"];
    void vscode.window.showWarningMessage(message, ...buttons).then((choice) => {
      if (choice === "Install Instructions") {
        void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
      } else if (choice === "Set Interpreter…") {
        // a picker (the Python extension's environments, or a file dialog), not a
        // setting without an input box; the setting's change restarts the server
        void vscode.commands.executeCommand("chunkseam.selectInterpreter");
      } else if (choice === "Show Output") {
        this.output.show();
      }
    });
  }

  private async doStop(): Promise<void> {
    this.gate.dispose();
    this.early.clear();
    const client = this.client;
    const child = this.serverProcess;
    this.client = undefined;
    this.serverProcess = undefined;
    this.serverVersion = undefined;
    if (client) {
      try {
        if (client.needsStop()) {
          await client.stop(3000);
        }
      } catch (e) {
        this.output.warn(`Stopping the chunkseam server: ${String(e)}`);
      }
      try {
        await client.dispose(1000);
      } catch {
        // already gone
      }
    }
    reap(child);
    this.setStatus("stopped");
  }

  async sendRequest<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R | undefined> {
    const client = this.running;
    if (!client) {
      return undefined;
    }
    return client.sendRequest<R>(method, params, token);
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
    this.statusEmitter.dispose();
  }

  /** For deactivate(): stop the server and wait. */
  async shutdown(): Promise<void> {
    await this.stop();
  }
}
