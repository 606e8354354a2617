import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ProblemCode, problemTypeUri } from '../problem-types.ts';

/** What a request Node's HTTP parser refused gets told, by the parser's error code. */
function refusalOf(code: string | undefined): { code: ProblemCode; title: string; status: number } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      code: 'too-large',
      title: 'The URL and headers are too large (16 KB at most): send a shorter URL and fewer or smaller headers',
      status: 431,
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'unavailable', title: 'The request took too long to arrive: send it again', status: 408 };
  }
  return { code: 'validation', title: 'The request is not valid HTTP/1.1: check the request line and headers', status: 400 };
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
    const { code, title, status } = refusalOf(err.code);
    const body = JSON.stringify({ type: problemTypeUri(code), code, title, status });
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
