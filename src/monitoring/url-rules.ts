// Owns the URL rule shared by checks and notifications: an absolute http or https URL with a host.

/** True when `text` is an absolute http or https URL with a host and no whitespace. */
export function isHttpUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
