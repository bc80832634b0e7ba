/**
 * Incremental newline-delimited JSON: a watch body is an endless stream of `{"type":..,"object":..}` lines, so it is
 * decoded chunk by chunk (UTF-8 sequences split across chunks are kept whole) and never buffered as a whole.
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
    let start = 0;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n', start)) {
      const line = pending.slice(start, newline);
      start = newline + 1;
      if (line.trim() !== '') yield parseLine(line);
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending.trim() !== '') yield parseLine(pending);
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (err) {
    throw new JsonLineError(`watch stream line is not JSON (${line.length} chars): ${(err as Error).message}`);
  }
}
