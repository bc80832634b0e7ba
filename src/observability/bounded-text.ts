/**
 * Text that came from a request, cut to a bounded length before it is echoed in a reply or written to a log: a
 * client can send a 1 MB JSON key or pod name, and neither the reply nor the log line should carry it whole.
 */

/** Characters of client-supplied text kept in a reply or a log field. */
export const ECHO_LIMIT = 256;

/** `text` itself when short enough; otherwise its start and how much was left out. */
export function boundedText(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}…(${text.length - limit} more characters)`;
}
