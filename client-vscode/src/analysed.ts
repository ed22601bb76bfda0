/**
 * Which documents the extension serves, read once from its own package.json
 * (see languages.ts): the language client's selector, the documents that get
 * bands and a status bar, the notebook cells whose diagnostics are pulled
 * here, and the `chunkseam.languages` context key that the menus' `when`
 * clauses test (`editorLangId in chunkseam.languages`).
 */

import * as vscode from "vscode";

import { AnalysedKinds, Filter, analysedKinds, documentSelector } from "./languages";

let kinds: AnalysedKinds = { languages: [], notebookTypes: [] };
let selector: Filter[] = [];
let textSelector: vscode.DocumentFilter[] = [];
/** VS Code's form of the cell filters (`notebookType`; the protocol's is `notebook`). */
let cellSelector: vscode.DocumentFilter[] = [];

export function initAnalysed(packageJSON: { activationEvents?: unknown[] } | undefined): AnalysedKinds {
  kinds = analysedKinds(packageJSON?.activationEvents);
  selector = documentSelector(kinds);
  textSelector = [];
  cellSelector = [];
  for (const f of selector) {
    if ("notebook" in f) {
      cellSelector.push({ notebookType: f.notebook, language: f.language });
    } else {
      textSelector.push(f);
    }
  }
  void vscode.commands.executeCommand("setContext", "chunkseam.languages", kinds.languages);
  return kinds;
}

export function analysed(): AnalysedKinds {
  return kinds;
}

/** The language client's selector: files, unsaved editors and notebook cells. */
export function analysedSelector(): Filter[] {
  return selector;
}

/**
 * A text document (a file or an unsaved editor) the server analyses: it gets
 * bands, a status bar, the preview. A notebook is analysed as one view of its
 * cells; a cell alone has no chunks of its own (see notebookDiagnostics.ts).
 */
export function isChunkseamDocument(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(textSelector, doc) > 0;
}

/** A cell of a notebook the server analyses. */
export function isAnalysedCell(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(cellSelector, doc) > 0;
}

export function isAnalysedNotebook(notebook: vscode.NotebookDocument): boolean {
  return kinds.notebookTypes.includes(notebook.notebookType);
}
