import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { testPaymentReference } from '../../../adapters/payments/test-payments.ts';
import type { Db } from '../../../db/client.ts';
import { allergenKeys } from '../../../domain/menu/allergen-names.ts';
import { dietKeys } from '../../../domain/menu/diet-names.ts';
import type { Menu, Product } from '../../../domain/menu/menu.schema.ts';
import { imagePath } from '../../../domain/menu/menu-images.ts';
import { PlaceOrderInputSchema } from '../../../domain/orders/order-placement.schema.ts';
import {
  pausedWithoutEnd,
  placeOrder,
  takesLaterOrders,
} from '../../../domain/orders/order-placement.service.ts';
import { orderWithRestaurant, receiptOf } from '../../../domain/orders/order-receipt.ts';
import { finalOrderStatuses } from '../../../domain/orders/order-status.ts';
import { receiptView } from '../../../domain/orders/receipt-view.ts';
import type { PaymentProvider } from '../../../domain/payments/payment-provider.ts';
import {
  guestOrderByKey,
  recordPaymentOutcome,
  startPayment,
} from '../../../domain/payments/payments.service.ts';
import { takesGuestBookings } from '../../../domain/reservations/guest-booking.ts';
import type { Clock, Ctx } from '../../../domain/shared/context.ts';
import { ApiError } from '../../../domain/shared/errors.ts';
import type { Limiters } from '../../../domain/shared/limits.ts';
import { writeTransaction } from '../../../domain/shared/write-collisions.ts';
import { deliveryTerms } from '../../../domain/store/delivery-zones.ts';
import type { Store } from '../../../domain/store/store.schema.ts';
import { getStoreAndRestaurant, leadMinutes } from '../../../domain/store/store.service.ts';
import { pickLocale, translator } from '../../../i18n/i18n.ts';
import { formatDateTime } from '../../../i18n/local-time.ts';
import { formatMoney } from '../../../i18n/money.ts';
import { checkedInput } from '../../shared/validation.ts';
import { assetUrl } from '../../web/assets.ts';
import { compressAnswers } from '../../web/compression.ts';
import {
  type FormError,
  messagePage,
  type PageView,
  pageView,
  renderPage,
  sendPage,
} from '../../web/page.ts';
import { fromOwnOrigin } from '../../web/same-origin.ts';
import { GuestLimitReached, guestLimiters } from '../guest-limits.ts';
import { type StorefrontHosts, storefrontAddress } from '../storefront-address.ts';
import { byRestaurantHost } from '../storefront-host.ts';
import { storefrontVisitors } from '../storefront-visitors.ts';
import { bookingNav, bookingPages } from './booking-pages.ts';
import { addLine, type Cart, isTableKey, maxCartLines, readCart, writeCart } from './cart-cookie.ts';
import { checkoutError, checkoutInput, checkoutValues, unseenDeliveryFee } from './checkout-form.ts';
import { keptMenus, keptSections } from './kept-menus.ts';
import { menuFilter, passes } from './menu-filter.ts';
import { groupsOf, onSale, optionErrors, pricedCart } from './menu-prices.ts';
import { mapLink, weekAhead } from './restaurant-info.ts';

export interface StorefrontPagesOptions {
  db: Db;
  clock: Clock;
  config: StorefrontHosts;
  limiters: Limiters;
  /** Takes online payments of live restaurants; test restaurants always use the test provider. */
  payments: PaymentProvider;
  testPayments: PaymentProvider;
}

/** What every page of one storefront has: the guest's ctx, the restaurant, its store, the view. */
export interface Storefront {
  ctx: Ctx;
  restaurant: { id: string; name: string; slug: string; livemode: boolean };
  store: Store;
  /** The restaurant takes table bookings from guests (booking-pages.ts). */
  bookable: boolean;
  /** The cover picture atop the menu by width (paths of its hosted sizes), or null. */
  cover: Record<'400' | '1200', string> | null;
  /** `/s/<slug>`, or empty on the restaurant's own host (storefront-host.ts): links start with it. */
  base: string;
  /** The cart cookie's path. */
  cookiePath: string;
  cart: Cart;
  view: PageView;
  /** The restaurant's menu as of the store's read (kept between pages: kept-menus.ts). */
  menu(): Promise<Menu>;
  /** The count of the restaurant's menu changes, as read with the store. */
  menuVersion: string;
  /** Amounts and times as the restaurant's guests read them. */
  money(minor: number, signed?: boolean): string;
  time(at: Date | string): string;
}

/*
 * Headers of every storefront page (as web/page.ts pageHeaders, with what these pages need):
 * - not cached, never framed, no Referer to other sites (the order pages' addresses hold the
 *   guest's key);
 * - scripts only from our origin, and only on the pages that must update themselves (the order's
 *   page, asking the guest API; the cart's delivery fee as the postal code is typed; the receipt's
 *   Print button); Stripe's payment page also loads Stripe.js and its frames.
 */
function headers(extra: { script?: string; connect?: string; frame?: string } = {}) {
  const csp = [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' https:",
    extra.script && `script-src ${extra.script}`,
    extra.connect && `connect-src ${extra.connect}`,
    extra.frame && `frame-src ${extra.frame}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].filter(Boolean);
  return {
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'content-security-policy': csp.join('; '),
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
  };
}
const followOrder = { script: "'self'", connect: "'self'" };
const stripeCheckout = {
  script: "'self' https://js.stripe.com https://*.js.stripe.com",
  connect: "'self' https://api.stripe.com",
  frame: 'https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com',
};

/** A product's hosted picture by width, once it is ready (menu-images.ts); else null. */
function photoOf(product: Product): Record<'400' | '1200', string> | null {
  return product.images?.status === 'ready' ? product.images.urls : null;
}

/** The statuses after which an order's page stops asking. */
const finalStatuses: readonly string[] = finalOrderStatuses;

/*
 * The guests' pages of a restaurant at `/s/{slug}` (or on `<slug>.{storefront_domain}`), server
 * rendered, every form a plain HTML form (docs/storefront.md):
 * - the menu, a product's page with its options (adds to the cart), the cart with the checkout,
 *   the payment page, the order's page; a table's QR link `/t/{key}` remembers the table;
 * - orders are placed, paid and followed through the domain's services with the guest API's rules
 *   (storefront-api.plugin.ts): the same checks, each refusal shown beside its field, and the
 *   same guest limits (a page saying when to try again, 429);
 * - in the restaurant's language (restaurants.language), its currency and time zone;
 * - a test restaurant's pages exist only for its own members signed in to the console, like its
 *   guest API, and say on every page that orders there are tests;
 * - a post from another site is refused (the Origin header), as the forms carry no token.
 */
export async function storefrontPagesPlugin(
  app: FastifyInstance,
  options: StorefrontPagesOptions,
): Promise<void> {
  const { db, clock } = options;
  const secure = options.config.baseUrl.startsWith('https:');
  const restaurantOf = storefrontVisitors(db, clock, options.limiters, secure);
  const limits = guestLimiters(options.limiters);
  const providerFor = (livemode: boolean) => (livemode ? options.payments : options.testPayments);
  const menus = keptMenus();
  const sections = keptSections();

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  await compressAnswers(app);

  /** A page without a restaurant (or an error before one was found): in the browser's language. */
  const plainView = (request: FastifyRequest) =>
    pageView(pickLocale([], request.headers['accept-language']), 'storefront', {});

  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('content-security-policy')) reply.headers(headers());
    return payload;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'POST' && !fromOwnOrigin(request)) {
      const view = plainView(request);
      return sendPage(
        reply,
        403,
        messagePage(view, { title: view.t('errors.errorTitle'), message: view.t('forms.otherSite') }),
      );
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const view = plainView(request);
    const title = view.t('errors.errorTitle');
    if (error.statusCode !== undefined && error.statusCode < 500)
      return sendPage(reply, 400, messagePage(view, { title, message: view.t('form.unreadable') }));
    request.log.error({ err: error }, 'storefront page failed');
    return sendPage(reply, 500, messagePage(view, { title, message: view.t('form.serverError') }));
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply, view = plainView(request)) =>
    sendPage(
      reply,
      404,
      messagePage(view, { title: view.t('errors.notFoundTitle'), message: view.t('errors.notFound') }),
    );

  /**
   * The storefront the request's slug names, as the guest API finds it (a test restaurant only for
   * its members signed in to the console); null: nothing here.
   */
  async function storefrontOf(request: FastifyRequest): Promise<Storefront | null> {
    const { slug } = request.params as { slug: string };
    const restaurant = await restaurantOf(request, slug);
    if (!restaurant) return null;
    const ctx: Ctx = {
      db,
      clock,
      tenantId: restaurant.id,
      actor: { kind: 'guest' },
      storefront: storefrontAddress(options.config, slug),
    };
    const { store, look, menuVersion } = await getStoreAndRestaurant(ctx);
    // Reached by the restaurant's own host, the URL was rewritten (storefront-host.ts).
    const base = byRestaurantHost(request) ? '' : `/s/${slug}`;
    const cart = readCart(request);
    const locale = pickLocale([restaurant.language]);
    const view = pageView(locale, 'storefront', {
      brand: {
        name: restaurant.name,
        home: base || '/',
        stylesheet: look.accentColor ? `${base}/accent/${look.accentColor.slice(1)}.css` : undefined,
        logo: look.logo ? imagePath(look.logo['400']) : undefined,
      },
    });
    return {
      ctx,
      restaurant,
      store,
      bookable: takesGuestBookings(restaurant.plan, store),
      cover: look.cover && { '400': imagePath(look.cover['400']), '1200': imagePath(look.cover['1200']) },
      base,
      cookiePath: base || '/',
      cart,
      view: { ...view, stylesheet: assetUrl('storefront.css') },
      menu: () => menus(ctx, menuVersion),
      menuVersion,
      money: (minor, signed = false) => formatMoney(minor, store.currency, locale, signed),
      time: (at) => formatDateTime(at, store.timezone, locale),
    };
  }

  type Handler = (request: FastifyRequest, reply: FastifyReply, page: Storefront) => Promise<FastifyReply>;
  const storefrontPage = (handler: Handler) => async (request: FastifyRequest, reply: FastifyReply) => {
    const page = await storefrontOf(request);
    return page ? handler(request, reply, page) : notFound(request, reply);
  };

  /** A placement past a guest limit: 429 with Retry-After, in the guest's language, with the way back. */
  const limitReached = (reply: FastifyReply, page: Storefront, refusal: GuestLimitReached) => {
    const t = page.view.t;
    reply.headers(refusal.headers);
    return sendPage(
      reply,
      429,
      messagePage(page.view, {
        title: t('limits.title'),
        message: t(`limits.${refusal.placement}`, { count: Math.ceil(refusal.retryAfterSeconds / 60) }),
        link: {
          href: refusal.placement === 'orders' ? `${page.base}/cart` : `${page.base}/book`,
          text: t(refusal.placement === 'orders' ? 'limits.backToCart' : 'limits.backToBooking'),
        },
      }),
    );
  };

  /** A page of the storefront: its template with what every one uses. */
  const show = (reply: FastifyReply, page: Storefront, template: string, data: object, status = 200) => {
    const count = page.cart.lines.reduce((sum, line) => sum + line.quantity, 0);
    const nav = [
      { label: page.view.t('nav.menu'), href: page.base || '/', current: template === 'menu' },
      { label: page.view.t('nav.cart', { count }), href: `${page.base}/cart`, current: template === 'cart' },
      ...bookingNav(page, template),
    ];
    return sendPage(
      reply,
      status,
      renderPage(
        `storefront/pages/${template}`,
        { ...page.view, nav },
        {
          restaurant: page.restaurant,
          store: page.store,
          cover: page.cover,
          base: page.base,
          money: page.money,
          time: page.time,
          // Whether to offer ordering for later: placeOrder's rule, so the page says what it does.
          laterOrders: takesLaterOrders(page.store),
          pausedWithoutEnd: pausedWithoutEnd(page.store),
          labels: translator(page.view.locale, 'dashboard'),
          allergenKeys,
          dietKeys,
          photoOf,
          cartCount: count,
          errors: [],
          ...data,
        },
      ),
    );
  };

  bookingPages(app, {
    db,
    clock,
    config: options.config,
    secure,
    storefrontPage,
    show,
    notFound,
    limits,
    limitReached,
  });

  const saveCart = (reply: FastifyReply, page: Storefront, cart: Cart) =>
    writeCart(reply, cart, page.cookiePath, secure);

  /*
   * A restaurant's accent colour as a stylesheet after the storefront's own (the pages' policy
   * allows no inline style): named by the colour, so it never changes and is cached for a year.
   */
  app.get('/s/:slug/accent/:file', async (request, reply) => {
    const colour = /^([0-9a-f]{6})\.css$/.exec((request.params as { file: string }).file)?.[1];
    if (!colour) return notFound(request, reply);
    return reply
      .headers({
        'content-type': 'text/css; charset=utf-8',
        'cache-control': 'public, max-age=31536000, immutable',
        'content-security-policy': "default-src 'none'",
        'x-content-type-options': 'nosniff',
      })
      .send(
        `:root {\n  --brand: #${colour};\n  --link: #${colour};\n}\n.site-header {\n  background: #${colour};\n}\n`,
      );
  });

  app.get(
    '/s/:slug',
    storefrontPage(async (request, reply, page) => {
      const menu = await page.menu();
      const { added } = request.query as { added?: string };
      const filter = menuFilter(menu, request.query as Record<string, unknown>);
      const shown = menu.products.filter((product) => passes(filter, product));
      const now = clock.now();
      // Unfiltered, the sections are those every guest of this menu sees now: drawn once, kept.
      const kept = shown.length === menu.products.length && [
        page.restaurant.id,
        page.menuVersion,
        page.view.locale,
        page.base,
        menu.products.map((product) => (onSale(product, now) ? '1' : '0')).join(''),
      ];
      return show(reply, page, 'menu', {
        menu: { ...menu, products: shown },
        sectionsHtml: (draw: () => string) => (kept ? sections(kept, draw) : draw()),
        filter,
        hidden: menu.products.length - shown.length,
        // Added from the menu: products whose every option group may be left empty.
        addsAtOnce: (product: Product) => groupsOf(menu, product).every((group) => group.min_select === 0),
        cartSubtotal: pricedCart(menu, page.cart, now).subtotal,
        onSale: (item: Parameters<typeof onSale>[0]) => onSale(item, now),
        added: added === '1',
        tableKey: page.cart.tableKey,
        leadMinutes: (type: 'pickup' | 'delivery') => leadMinutes(page.store, type),
        week: weekAhead(page.store, now, page.view.locale),
        mapLink: mapLink(page.store),
      });
    }),
  );

  /** The table's QR code: the table is remembered in the cart, then the menu. */
  app.get(
    '/s/:slug/t/:key',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const table =
        isTableKey(key) &&
        (await db
          .selectFrom('store_tables')
          .select('id')
          .where('tenant_id', '=', page.restaurant.id)
          .where('qr_key', '=', key)
          .executeTakeFirst());
      if (!table) return notFound(request, reply, page.view);
      saveCart(reply, page, { ...page.cart, tableKey: key });
      return reply.redirect(page.base || '/', 303);
    }),
  );

  const productPage = (
    reply: FastifyReply,
    page: Storefront,
    menu: Menu,
    productId: string,
    form: { quantity: string; chosen: string[]; errors: FormError[] },
  ) => {
    const product = menu.products.find((candidate) => candidate.id === productId);
    if (!product) return null;
    const status = form.errors.length > 0 ? 400 : 200;
    return show(
      reply,
      page,
      'product',
      {
        product,
        groups: groupsOf(menu, product),
        available: onSale(product, clock.now()),
        onSale: (item: Parameters<typeof onSale>[0]) => onSale(item, clock.now()),
        ...form,
      },
      status,
    );
  };

  app.get(
    '/s/:slug/p/:productId',
    storefrontPage(async (request, reply, page) => {
      const { productId } = request.params as { productId: string };
      const menu = await page.menu();
      const empty = { quantity: '1', chosen: [], errors: [] };
      return productPage(reply, page, menu, productId, empty) ?? notFound(request, reply, page.view);
    }),
  );

  /*
   * Adding to the cart checks what the guest can fix here (the product on sale, each group's
   * choices, the quantity), so the error shows beside the group; placing the order checks all again.
   */
  app.post(
    '/s/:slug/p/:productId',
    storefrontPage(async (request, reply, page) => {
      const { productId } = request.params as { productId: string };
      const menu = await page.menu();
      const product = menu.products.find((candidate) => candidate.id === productId);
      if (!product) return notFound(request, reply, page.view);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const quantityText = typeof body.quantity === 'string' ? body.quantity.trim() : '';
      const quantity = /^\d{1,2}$/.test(quantityText) ? Number(quantityText) : 0;
      const chosen = Object.entries(body)
        .filter(([name]) => name.startsWith('group_'))
        .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
        .filter((value): value is string => typeof value === 'string');
      const t = page.view.t;
      const errors = optionErrors(menu, product, chosen, clock.now()).map((problem) => ({
        field: problem.field,
        message: t(`product.errors.${problem.kind}`, { ...problem }),
      }));
      if (!onSale(product, clock.now()))
        errors.unshift({ field: 'quantity', message: t('product.errors.productSoldOut') });
      if (quantity < 1) errors.push({ field: 'quantity', message: t('product.errors.quantity') });
      const cart = page.cart;
      if (errors.length === 0 && !addLine(cart, { productId, quantity, optionIds: [...new Set(chosen)] }))
        errors.push({ field: 'quantity', message: t('product.errors.cartFull', { count: maxCartLines }) });
      if (errors.length > 0)
        return productPage(reply, page, menu, productId, {
          quantity: quantityText,
          chosen,
          errors,
        }) as FastifyReply;
      saveCart(reply, page, cart);
      return reply.redirect(`${page.base || '/'}?added=1`, 303);
    }),
  );

  const cartPage = async (
    reply: FastifyReply,
    page: Storefront,
    form: { values: Record<string, string>; errors: FormError[] },
  ) => {
    const menu = await page.menu();
    const priced = pricedCart(menu, page.cart, clock.now());
    const offered = (['pickup', 'delivery', 'dine_in'] as const).filter(
      (type) => page.store.order_types[type] && (type !== 'dine_in' || page.cart.tableKey !== null),
    );
    const table =
      page.cart.tableKey === null
        ? undefined
        : await db
            .selectFrom('store_tables')
            .select('label')
            .where('tenant_id', '=', page.restaurant.id)
            .where('qr_key', '=', page.cart.tableKey)
            .executeTakeFirst();
    // With delivery zones, a small script prices the delivery as the postal code is typed.
    const pricesDelivery = offered.includes('delivery') && page.store.delivery_zones.length > 0;
    if (pricesDelivery) reply.headers(headers({ script: "'self'" }));
    return show(
      reply,
      page,
      'cart',
      {
        priced,
        offered,
        script: pricesDelivery ? assetUrl('storefront-checkout.js') : null,
        table: table?.label ?? null,
        // The fee of the postal code sent, once it is in one of the delivery zones (else null).
        deliveryFee:
          page.store.delivery_zones.length > 0 && form.values.delivery_postal_code?.trim()
            ? (deliveryTerms(page.store, form.values.delivery_postal_code)?.fee ?? null)
            : null,
        errors: form.errors,
        values: {
          type: offered.includes('dine_in') ? 'dine_in' : (offered[0] ?? ''),
          payment_method: 'on_site',
          when: 'asap',
          ...form.values,
        },
      },
      form.errors.length > 0 ? 400 : 200,
    );
  };

  app.get(
    '/s/:slug/cart',
    storefrontPage(async (_request, reply, page) => cartPage(reply, page, { values: {}, errors: [] })),
  );

  /** A cart line's quantity (0 or `remove`: the line goes). */
  app.post(
    '/s/:slug/cart/lines/:index',
    storefrontPage(async (request, reply, page) => {
      const index = Number((request.params as { index: string }).index);
      const line = Number.isInteger(index) ? page.cart.lines[index] : undefined;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const quantity =
        typeof body.quantity === 'string' && /^\d{1,2}$/.test(body.quantity) ? Number(body.quantity) : null;
      if (line && (body.remove !== undefined || quantity === 0)) page.cart.lines.splice(index, 1);
      else if (line && quantity !== null) line.quantity = quantity;
      saveCart(reply, page, page.cart);
      return reply.redirect(`${page.base}/cart`, 303);
    }),
  );

  /*
   * Checkout: the form as placeOrder's input, checked against the guest API's schema, placed in one
   * transaction (nothing is written when any check fails). Then the cart is emptied (the table
   * stays remembered) and the guest goes to pay online, or to the order's page.
   */
  app.post(
    '/s/:slug/checkout',
    storefrontPage(async (request, reply, page) => {
      const values = checkoutValues(request.body);
      const { input, unreadable } = checkoutInput(values, page.cart, page.store);
      const t = page.view.t;
      const menu = await page.menu();
      const lineNames = page.cart.lines.map(
        (line) => menu.products.find((product) => product.id === line.productId)?.name ?? '',
      );
      // The lead time from now, and not before a pause's end.
      const earliest = new Date(
        Math.max(
          clock.now().getTime() + leadMinutes(page.store, input.type ?? 'pickup') * 60_000,
          page.store.paused_until?.getTime() ?? 0,
        ),
      );
      const context = {
        input,
        lineNames,
        minOrder: page.money(
          deliveryTerms(page.store, values.delivery_postal_code ?? '')?.minOrder ?? page.store.min_order,
        ),
        earliest: page.time(earliest),
        pausedWithoutEnd: pausedWithoutEnd(page.store),
      };
      const refused = (errors: FormError[]) => cartPage(reply, page, { values, errors });
      if (unreadable.length > 0)
        return refused(unreadable.map((param) => checkoutError(t, { param }, context)));
      // The guest places a delivery knowing its fee: one they have not seen is shown first.
      const fee = unseenDeliveryFee(values, page.store);
      if (fee !== null)
        return refused([
          {
            field: 'delivery_postal_code',
            message: t('checkout.errors.feeToConfirm', { fee: page.money(fee) }),
          },
        ]);
      let placed: Awaited<ReturnType<typeof placeOrder>>;
      try {
        const checked = checkedInput(PlaceOrderInputSchema, input);
        const guestKey = page.cart.checkoutKey ?? undefined;
        placed = await limits.order(request, page.ctx, checked, () =>
          writeTransaction(db, (trx) => placeOrder({ ...page.ctx, db: trx }, checked, { guestKey })),
        );
      } catch (error) {
        if (error instanceof GuestLimitReached) return limitReached(reply, page, error);
        if (!(error instanceof ApiError) || error.code === 'not_found') throw error;
        return refused([checkoutError(t, error, context)]);
      }
      saveCart(reply, page, { tableKey: page.cart.tableKey, lines: [], checkoutKey: null });
      const order = `${page.base}/o/${placed.guest_key}`;
      return reply.redirect(input.payment_method === 'online' ? `${order}/pay` : order, 303);
    }),
  );

  /** The guest's order by its key, with its lines; null when the key opens none. */
  const guestOrder = async (page: Storefront, key: string) => {
    try {
      return await guestOrderByKey(page.ctx, key);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  };

  app.get(
    '/s/:slug/o/:key',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const order = await guestOrder(page, key);
      if (!order) return notFound(request, reply, page.view);
      const following = !finalStatuses.includes(order.status);
      if (following) reply.headers(headers(followOrder));
      return show(reply, page, 'order', {
        order,
        key,
        following,
        script: assetUrl('storefront-order.js'),
        api: `${page.base}/api/orders/${key}`,
      });
    }),
  );

  /** The order's receipt made for printing, by the same key as the order's page (linked from it and the guest's mail). */
  app.get(
    '/s/:slug/o/:key/receipt',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const order = await guestOrder(page, key);
      const row = order && (await orderWithRestaurant(page.ctx, order.id));
      if (!row) return notFound(request, reply, page.view);
      const rt = translator(page.view.locale, 'email');
      reply.headers(headers({ script: "'self'" }));
      return show(reply, page, 'receipt', {
        receipt: receiptView(receiptOf(row), page.view.locale, rt),
        rt,
        orderPage: `${page.base}/o/${key}`,
        script: assetUrl('print-button.js'),
      });
    }),
  );

  /*
   * The payment page: starts the order's payment (again: the same payment) and shows the
   * provider's checkout: the test provider's Confirm and Fail buttons, or Stripe's payment form.
   * An order paid already, or no longer payable, goes to its page.
   */
  app.get(
    '/s/:slug/o/:key/pay',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const order = await guestOrder(page, key);
      if (!order) return notFound(request, reply, page.view);
      const orderPage = `${page.base}/o/${key}`;
      if (order.payment.method !== 'online' || order.payment.status !== 'awaiting')
        return reply.redirect(orderPage, 303);
      const provider = providerFor(page.restaurant.livemode);
      const payment = await startPayment(page.ctx, provider, key);
      if (provider.name === 'stripe') reply.headers(headers(stripeCheckout));
      const { failed } = request.query as { failed?: string };
      return show(reply, page, 'pay', {
        order,
        payment,
        action: `${orderPage}/pay`,
        orderPage,
        failed: failed === '1',
        script: assetUrl('storefront-stripe.js'),
        returnUrl: `${request.protocol}://${request.host}${orderPage}`,
      });
    }),
  );

  /** The test provider's outcome, as the guest API's `payment/test` records it. */
  app.post(
    '/s/:slug/o/:key/pay',
    storefrontPage(async (request, reply, page) => {
      const { key } = request.params as { key: string };
      const order = await guestOrder(page, key);
      if (!order) return notFound(request, reply, page.view);
      const orderPage = `${page.base}/o/${key}`;
      const outcome = (request.body as { outcome?: unknown } | undefined)?.outcome;
      const provider = providerFor(page.restaurant.livemode);
      if (provider.name !== 'test' || (outcome !== 'succeeded' && outcome !== 'failed'))
        return reply.redirect(`${orderPage}/pay`, 303);
      if (order.payment.status !== 'awaiting') return reply.redirect(orderPage, 303);
      await startPayment(page.ctx, provider, key);
      await recordPaymentOutcome(
        db,
        clock,
        { provider: 'test', reference: testPaymentReference(order.id), tenantId: page.ctx.tenantId },
        outcome,
        (slug) => storefrontAddress(options.config, slug),
      );
      return reply.redirect(outcome === 'succeeded' ? orderPage : `${orderPage}/pay?failed=1`, 303);
    }),
  );
}
