/*
 * A payment provider takes an order's online payment (adapters/payments: the built-in test
 * provider, Stripe). Starting is the only call Servery makes to it; the outcome comes back on the
 * provider's own way (the test checkout page, Stripe's signed webhook) to recordPaymentOutcome.
 */

export type ProviderName = 'test' | 'stripe';

export interface PaymentRequest {
  readonly tenantId: string;
  readonly orderId: string;
  /** In the smallest currency unit. */
  readonly amount: number;
  /** ISO 4217, upper case. */
  readonly currency: string;
  /** What the guest's statement shows: the restaurant and the order's code. */
  readonly description: string;
}

export interface StartedPayment {
  /** The provider's id of the payment; starting the same order again gives the same one. */
  readonly reference: string;
  /** What the guest's browser needs to pay (Stripe's PaymentIntent client secret); null for the test provider. */
  readonly clientSecret: string | null;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** For the checkout page: Stripe's publishable key; null for the test provider. */
  readonly publishableKey: string | null;
  /** Starts (or, for an order already started, finds again) the payment of an order. */
  start(request: PaymentRequest): Promise<StartedPayment>;
}
