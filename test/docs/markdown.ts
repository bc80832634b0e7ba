/**
 * Reading the repository's Markdown the way GitHub renders it, for the documentation tests: which files are
 * documentation, their links, the anchors their headings make, and the commands and code spans they show. Text
 * inside fenced code blocks is code, never a link or a heading.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

// What .gitignore leaves out of the repository: build output, reports and the benches' scratch (`.tmp`, where
// `npm run bench:ab` checks out the commit it compares with).
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git', 'bench-results', 'coverage', '.tmp']);

/** Every Markdown file of the repository, as a path relative to its root. */
export function markdownFiles(dir = REPO_ROOT): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) found.push(...markdownFiles(join(dir, entry.name)));
    } else if (entry.name.endsWith('.md')) {
      found.push(relative(REPO_ROOT, join(dir, entry.name)));
    }
  }
  return found.sort();
}

export interface MarkdownDocument {
  path: string;
  /** The prose: every line outside fenced code blocks (blank where a fence was, so line numbers hold). */
  prose: string[];
  /** Fenced code blocks with their info string (`sh`, `yaml`, …) and the line of their first line. */
  blocks: Array<{ info: string; lines: string[]; line: number }>;
}

export function readMarkdown(path: string): MarkdownDocument {
  const lines = readFileSync(join(REPO_ROOT, path), 'utf8').split('\n');
  const prose: string[] = [];
  const blocks: MarkdownDocument['blocks'] = [];
  let open: MarkdownDocument['blocks'][number] | undefined;
  let fence = '';
  lines.forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (open === undefined && marker) {
      fence = marker[1]!;
      open = { info: marker[2]!.trim(), lines: [], line: index + 2 };
      prose.push('');
    } else if (open !== undefined && marker && marker[1]!.startsWith(fence) && marker[2]!.trim() === '') {
      blocks.push(open);
      open = undefined;
      prose.push('');
    } else if (open !== undefined) {
      open.lines.push(line);
      prose.push('');
    } else {
      prose.push(line);
    }
  });
  return { path, prose, blocks };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingSlug(text: string): string {
  const plain = text
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a document's headings make, duplicates numbered as GitHub numbers them. */
export function anchors(doc: MarkdownDocument): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of doc.prose) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

export interface MarkdownLink {
  target: string;
  line: number;
}

/** Inline links and images of the prose; code spans are skipped. */
export function links(doc: MarkdownDocument): MarkdownLink[] {
  const found: MarkdownLink[] = [];
  doc.prose.forEach((line, index) => {
    const withoutCode = line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
    for (const match of withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      found.push({ target: match[1]!, line: index + 1 });
    }
  });
  return found;
}

/** Inline code spans of the prose (tables included), with their line. */
export function codeSpans(doc: MarkdownDocument): Array<{ text: string; line: number }> {
  const found: Array<{ text: string; line: number }> = [];
  const text = doc.prose.join('\n');
  // A span may wrap onto the next line, as in a reflowed paragraph.
  for (const match of text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ text: match[1]!.replace(/\s*\n\s*/g, ' '), line });
  }
  return found;
}

export interface ShownCommand {
  /** The command's words, comments and shell operators removed. */
  words: string[];
  where: string;
}

const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);

/** One shell line split into the simple commands it runs (`a && b | c &` → a, b, c). */
export function simpleCommands(line: string): string[][] {
  const code = line.replace(/(^|\s)#.*$/, '').replace(/\s\d?>>?&?\s*\S+|\s<\s*\S+/g, ' ');
  return code
    .split(/&&|\|\||[;|&]/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0);
}

/** The commands a document shows: every line of its shell blocks, and every code span that is a command. */
export function shownCommands(doc: MarkdownDocument): ShownCommand[] {
  const found: ShownCommand[] = [];
  for (const block of doc.blocks) {
    if (!SHELLS.has(block.info)) continue;
    let continued = '';
    block.lines.forEach((line, offset) => {
      if (line.trimEnd().endsWith('\\')) {
        continued += line.trimEnd().slice(0, -1) + ' ';
        return;
      }
      for (const words of simpleCommands(continued + line)) found.push({ words, where: `${doc.path}:${block.line + offset}` });
      continued = '';
    });
  }
  for (const span of codeSpans(doc)) {
    if (!/^(npm|npx|kube-ledger|node|kubectl)\s/.test(span.text)) continue;
    for (const words of simpleCommands(span.text)) found.push({ words, where: `${doc.path}:${span.line}` });
  }
  return found;
}
