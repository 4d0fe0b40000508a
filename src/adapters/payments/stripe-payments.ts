import Stripe from 'stripe';
import type { StripeSettings } from '../../config.ts';
import type {
  PaymentProvider,
  PaymentRequest,
  StartedPayment,
} from '../../domain/payments/payment-provider.ts';

/*
 * Stripe takes live restaurants' online payments (STRIPE_* settings):
 * - an order's payment is one PaymentIntent, created with an idempotency key made of the order's
 *   id, so starting the same order again (a reload, a retry after a lost answer) finds the same
 *   PaymentIntent instead of charging twice; the guest's browser pays it with its client secret;
 * - Servery never takes the browser's word for the outcome: only Stripe's webhook, signed with
 *   the webhook secret, confirms (http/payments/stripe-webhook.route.ts).
 */
export class StripePayments implements PaymentProvider {
  readonly name = 'stripe';
  readonly publishableKey: string;
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;

  constructor(settings: StripeSettings) {
    this.publishableKey = settings.publishableKey;
    this.#webhookSecret = settings.webhookSecret;
    this.#stripe = new Stripe(settings.secretKey, { ...settings.api });
  }

  async start(request: PaymentRequest): Promise<StartedPayment> {
    const intent = await this.#stripe.paymentIntents.create(
      {
        amount: request.amount,
        currency: request.currency.toLowerCase(),
        automatic_payment_methods: { enabled: true },
        metadata: { tenant_id: request.tenantId, order_id: request.orderId },
        description: request.description,
      },
      { idempotencyKey: `servery-order-${request.orderId}` },
    );
    return { reference: intent.id, clientSecret: intent.client_secret };
  }

  /** The event a webhook delivery carries; throws unless `signature` is the webhook secret's over `raw`. */
  verifiedEvent(raw: Buffer, signature: string): Stripe.Event {
    return this.#stripe.webhooks.constructEvent(raw, signature, this.#webhookSecret);
  }
}
