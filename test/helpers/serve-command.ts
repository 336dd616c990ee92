/**
 * The words after `heliograph` that start the service on loopback with the given data
 * directory and plugins.json: how every test and benchmark that runs `serve` in a child
 * process starts it (port 0 unless a test needs a port of its own).
 */
export function serveArgs(options: { port?: number; data: string; plugins: string }): string[] {
  return [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--data',
    options.data,
    '--plugins',
    options.plugins,
  ];
}
