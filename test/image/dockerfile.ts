/**
 * A small Dockerfile reader, enough for this repository's Dockerfile: comments, `\` continuations, global and
 * per-stage ARG defaults substituted into later instructions, JSON-form ENTRYPOINT/CMD, `ENV k=v` with quotes.
 * Used to check that the image's stages and the replay (replay.ts) are the same steps.
 */

export interface Instruction {
  keyword: string;
  /** The arguments after ARG substitution, whitespace collapsed. */
  text: string;
  line: number;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  globalArgs: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(source: string): Dockerfile {
  const logical: Array<{ text: string; line: number }> = [];
  let pending = '';
  let startLine = 0;
  source.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (pending === '' && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (pending !== '' && trimmed.startsWith('#')) return;
    if (pending === '') startLine = index + 1;
    if (trimmed.endsWith('\\')) {
      pending += trimmed.slice(0, -1) + ' ';
      return;
    }
    logical.push({ text: (pending + trimmed).trim(), line: startLine });
    pending = '';
  });
  if (pending !== '') throw new Error(`Dockerfile line ${startLine}: continuation at end of file`);

  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  let stageArgs: Record<string, string> = {};
  for (const { text, line } of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(text)!;
    const keyword = match[1]!.toUpperCase();
    const args = match[2] ?? '';
    const current = stages.at(-1);
    const substituted = substitute(args, { ...globalArgs, ...stageArgs }).replace(/\s+/g, ' ').trim();
    if (keyword === 'ARG') {
      const [name, value = ''] = splitAssignment(args);
      if (current) stageArgs[name] = substitute(value, { ...globalArgs, ...stageArgs });
      else globalArgs[name] = value;
      if (current) current.instructions.push({ keyword, text: `${name}=${stageArgs[name]}`, line });
      continue;
    }
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(substituted);
      if (!from) throw new Error(`Dockerfile line ${line}: cannot read FROM ${args}`);
      stages.push({ from: from[1]!, name: from[2] ?? String(stages.length), instructions: [] });
      stageArgs = {};
      continue;
    }
    if (!current) throw new Error(`Dockerfile line ${line}: ${keyword} before FROM`);
    current.instructions.push({ keyword, text: substituted, line });
  }
  return { globalArgs, stages };
}

/** `NAME=value` or `NAME="quoted value"` (one per ARG; ENV may hold several, see readEnv). */
function splitAssignment(text: string): [string, string?] {
  const eq = text.indexOf('=');
  if (eq === -1) return [text.trim()];
  return [text.slice(0, eq).trim(), unquote(text.slice(eq + 1).trim())];
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

function substitute(text: string, args: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    return name in args ? args[name]! : whole;
  });
}

/** `ENV A=1 B="two words"` as a map. */
export function readEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) env[match[1]!] = unquote(match[2]!);
  return env;
}

/** `LABEL a="x" b="y"` as a map. */
export const readLabels = (text: string): Record<string, string> => {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) labels[match[1]!] = unquote(match[2]!);
  return labels;
};

/** The exec form `["node", "x.js"]` as an array (the shell form is refused: signals would go to a shell). */
export function readExecForm(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`not an exec-form array: ${text}`);
  return parsed;
}

export function stage(file: Dockerfile, name: string): Stage {
  const found = file.stages.find((s) => s.name === name);
  if (!found) throw new Error(`Dockerfile has no stage ${name} (stages: ${file.stages.map((s) => s.name).join(', ')})`);
  return found;
}
