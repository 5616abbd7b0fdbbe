/** The baseline of the HTTP benchmark: a bare Express 5 app with one JSON echo route, in a process of its own. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.post('/echo', express.json(), (req, res) => {
  res.json({ ok: true, echo: req.body as unknown });
});
const server = http.createServer(app);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => console.log(`echo listening on ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
