/** Fixed clock for synthetic objects: timestamps are offsets from one instant so output never depends on "now". */

const BASE_EPOCH_MS = Date.UTC(2026, 9, 1, 12, 0, 0);

/** RFC 3339 with second precision, as the API server writes metav1.Time. */
export function timestampSecondsAgo(seconds: number): string {
  return new Date(BASE_EPOCH_MS - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

