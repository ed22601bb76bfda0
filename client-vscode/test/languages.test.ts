import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { defaultStrategiesFor } from "../src/compareArgs";
import { analysedKinds, describeKinds, documentSelector, isCodeLanguage } from "../src/languages";

// out/test/languages.test.js -> client-vscode/package.json
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "..", "package.json"), "utf8"));

/** Every `when` clause of the contributed menus. */
function whenClauses(): { where: string; when: string }[] {
  const out: { where: string; when: string }[] = [];
  for (const [menu, items] of Object.entries(manifest.contributes.menus as Record<string, { command: string; when?: string }[]>)) {
    for (const item of items) {
      if (item.when !== undefined) {
        out.push({ where: `${menu} ${item.command}`, when: item.when });
      }
    }
  }
  return out;
}

describe("the analysed languages (package.json's activation events)", () => {
  it("reads languages and notebook types from the activation events", () => {
    const kinds = analysedKinds(["onLanguage:markdown", "onCommand:x", "onLanguage:go", "onNotebook:jupyter-notebook", "onLanguage:go", "onLanguage:", 7]);
    assert.deepEqual(kinds, { languages: ["markdown", "go"], notebookTypes: ["jupyter-notebook"] });
    assert.deepEqual(analysedKinds(undefined), { languages: [], notebookTypes: [] });
  });

  it("selects files, unsaved editors and notebook cells of every language", () => {
    const selector = documentSelector({ languages: ["markdown", "python"], notebookTypes: ["jupyter-notebook"] });
    assert.deepEqual(selector, [
      { scheme: "file", language: "markdown" },
      { scheme: "untitled", language: "markdown" },
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { notebook: "jupyter-notebook", language: "markdown" },
      { notebook: "jupyter-notebook", language: "python" },
    ]);
  });

  it("package.json names the code languages, the text formats and Jupyter notebooks", () => {
    const kinds = analysedKinds(manifest.activationEvents);
    for (const id of ["markdown", "mdx", "restructuredtext", "plaintext", "python", "javascript", "typescript", "typescriptreact", "go", "rust", "java"]) {
      assert.ok(kinds.languages.includes(id), `no onLanguage:${id}`);
    }
    assert.deepEqual(kinds.notebookTypes, ["jupyter-notebook"]);
  });

  it("no menu lists languages of its own: each tests the one context key", () => {
    const clauses = whenClauses();
    assert.ok(clauses.length >= 4, `${clauses.length} when clauses`);
    for (const { where, when } of clauses) {
      assert.doesNotMatch(when, /editorLangId\s*(==|!=|=~)|resourceLangId|resourceExtname/, `${where}: ${when}`);
      assert.match(when, /\beditorLangId in chunkseam\.languages\b/, `${where}: ${when}`);
      // the commands work on text editors, not in a notebook's cells
      assert.match(when, /\bactiveEditor != workbench\.editor\.notebook\b/, `${where}: ${when}`);
    }
  });

  it("describes the kinds for messages and picks the code strategy for code", () => {
    assert.equal(describeKinds({ languages: ["markdown", "python"], notebookTypes: ["jupyter-notebook"] }), "Markdown or Python file");
    assert.equal(describeKinds({ languages: ["go"], notebookTypes: [] }), "Go file");
    assert.ok(isCodeLanguage("typescript") && isCodeLanguage("python") && !isCodeLanguage("restructuredtext"));
    assert.deepEqual(defaultStrategiesFor("rust"), ["fixed", "recursive", "code"]);
    assert.ok(defaultStrategiesFor("mdx").includes("markdown"));
  });
});
