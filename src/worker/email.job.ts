import { type QueuedEmail, type RenderedEmail, renderEmail } from '../domain/email/email-templates.ts';
import type { JobHandler } from './job-queue.ts';

/*
 * E-mails, as jobs: rendered here, in the recipient's language, and handed to the transport.
 * A refused or failed hand-over is retried after 1 minute, doubling, and given up after 10
 * (the queue's defaults). The transport's time-outs stay well below the queue's lease.
 */

/** Job kind `email`: a template, its parameters and the locale. */
export const emailJob: JobHandler<QueuedEmail> = {
  failure: 'e-mail not sent',
  run: (email, services) => services.emailTransport.send(renderEmail(email)),
};

/** Job kind `rendered-email`: a mail rendered before the queue existed (moved from the outbox). */
export const renderedEmailJob: JobHandler<RenderedEmail> = {
  failure: 'e-mail not sent',
  run: (email, services) => services.emailTransport.send(email),
};
