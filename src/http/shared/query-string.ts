/*
 * Query string parsing as `application/x-www-form-urlencoded` (`+` is a space), with one
 * exception the spec asks for: an unencoded `+` before the offset of a timestamp
 * (`…T10:00:00+02:00`) is taken as the `+` it was meant to be. A repeated parameter keeps all its
 * values (an array), which the schemas refuse: lists are comma-separated.
 */
const timestampWithPlusOffset = /(T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\+(\d{2}(?::?\d{2})?)$/;

export function parseQueryString(query: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = Object.create(null);
  for (const pair of query.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1).replace(timestampWithPlusOffset, '$1%2B$2');
    const key = decode(rawKey);
    const value = decode(rawValue);
    const seen = result[key];
    if (seen === undefined) result[key] = value;
    else result[key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return result;
}

function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Malformed escapes stay as they were; the schema check then refuses the value.
    return spaced;
  }
}
