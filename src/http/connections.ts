import type http from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import { authClient } from '../domain/operators/operator-auth';
import type { Deps } from '../deps';

export type DropReason = 'idle' | 'per_client' | 'listener_full';

/**
 * What a listener does with connections before any request: a client cannot hold the port by opening connections
 * and sending nothing, or by opening many from one address.
 *
 * - A connection that sends no byte within FIRST_BYTE_TIMEOUT_MS of accept is closed (Node's headersTimeout starts
 *   only with a request's first byte, so such a connection was never closed).
 * - One client address (an IPv6 /64) holds at most MAX_CONNECTIONS_PER_CLIENT connections; more are closed at
 *   accept. A trusted proxy (TRUST_PROXY) is exempt: every client arrives through it.
 * - When the listener is full (MAX_CONNECTIONS), idle keep-alive connections are closed to make room.
 *
 * Each drop is counted (`http_connections_dropped_total{reason}`) and logged at most once per reason every 10 s,
 * with the count since the last line, so a flood cannot flood the log.
 */
export function guardConnections(server: http.Server, deps: Pick<Deps, 'config' | 'metrics' | 'logger'>): void {
  const { firstByteTimeoutMs, maxConnectionsPerClient, trustProxy } = deps.config;
  // Express's own compiled `trust proxy` rule (the one req.ip follows), asked of the socket's peer. Express types
  // settings as `any`; this one is documented as this function.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const trusted: (address: string, hop: number) => boolean = express().set('trust proxy', trustProxy).get('trust proxy fn');
  const open = new Map<string, number>();
  const dropped = droppedLog(deps);

  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    if (!trusted(peer, 0)) {
      const client = authClient(peer);
      const held = (open.get(client) ?? 0) + 1;
      if (held > maxConnectionsPerClient) {
        dropped('per_client', client);
        socket.destroy();
        return;
      }
      open.set(client, held);
      socket.once('close', () => {
        const left = (open.get(client) ?? 1) - 1;
        if (left > 0) open.set(client, left);
        else open.delete(client);
      });
    }
    const timer = setTimeout(() => {
      if (socket.bytesRead > 0 || socket.destroyed) return;
      dropped('idle', authClient(peer));
      socket.destroy();
    }, firstByteTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });

  // Node closes a connection over `maxConnections` at accept and says so here.
  server.on('drop', (data?: { remoteAddress?: string }) => {
    dropped('listener_full', data?.remoteAddress ? authClient(data.remoteAddress) : 'unknown');
    server.closeIdleConnections();
  });
}

/** Counts every drop; logs one line per reason at most every 10 s, naming the last client and how many since. */
function droppedLog(deps: Pick<Deps, 'metrics' | 'logger'>) {
  const last = new Map<DropReason, { at: number; since: number }>();
  return (reason: DropReason, client: string) => {
    deps.metrics.connectionsDropped.inc({ reason });
    const now = Date.now();
    const entry = last.get(reason) ?? { at: 0, since: 0 };
    entry.since += 1;
    last.set(reason, entry);
    if (now - entry.at < 10_000) return;
    deps.logger.warn({ reason, client, dropped: entry.since }, 'connections dropped');
    entry.at = now;
    entry.since = 0;
  };
}
