/**
 * Incremental newline-delimited JSON: a watch body is an endless stream of `{"type":..,"object":..}` lines, so it is
 * decoded chunk by chunk (UTF-8 sequences split across chunks are kept whole) and never buffered as a whole.
 *
 * The complete lines of a chunk are parsed with one JSON.parse, as `[line,line,...]`: a watch-list's initial events
 * are a whole resource (a million pods), and one parse per line cost more than the grouped parse of a list page. A
 * raw newline cannot occur inside a JSON string, so the lines of a compact stream are exactly its values; when the
 * group does not parse (a blank line, a bad line), its lines are parsed one by one, which finds the bad one.
 */
import { StringDecoder } from 'node:string_decoder';

/** Thrown for a line that is not JSON; the stream is unusable after that. */
export class JsonLineError extends Error {
  override readonly name = 'JsonLineError';
}

export async function* readJsonLines(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<unknown> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const last = pending.lastIndexOf('\n');
    if (last < 0) continue;
    const block = pending.slice(0, last);
    pending = pending.slice(last + 1);
    yield* valuesOf(block);
  }
  pending += decoder.end();
  if (pending.trim() !== '') yield parseLine(pending);
}

/** The values of complete lines: one parse for all of them, or line by line when that fails. */
function valuesOf(block: string): unknown[] {
  if (block.length > 0 && !block.includes('\n\n') && block.charCodeAt(0) !== 0x0a) {
    try {
      return JSON.parse(`[${block.replaceAll('\n', ',')}]`) as unknown[];
    } catch {
      // Some line is not one JSON value: read them one by one, which reports the one that is not.
    }
  }
  const values: unknown[] = [];
  for (const line of block.split('\n')) if (line.trim() !== '') values.push(parseLine(line));
  return values;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (err) {
    throw new JsonLineError(`watch stream line is not JSON (${line.length} chars): ${(err as Error).message}`);
  }
}
