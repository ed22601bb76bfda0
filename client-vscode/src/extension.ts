/**
 * chunkseam for VS Code: starts the chunkseam language server and adds what
 * a protocol alone cannot show — chunk bands, a status bar item, the chunk
 * viewer, the document preview and the strategy comparison.
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";

import { BandPainter } from "./bandPainter";
import { chunkAt } from "./bands";
import { ChunkDocumentProvider, CHUNK_SCHEME } from "./chunkDocument";
import { analysed, initAnalysed, isChunkseamDocument } from "./analysed";
import { ChunkStore } from "./chunkStore";
import { compareStrategies } from "./compare";
import { describeKinds } from "./languages";
import { NotebookDiagnostics } from "./notebookDiagnostics";
import { PreviewPanels } from "./previewPanel";
import { SHOW_CHUNK_COMMAND, comparePositions, parseShowChunkResult } from "./protocol";
import { onPythonInterpreterChanged, pickInterpreter } from "./python";
import { ServerManager } from "./server";
import { needsRestart } from "./settings";
import { StatusBar } from "./statusBar";

let manager: ServerManager | undefined;

/** The document a command is about: the active editor's, or the source of a chunk view. */
function targetDocument(): vscode.TextDocument | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.uri.scheme === CHUNK_SCHEME) {
    const source = new URLSearchParams(doc.uri.query).get("source");
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === source);
  }
  if (doc && isChunkseamDocument(doc)) {
    return doc;
  }
  return vscode.window.visibleTextEditors.map((e) => e.document).find(isChunkseamDocument);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  initAnalysed(context.extension.packageJSON as { activationEvents?: unknown[] });
  const output = vscode.window.createOutputChannel("chunkseam", { log: true });
  context.subscriptions.push(output);
  const chunkDocs = new ChunkDocumentProvider();
  context.subscriptions.push(chunkDocs);

  // `chunkseam.showChunk` is the server's command (its code lenses run it);
  // the language client registers it and forwards it to the server. This
  // hook completes the arguments when it is run from the command palette and
  // shows the chunk the server returns.
  // eslint-disable-next-line prefer-const
  let store: ChunkStore;
  const showChunk = async (
    args: unknown[],
    next: (command: string, args: unknown[]) => Promise<unknown>,
  ): Promise<unknown> => {
    let [uri, index] = args;
    let sourceDoc: vscode.TextDocument | undefined;
    if (typeof uri !== "string" || typeof index !== "number") {
      const doc = targetDocument();
      const client = manager?.running;
      if (!doc || !client) {
        void vscode.window.showInformationMessage(`chunkseam: open a ${describeKinds(analysed())} first.`);
        return undefined;
      }
      const data = await store.ensure(doc);
      const chunks = data?.result.chunks ?? [];
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
      const cursor = editor?.selection.active ?? new vscode.Position(0, 0);
      const pos = { line: cursor.line, character: cursor.character };
      const chunk = chunkAt(chunks, pos) ?? [...chunks].reverse().find((c) => comparePositions(c.range.start, pos) <= 0) ?? chunks[0];
      if (!chunk) {
        void vscode.window.showInformationMessage("chunkseam: this document has no chunks.");
        return undefined;
      }
      uri = client.code2ProtocolConverter.asUri(doc.uri);
      index = chunk.index;
      sourceDoc = doc;
    }
    const raw = await next(SHOW_CHUNK_COMMAND, [uri, index]);
    const result = parseShowChunkResult(raw);
    if (!result) {
      output.warn(`chunkseam.showChunk returned no chunk for ${String(uri)} #${String(index)}`);
      return raw;
    }
    const source = vscode.Uri.parse(uri as string);
    sourceDoc ??= vscode.workspace.textDocuments.find((d) => d.uri.toString() === source.toString());
    if (result.total === undefined) {
      result.total = store.get(source)?.result.chunks.length;
    }
    await chunkDocs.show(source, result, sourceDoc?.languageId);
    return raw;
  };

  manager = new ServerManager(context, output, {
    executeCommand: async (command, args, next) => {
      if (command === SHOW_CHUNK_COMMAND) {
        return showChunk(args, next);
      }
      return next(command, args);
    },
    onDiagnostics: (uri) => store?.diagnosticsChanged([uri]),
  });
  const server = manager;
  context.subscriptions.push(server);
  store = new ChunkStore(server);
  const painter = new BandPainter(store);
  const statusBar = new StatusBar(store, server);
  const previews = new PreviewPanels(store);
  const notebookDiagnostics = new NotebookDiagnostics(server);
  context.subscriptions.push(store, painter, statusBar, previews, notebookDiagnostics);
  context.subscriptions.push(notebookDiagnostics.onDidUpdate((uris) => store.diagnosticsChanged(uris)));

  // A server that does not advertise `chunkseam.showChunk` still gets the
  // command: it is sent as workspace/executeCommand by this fallback.
  let fallbackShowChunk: vscode.Disposable | undefined;
  context.subscriptions.push(
    server.onDidChangeStatus((status) => {
      const client = server.running;
      if (status !== "running" || !client || fallbackShowChunk) {
        return;
      }
      const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
      if (!advertised.includes(SHOW_CHUNK_COMMAND)) {
        output.info(`The server does not advertise ${SHOW_CHUNK_COMMAND}; the extension provides it.`);
        fallbackShowChunk = vscode.commands.registerCommand(SHOW_CHUNK_COMMAND, (...args: unknown[]) =>
          showChunk(args, async (command, commandArgs) => {
            const c = server.running;
            return c ? c.sendRequest(ExecuteCommandRequest.type, { command, arguments: commandArgs }) : undefined;
          }),
        );
        context.subscriptions.push(fallbackShowChunk);
      }
    }),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand("chunkseam.restartServer", () => server.restart("the Restart Server command")),
    vscode.commands.registerCommand("chunkseam.toggleBands", () => painter.toggle()),
    vscode.commands.registerCommand("chunkseam.selectInterpreter", async () => {
      const chosen = await pickInterpreter();
      if (chosen) {
        output.info(`chunkseam.interpreter set to ${chosen}`);
      }
    }),
    vscode.commands.registerCommand("chunkseam.showOutput", () => output.show()),
    vscode.commands.registerCommand("chunkseam.previewDocument", async () => {
      const doc = targetDocument();
      if (!doc) {
        void vscode.window.showInformationMessage(`chunkseam: open a ${describeKinds(analysed())} to preview its chunks.`);
        return;
      }
      await previews.open(doc);
    }),
    vscode.commands.registerCommand("chunkseam.compareStrategies", () =>
      compareStrategies(server, output, targetDocument()),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const affects = (section: string): boolean => e.affectsConfiguration(section);
      // Other chunkseam settings reach the running server through
      // workspace/didChangeConfiguration (see server.ts).
      if (needsRestart(affects)) {
        void server.restart("the server settings changed");
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server.restart("the workspace is now trusted")),
  );

  void onPythonInterpreterChanged(() => {
    const config = vscode.workspace.getConfiguration("chunkseam");
    if (!config.get<string | null>("server.path") && !config.get<string | null>("interpreter")) {
      void server.restart("the selected Python interpreter changed");
    }
  }).then((d) => context.subscriptions.push(d));

  void server.start();
}

export async function deactivate(): Promise<void> {
  await manager?.shutdown();
  manager = undefined;
}
