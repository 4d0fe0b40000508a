import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { ErrorBody } from './error-reply.ts';

/** `req_` + 24 hex digits of a random UUID (its entropy is drawn in batches: cheap on every request). */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/*
 * A request Node's HTTP parser refuses before Fastify sees it gets the API's error shape with
 * X-Request-Id and Service-Api-Version like every other answer, code invalid_request: 431 when the
 * request line and headers together pass 16 KB (an over-long URL too), else 400 (bad bytes in a
 * header, a malformed request line). Then the connection closes once the answer is sent; what the
 * client still sends is read and dropped for a moment, since closing with it unread would reset
 * the connection and the client could lose the answer. A reset connection or one that timed out
 * gets nothing: no one is waiting for an answer.
 */
export function clientErrorAnswer(
  apiVersion: string,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || socket.destroyed) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const message = tooLarge
      ? 'The request line and headers are larger than the service accepts (16 KB).'
      : 'The request is not valid HTTP (for example a header with bytes it may not hold).';
    const body: ErrorBody = { error: { code: 'invalid_request', message, request_id: requestId } };
    const json = JSON.stringify(body);
    if (!socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        `Service-Api-Version: ${apiVersion}\r\n` +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        json,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), 2000).unref();
  };
}
