/**
 * Which documents the extension serves, read once from its own package.json
 * (see languages.ts): the language client's selector, the documents that get
 * bands and a status bar, and the `chunkseam.languages` context key that the
 * menus' `when` clauses test (`editorLangId in chunkseam.languages`).
 */

import * as vscode from "vscode";

import { AnalysedKinds, Filter, analysedKinds, documentSelector } from "./languages";

let kinds: AnalysedKinds = { languages: [], notebookTypes: [] };
let selector: Filter[] = [];

export function initAnalysed(packageJSON: { activationEvents?: unknown[] } | undefined): AnalysedKinds {
  kinds = analysedKinds(packageJSON?.activationEvents);
  selector = documentSelector(kinds);
  void vscode.commands.executeCommand("setContext", "chunkseam.languages", kinds.languages);
  return kinds;
}

export function analysed(): AnalysedKinds {
  return kinds;
}

export function analysedSelector(): Filter[] {
  return selector;
}

/** A document (or a notebook cell) the server analyses. */
export function isChunkseamDocument(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(selector, doc) > 0;
}
