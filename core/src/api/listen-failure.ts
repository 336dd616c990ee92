/**
 * A listen error in words: what is wrong with the address or port, and what to do. The port
 * comes from --port or HELIOGRAPH_PORT (config.json has no port: it is read before the config).
 */
export function listenFailure(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `port ${port} on ${host}`;
  const other =
    'start Heliograph with --port N (or HELIOGRAPH_PORT=N in its environment; under systemd: sudo systemctl edit heliograph)';
  if (code === 'EADDRINUSE')
    return new Error(`${where} is in use by another program; stop it or ${other}`, { cause: err });
  if (code === 'EACCES')
    return new Error(
      `${where} needs a privilege this user does not have (ports below 1024 are reserved to root); ` +
        'start Heliograph with a port from 1024 up (--port N, or HELIOGRAPH_PORT=N in its environment), ' +
        'or give the service the right: under systemd, AmbientCapabilities=CAP_NET_BIND_SERVICE (sudo systemctl edit heliograph)',
      { cause: err },
    );
  if (code === 'EADDRNOTAVAIL')
    return new Error(
      `${host} is not an address of this machine; start Heliograph with --host A (or HELIOGRAPH_HOST), 0.0.0.0 for all of them`,
      { cause: err },
    );
  return err;
}
