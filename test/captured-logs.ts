import { Writable } from 'node:stream';
import pino from 'pino';
import { logRedaction } from '../src/app.ts';

/**
 * A logger redacting as the service's own does (src/main.ts), at every level, keeping each line
 * it writes in `lines`: for tests that what must not be logged is not.
 */
export function capturedLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'trace', redact: logRedaction },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  return { logger, lines };
}
