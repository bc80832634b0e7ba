/**
 * The one path every route and every gate of both listeners is decided on. Paths are exact and case-sensitive, as
 * Go's net/http mux and the URLs kube-scheduler builds from `urlPrefix` + verb are: the path is the request-target's
 * bytes up to the query, never decoded, never resolved. `/DEBUG/ledger`, `/debug/%6Cedger`, `/x/../debug/ledger`,
 * `//debug/ledger` and `/debug/ledger/` are simply paths no route has (404), so a gate and the route it guards can
 * never disagree about what was asked for. An absolute-form target (`http://host/debug/ledger`, which a server must
 * accept: RFC 9112 §3.2.2) has the same path as its origin form; the authority is ignored, never a route.
 */

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** The path of a request-target, or undefined for a target that names no path (`*`, authority-form). */
export function canonicalPath(target: string | undefined): string | undefined {
  if (target === undefined || target === '') return undefined;
  if (target.charCodeAt(0) === 0x2f /* / */) return beforeQuery(target);
  const scheme = ABSOLUTE_FORM.exec(target);
  if (scheme === null) return undefined;
  const rest = target.slice(scheme[0].length);
  return rest === '' || rest.charCodeAt(0) === 0x3f /* ? */ ? '/' : beforeQuery(rest);
}

function beforeQuery(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

