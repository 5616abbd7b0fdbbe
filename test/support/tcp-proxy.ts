import net from 'node:net';

/** A TCP proxy in front of a server (PostgreSQL) that a test can cut and restore, as a network or database outage would. */
export function outageProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  return {
    open: () =>
      new Promise<void>((resolve) => {
        server = net.createServer((client) => {
          const upstream = net.connect(targetPort, targetHost);
          // Either side gone (ended, or reset as a killed process's socket is) closes the other: as with a direct
          // connection, PostgreSQL then ends the session and releases what its open transaction held. (pipe() alone
          // ends the other side only on a clean end, and left a reset client's transaction open, its locks held.)
          const pair = [client, upstream];
          for (const s of pair) {
            sockets.add(s);
            s.on('error', () => undefined);
            s.on('close', () => {
              sockets.delete(s);
              for (const other of pair) other.destroy();
            });
          }
          client.pipe(upstream).pipe(client);
        });
        server.listen(port, '127.0.0.1', () => {
          port = (server!.address() as net.AddressInfo).port;
          resolve();
        });
      }),
    get port() {
      return port;
    },
    /** Drops every connection and stops listening (the port is kept for open()). */
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server?.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
