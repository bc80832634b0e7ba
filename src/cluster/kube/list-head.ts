/**
 * The continue token of a list page, read from the head of its body before the items arrive. The API server writes
 * a list as its Go struct is declared (k8s.io/apimachinery ListMeta before Items: `{"kind":…,"apiVersion":…,
 * "metadata":{…,"continue":…},"items":[…`), streamed encoders included, so the token is in the first bytes of a
 * page that may be megabytes long. Knowing it early lets the reflector ask for the next page while this one is still
 * arriving and being parsed: the server prepares page n+1 while the client parses page n, instead of each side
 * waiting for the other 300 times for 150k pods.
 *
 * Anything unexpected (metadata after the items, a head that does not parse) answers "unknown", and the caller
 * waits for the whole page as before; the token read here is checked against the parsed page's.
 */

/** How far into a body the head is looked for: ListMeta is a few hundred bytes; a missing key must not cost a scan. */
export const LIST_HEAD_MAX_BYTES = 64 * 1024;

const ITEMS_KEY = '"items":';

/**
 * The page's `metadata.continue` ('' when the page says there is no more) once `text`, the start of a list body,
 * holds the whole ListMeta; undefined while it cannot tell. `"items":` cannot occur inside a JSON string of the
 * head (a quote in a string is escaped), so its first occurrence is the top-level key when the metadata precedes it.
 */
export function continueTokenOfListHead(text: string): string | undefined {
  const items = text.indexOf(ITEMS_KEY);
  if (items < 0) return undefined;
  let end = items - 1;
  while (end >= 0 && isJsonWhitespace(text.charCodeAt(end))) end--;
  if (end < 0 || text.charCodeAt(end) !== 0x2c /* , */) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(`${text.slice(0, end)}}`);
  } catch {
    return undefined;
  }
  if (typeof head !== 'object' || head === null || Array.isArray(head)) return undefined;
  const metadata = (head as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined;
  const token = (metadata as { continue?: unknown }).continue;
  if (token === undefined) return '';
  return typeof token === 'string' ? token : undefined;
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
