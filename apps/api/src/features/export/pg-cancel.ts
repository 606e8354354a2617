// Ends a statement still running on a connection: PostgreSQL's cancel request (what psql sends on
// Ctrl-C), 16 bytes on a socket of its own naming the backend and its secret key. Closing the
// statement's own connection is not enough: a backend waiting on a lock, sorting, or blocked sending
// to a client that stopped reading notices the client is gone only when it next writes to it.
import { connect } from 'node:net';

/** What a `pg` client knows about its backend once connected. */
export interface Backend {
  host?: string;
  port?: number;
  processID?: number | null;
  secretKey?: number | null;
}

const CANCEL_REQUEST_CODE = 80877102;

/** Sends the cancel request; resolves once the server closed the socket (or after `waitMs`), never rejects. */
export function sendCancel(backend: Backend, waitMs = 5000): Promise<void> {
  const { processID, secretKey } = backend;
  if (processID == null || secretKey == null) return Promise.resolve();
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const host = backend.host ?? 'localhost';
  const port = backend.port ?? 5432;
  return new Promise((resolve) => {
    const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.setTimeout(waitMs, () => socket.destroy());
    socket.once('connect', () => socket.end(message));
    socket.once('error', () => undefined);
    socket.once('close', () => resolve());
  });
}
