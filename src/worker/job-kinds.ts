import { emailJob, renderedEmailJob } from './email.job.ts';
import type { JobHandlers } from './job-queue.ts';
import { kitchenTicketJob } from './kitchen-ticket.job.ts';
import { menuImagesJob } from './menu-images.job.ts';

/** The handler of each kind of queued job (domain/jobs/jobs.ts lists the kinds and their payloads). */
export const jobHandlers: JobHandlers = {
  email: emailJob,
  'rendered-email': renderedEmailJob,
  'menu-images': menuImagesJob,
  'kitchen-ticket': kitchenTicketJob,
};
