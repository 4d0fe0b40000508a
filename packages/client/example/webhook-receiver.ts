/*
 * A webhook receiver: checks each delivery's Service-Signature with the signing secret(s) from the
 * developer console and prints the events it accepts. During a rotation give both secrets:
 *
 *   WEBHOOK_SECRETS=whsec_new,whsec_old PORT=8080 node webhook-receiver.ts
 *
 * Deliveries may repeat and arrive out of order: it drops ids it has seen.
 */

import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@servery/client';

const secrets = (process.env.WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
const seen = new Set<string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      // The raw bytes: a body parsed and serialised again would not verify.
      const event = verifyWebhook(Buffer.concat(chunks), req.headers, secrets);
      if (!seen.has(event.id)) {
        seen.add(event.id);
        console.log(`${event.created_at} ${event.type}`, event.data.object);
      }
      // Answer at once (within 10 s); slow work belongs in a queue.
      res.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.error(`refused a delivery: ${error.reason}`);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 8080), () => {
  console.log(`listening on ${JSON.stringify(server.address())}`);
});
