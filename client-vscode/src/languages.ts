/**
 * The documents chunkseam analyses, in one place: the `onLanguage:` and
 * `onNotebook:` activation events of package.json. The document selector of
 * the language client, the documents that get bands and a status bar, and
 * the `chunkseam.languages` context key of the menus' `when` clauses are all
 * derived from them at activation (no `vscode` import here: unit-tested).
 * tests/lsp/test_vscode_extension.py checks the list against the server's own
 * table of language ids.
 */

export interface AnalysedKinds {
  /** VS Code language ids, in the order of package.json. */
  languages: string[];
  /** Notebook types (`jupyter-notebook`) whose cells are analysed. */
  notebookTypes: string[];
}

/** Schemes of documents that have a text the server can read. */
export const TEXT_SCHEMES = ["file", "untitled"] as const;

export type Filter = { scheme: string; language: string } | { notebook: string; language: string };

export function analysedKinds(activationEvents: readonly unknown[] | undefined): AnalysedKinds {
  const languages: string[] = [];
  const notebookTypes: string[] = [];
  for (const event of activationEvents ?? []) {
    const m = typeof event === "string" ? /^(onLanguage|onNotebook):(.+)$/.exec(event) : null;
    const list = m ? (m[1] === "onLanguage" ? languages : notebookTypes) : undefined;
    if (m && list && !list.includes(m[2])) {
      list.push(m[2]);
    }
  }
  return { languages, notebookTypes };
}

/**
 * The language client's document selector: every language in a file or an
 * unsaved editor, and every cell of those languages in the notebooks. The
 * cells reach the server through the notebook synchronization the server
 * announces; these entries make the client ask for their lenses, hovers and
 * actions.
 */
export function documentSelector(kinds: AnalysedKinds): Filter[] {
  const out: Filter[] = [];
  for (const language of kinds.languages) {
    for (const scheme of TEXT_SCHEMES) {
      out.push({ scheme, language });
    }
  }
  for (const notebook of kinds.notebookTypes) {
    for (const language of kinds.languages) {
      out.push({ notebook, language });
    }
  }
  return out;
}

const NAMES: Record<string, string> = {
  markdown: "Markdown",
  mdx: "MDX",
  restructuredtext: "reStructuredText",
  plaintext: "text",
  python: "Python",
  javascript: "JavaScript",
  javascriptreact: "JavaScript (JSX)",
  typescript: "TypeScript",
  typescriptreact: "TypeScript (TSX)",
  go: "Go",
  rust: "Rust",
  java: "Java",
};

/**
 * "Markdown, MDX, … or Java file" for the messages of the commands, which
 * work on text documents (a notebook's cells get diagnostics and hovers only).
 */
export function describeKinds(kinds: AnalysedKinds): string {
  const names = [...new Set(kinds.languages.map((id) => NAMES[id] ?? id))];
  if (names.length === 0) {
    return "document";
  }
  const last = names.pop() as string;
  return `${names.length ? `${names.join(", ")} or ${last}` : last} file`;
}

/** The languages compared with the `code` strategy by default (else the text ones). */
const TEXT_LANGUAGES = new Set(["markdown", "mdx", "restructuredtext", "plaintext"]);

export function isCodeLanguage(languageId: string): boolean {
  return !TEXT_LANGUAGES.has(languageId);
}
