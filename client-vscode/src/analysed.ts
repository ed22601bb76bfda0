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
 * bands, a status bar and the commands (preview, compare, show chunk). A
 * notebook is analysed as one view of its cells (see hasChunks and
 * notebookDiagnostics.ts).
 */
export function isChunkseamDocument(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(textSelector, doc) > 0;
}

/**
 * A document with chunks of its own to paint and count: a text document, or
 * a cell of an analysed notebook (the server answers `chunkseam/chunks` with
 * the notebook's chunks that hold some of the cell, in the cell's positions,
 * and `chunkseam/stats` with the notebook's figures).
 */
export function hasChunks(doc: vscode.TextDocument): boolean {
  return isChunkseamDocument(doc) || isAnalysedCell(doc);
}

/** A cell of a notebook the server analyses. */
export function isAnalysedCell(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(cellSelector, doc) > 0;
}

export function isAnalysedNotebook(notebook: vscode.NotebookDocument): boolean {
  return kinds.notebookTypes.includes(notebook.notebookType);
}
