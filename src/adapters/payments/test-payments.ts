import type { PaymentProvider } from '../../domain/payments/payment-provider.ts';

/*
 * The built-in test provider, used when no real one is configured (and always for test
 * restaurants): no money moves. Its checkout page lets the guest confirm or fail the payment, and
 * says plainly that it is a test.
 */
/** The test provider's reference of an order's payment. */
export function testPaymentReference(orderId: string): string {
  return `test_${orderId}`;
}

export const testPayments: PaymentProvider = {
  name: 'test',
  publishableKey: null,
  start: async ({ orderId }) => ({ reference: testPaymentReference(orderId), clientSecret: null }),
};
