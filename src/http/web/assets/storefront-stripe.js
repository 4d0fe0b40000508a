/*
 * Stripe's payment form on the storefront's payment page: Stripe.js (loaded before this from
 * js.stripe.com) mounts its Payment Element for the order's PaymentIntent (the form's
 * data-client-secret) and confirms it; Stripe then sends the guest to the order's page
 * (data-return-url). The outcome reaches Servery by Stripe's webhook, not from this page.
 */
const form = document.getElementById('stripe-payment');
if (form && window.Stripe) {
  const stripe = window.Stripe(form.dataset.publishableKey, { locale: form.dataset.locale });
  const elements = stripe.elements({ clientSecret: form.dataset.clientSecret });
  elements.create('payment').mount('#stripe-element');
  const problem = document.getElementById('stripe-error');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { error } = await stripe.confirmPayment({
      elements,
      confirmParams: { return_url: form.dataset.returnUrl },
    });
    if (error) {
      problem.textContent = error.message;
      problem.hidden = false;
    }
  });
}
