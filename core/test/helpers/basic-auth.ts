/**
 * The `Authorization` header of HTTP Basic for `user:password` (the device accepts any user
 * name; `admin` by convention), UTF-8 encoded as the web app sends it.
 */
export function basicAuth(password: string, user = 'admin'): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}
