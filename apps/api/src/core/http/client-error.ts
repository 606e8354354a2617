import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** What a request Node's HTTP parser refused gets told, by the parser's error code. */
function refusalOf(code: string | undefined): { status: number; title: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      title: 'The URL and headers are too large (16 KB at most): send a shorter URL and fewer or smaller headers',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, title: 'The request took too long to arrive: send it again' };
  return { status: 400, title: 'The request is not valid HTTP/1.1: check the request line and headers' };
}

/**
 * Answers requests refused by Node's HTTP parser (a URL or headers past the size limit, malformed
 * HTTP) with problem+json like every other refusal, instead of Node's bare status line, then closes the
 * connection. Attach to every server that serves the app.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, title } = refusalOf(err.code);
    const body = JSON.stringify({ type: 'about:blank', title, status });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
  return server;
}
