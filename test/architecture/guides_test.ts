/**
 * Issue 36: the guides stay true to the code. `docs/architecture.md` and every
 * `docs/adding-a-*.md` name source files and the symbols a reader is told to edit in code spans;
 * this test reads them and fails, naming each, when
 *
 * - a path in a code span (`src/…`, `test/…`, `functions/…`, `shaders/…`, or a file name such as
 *   `kinds/steps.ts` or `privacy.ts`) names no file or folder of the repository, or
 * - a symbol paired with a file — "`SYMBOL` in `file`", "`SYMBOL` (`file`)", or a table row
 *   "| `file` | `SYMBOL`, … |" — does not occur in that file.
 *
 * Files a guide asks the reader to create (its worked example: `half_sw`, `gamma`) are skipped,
 * and so is code inside fenced blocks. It also checks that `docs/decisions.md` opens with an index
 * by topic that links every "## " entry exactly once, so a new entry must be indexed.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The stems of the files the guides' worked examples create (they do not exist, by design). */
const EXAMPLES = ["half_sw", "gamma"];

/** Folders whose files a guide may name (walked for bare file names). */
const SOURCE_DIRS = ["src", "test", "functions", "shaders", "docs"];

/** Heading of the index at the top of `docs/decisions.md`. */
const INDEX_HEADING = "Index by topic";

/** Markdown without its fenced code blocks (their code is an example, not a reference). */
export function prose(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, "");
}

/** Every repository file under `dir` (relative to the root), skipping `node_modules`. */
async function walk(dir: string, out: string[]): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(`${ROOT}${dir}`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  out.push(`${dir}/`);
  for (const entry of entries) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await walk(path, out);
    else out.push(path);
  }
}

/** A reference a guide makes: a path, optionally with a symbol that must occur in it. */
export interface GuideReference {
  readonly guide: string;
  readonly path: string;
  readonly symbol?: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const FILE_NAME = /^[\w./-]+\.(?:ts|wgsl|md|json)$/;
const ROOTED = new RegExp(`^(?:${SOURCE_DIRS.join("|")})/`);

/** Whether a code span names a file or folder of the repository (and is not a placeholder). */
export function isPathSpan(span: string): boolean {
  if (/[\s*<>{}…]/.test(span)) return false;
  return ROOTED.test(span) || FILE_NAME.test(span);
}

/**
 * The references of one guide: every path in a code span, and every symbol paired with a file
 * ("`X` in `F`", "`X` (`F`)", or a table row whose first cell is the file).
 */
export function referencesOf(guide: string, markdown: string): GuideReference[] {
  const text = prose(markdown);
  const out: GuideReference[] = [];
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    if (isPathSpan(span)) out.push({ guide, path: span });
  }
  const pairs = [
    /`([^`\n]+)`\s+in\s+(?:the\s+)?`([^`\n]+)`/g,
    /`([^`\n]+)`\s+\(`([^`\n]+)`/g,
  ];
  for (const pattern of pairs) {
    for (const [, symbol, path] of text.matchAll(pattern)) {
      if (IDENTIFIER.test(symbol) && isPathSpan(path)) out.push({ guide, path, symbol });
    }
  }
  for (const line of text.split("\n")) {
    const row = line.match(/^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/);
    if (row === null || !isPathSpan(row[1])) continue;
    for (const [, symbol] of row[2].matchAll(/`([^`\n]+)`/g)) {
      if (IDENTIFIER.test(symbol)) out.push({ guide, path: row[1], symbol });
    }
  }
  return out.filter((ref) => !EXAMPLES.some((stem) => ref.path.includes(stem)));
}

/** The repository files a path span can mean: itself, or any file it is the tail of. */
function resolve(span: string, files: readonly string[]): string[] {
  const path = span.replace(/\/$/, "");
  return files.filter((file) => {
    const bare = file.replace(/\/$/, "");
    return bare === path || bare.endsWith(`/${path}`);
  });
}

async function guides(): Promise<string[]> {
  const names = (await Array.fromAsync(Deno.readDir(`${ROOT}docs`)))
    .map((entry) => entry.name)
    .filter((name) => /^adding-a-.*\.md$/.test(name))
    .sort();
  return ["docs/architecture.md", ...names.map((name) => `docs/${name}`)];
}

Deno.test("the guides name files that exist and symbols found in them", async () => {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) await walk(dir, files);
  const names = await guides();
  assert.ok(
    names.includes("docs/adding-a-mechanism.md") && names.includes("docs/adding-a-model.md"),
  );
  const references: GuideReference[] = [];
  for (const guide of names) {
    references.push(...referencesOf(guide, await Deno.readTextFile(`${ROOT}${guide}`)));
  }
  // The extraction finds the registry lines the guides send a reader to.
  const pairs = new Set(references.map((r) => `${r.symbol} ${r.path}`));
  for (
    const pair of [
      "MECHANISM_NAMES src/mechanisms/mechanism.ts",
      "MECHANISMS src/mechanisms/registry.ts",
      "MECHANISM_DESCRIPTIONS src/synthesis/release_summary.ts",
      "SCALED src/synthesis/release_summary.ts",
      "FILE_MECHANISMS src/synthesis/file_spec.ts",
    ]
  ) assert.ok(pairs.has(pair), `no guide pairs ${pair}`);

  const problems: string[] = [];
  const sources = new Map<string, string>();
  for (const ref of references) {
    const matches = resolve(ref.path, files);
    if (matches.length === 0) {
      problems.push(`${ref.guide}: \`${ref.path}\` does not exist`);
      continue;
    }
    if (ref.symbol === undefined) continue;
    const word = new RegExp(`(?<![\\w$])${ref.symbol.replace(/\$/g, "\\$")}(?![\\w$])`);
    let found = false;
    for (const match of matches.filter((m) => !m.endsWith("/"))) {
      if (!sources.has(match)) sources.set(match, await Deno.readTextFile(`${ROOT}${match}`));
      if (word.test(sources.get(match)!)) found = true;
    }
    if (!found) problems.push(`${ref.guide}: \`${ref.symbol}\` is not in \`${ref.path}\``);
  }
  assert.deepEqual([...new Set(problems)], []);
});

Deno.test("a path span is a path, a placeholder is not", () => {
  assert.equal(isPathSpan("src/mechanisms/registry.ts"), true);
  assert.equal(isPathSpan("kinds/steps.ts"), true);
  assert.equal(isPathSpan("src/random"), true);
  assert.equal(isPathSpan("src/mechanisms/kinds/*.ts"), false);
  assert.equal(isPathSpan("shaders/lipschitz_<kernel>.wgsl"), false);
  assert.equal(isPathSpan("MECHANISMS"), false);
  const refs = referencesOf(
    "g.md",
    "Add it to `X_LIST` in `src/a.ts`, see `f` (`b.ts`).\n\n| `src/c.ts` | `Y`, settings |\n" +
      "```ts\n`Z` in `src/d.ts`\n```\nWrite `src/models/gamma.ts` (say).\n",
  );
  assert.deepEqual(refs.map((r) => `${r.symbol ?? ""} ${r.path}`).sort(), [
    " b.ts",
    " src/a.ts",
    " src/c.ts",
    "X_LIST src/a.ts",
    "Y src/c.ts",
    "f b.ts",
  ]);
});

/**
 * The anchor GitHub gives a heading (github-slugger): its rendered text lower-cased, without
 * punctuation and symbols (letters, marks, digits, "_", "-" and spaces stay), spaces as hyphens.
 */
export function githubSlug(heading: string): string {
  const text = heading.replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The "## " headings of a markdown file outside fenced code, in order. */
export function sectionsOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/^## (.+?)\s*$/gm)].map((m) => m[1]);
}

Deno.test("github slugs", () => {
  assert.equal(
    githubSlug("R̂ and ESS follow the `posterior` package, not rstan 2.21"),
    "r̂-and-ess-follow-the-posterior-package-not-rstan-221",
  );
  assert.equal(
    githubSlug("FBS coefficients ~ N(0, 10²), as FBP's"),
    "fbs-coefficients--n0-10-as-fbps",
  );
  assert.equal(githubSlug("Store hygiene"), "store-hygiene");
});

Deno.test("docs/decisions.md opens with an index that links every entry exactly once", async () => {
  const markdown = await Deno.readTextFile(`${ROOT}docs/decisions.md`);
  const sections = sectionsOf(markdown);
  assert.equal(sections[0], INDEX_HEADING, `the first "## " section is "${INDEX_HEADING}"`);
  const start = markdown.indexOf(`\n## ${INDEX_HEADING}\n`);
  const end = markdown.indexOf("\n## ", start + 1);
  const index = markdown.slice(start, end);
  const links = [...index.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]);

  // GitHub suffixes a repeated heading's anchor with -1, -2, …
  const seen = new Map<string, number>();
  const anchors = sections.slice(1).map((heading) => {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return { heading, anchor: count === 0 ? slug : `${slug}-${count}` };
  });
  const problems: string[] = [];
  for (const { heading, anchor } of anchors) {
    const times = links.filter((link) => link === anchor).length;
    if (times !== 1) problems.push(`"## ${heading}" (#${anchor}) is linked ${times} times`);
  }
  const known = new Set(anchors.map((a) => a.anchor));
  for (const link of links) {
    if (!known.has(link)) problems.push(`the index links #${link}, which no section has`);
  }
  assert.deepEqual(problems, []);
});
