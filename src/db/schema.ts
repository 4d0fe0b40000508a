import type { ColumnType, Generated } from 'kysely';

/** Row types of the database, one interface per table (see migrations/). */

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface AccountsTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  developer: Generated<boolean>;
  created_at: CreatedAt;
  /** The second factor (TOTP, base32) and the time step of the last code accepted; null without one. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  id_hash: string;
  account_id: string;
  /** Where it was signed in (SessionKind); null for sessions from before migration 0034. */
  surface: string | null;
  second_factor_pending: boolean;
  created_at: Date;
  expires_at: Date;
}

/** A mailed link of an account (migration 0041): its token's SHA-256, one use, until it expires. */
export interface AccountTokensTable {
  token_hash: string;
  account_id: string;
  kind: 'password_reset' | 'email_change';
  /** The address an `email_change` token confirms. */
  new_email: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface RestaurantsTable {
  id: string;
  name: string;
  slug: string;
  timezone: string;
  currency: string;
  country: string | null;
  language: Generated<string>;
  plan: 'starter' | 'pro' | 'premium';
  livemode: boolean;
  subscription_active: Generated<boolean>;
  /** Counted up by every transaction that removes menu products (see 0022). */
  product_removals: Generated<number>;
  created_at: CreatedAt;
}

export interface RestaurantMembersTable {
  tenant_id: string;
  account_id: string;
  role: 'owner' | 'staff';
  created_at: CreatedAt;
}

/** An invitation to a restaurant's team (migration 0042): its token's SHA-256, one use, until it expires. */
export interface InvitationsTable {
  tenant_id: string;
  id: string;
  email: string;
  role: 'owner' | 'staff';
  token_hash: string;
  created_at: Date;
  expires_at: Date;
}

export interface AppsTable {
  id: string;
  client_id: string;
  developer_id: string;
  name: string;
  logo_url: string | null;
  website: string | null;
  type: 'confidential' | 'public';
  redirect_uris: string[];
  scopes: string[];
  status: Generated<'pending' | 'approved' | 'rejected' | 'suspended'>;
  created_at: CreatedAt;
}

export interface AppSecretsTable {
  id: string;
  app_id: string;
  secret_hash: string;
  created_at: CreatedAt;
  expires_at: Date | null;
}

export interface ConnectionsTable {
  tenant_id: string;
  id: string;
  app_id: string;
  scopes: string[];
  created_at: CreatedAt;
  ended_at: Date | null;
}

export interface AccessTokensTable {
  tenant_id: string;
  id: string;
  token_hash: string;
  connection_id: string;
  scopes: string[];
  created_at: CreatedAt;
  expires_at: Date;
  revoked_at: Date | null;
  /** The token family (its authorization code) and the refresh token issued with it; null for tokens made otherwise. */
  family_id: string | null;
  refresh_token_id: string | null;
}

export interface AuthorizationCodesTable {
  tenant_id: string;
  id: string;
  code_hash: string;
  connection_id: string;
  app_id: string;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  created_at: Date;
  expires_at: Date;
  redeemed_at: Date | null;
}

export interface RefreshTokensTable {
  tenant_id: string;
  id: string;
  token_hash: string;
  family_id: string;
  connection_id: string;
  app_id: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  replaced_by: string | null;
  revoked_at: Date | null;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  connection_id: string;
  key: string;
  method: string;
  path: string;
  body_hash: string;
  lock_id: string;
  locked_at: Date;
  status_code: number | null;
  response_body: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface EventsTable {
  tenant_id: string;
  id: string;
  type: string;
  connection_id: string | null;
  livemode: boolean;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Date;
  /** Place in the feed, stamped after commit (a bigint: read it with String()); null until then. */
  position: ColumnType<string | number | null, never, string | null>;
  /** Who made the change (actorRecord in domain/shared/context.ts); null for events before 0016. */
  actor: ColumnType<Record<string, unknown> | null, string, never>;
}

export interface EventEnvelopesTable {
  tenant_id: string;
  position: ColumnType<string | number, string, never>;
  /** The connection, or the restaurant's own webhook, that sees the event under its own id. */
  audience_id: string;
  body: string;
}

/** The background job queue (see 0015): what a job carries is its kind's (domain/jobs/jobs.ts). */
export interface JobsTable {
  id: string;
  kind: string;
  payload: ColumnType<unknown, string, never>;
  tenant_id: string | null;
  created_at: Date;
  run_after: Date;
  locked_until: Date | null;
  attempts: Generated<number>;
  last_error: string | null;
  done_at: Date | null;
  failed_at: Date | null;
}

/** Both kinds of webhook (see 0010): the app's (app_id) or a restaurant's own (tenant_id). */
export interface WebhooksTable {
  id: string;
  app_id: string | null;
  tenant_id: string | null;
  url: string;
  events: string[];
  enabled: Generated<boolean>;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failures_in_row: Generated<number>;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Signing secrets stored as they are (they sign every delivery and are shown again); see 0010. */
export interface WebhookSecretsTable {
  webhook_id: string;
  id: string;
  secret: string;
  created_at: Date;
  expires_at: Date | null;
}

/** How far the webhook fan-out has come in one restaurant's events. */
export interface WebhookFanoutTable {
  tenant_id: string;
  position: ColumnType<string, string, string>;
}

/** The count of one restaurant's menu changes (menu-writes.ts countMenuChange). */
export interface MenuVersionsTable {
  tenant_id: string;
  version: ColumnType<string, string | number, string | number>;
}

/** The last feed position one restaurant's events were given (events/positions.ts). */
export interface EventSequencesTable {
  tenant_id: string;
  position: ColumnType<string, string, string>;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  tenant_id: string;
  position: ColumnType<string | number, string, never>;
  /** The connection, or for a restaurant's own webhook the webhook itself (event_envelopes). */
  audience_id: string;
  event_type: string;
  livemode: boolean;
  /** Scheduled attempts made (at most 8). */
  attempts: Generated<number>;
  /** Every send, resends included: the number of the latest (Service-Delivery-Attempt). */
  sends: Generated<number>;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  given_up_at: Date | null;
  skipped_at: Generated<Date | null>;
  created_at: Date;
}

export interface WebhookDeliveryAttemptsTable {
  tenant_id: string;
  delivery_id: string;
  attempt: number;
  started_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A restaurant's store settings (see 0011); hours are {weekday, open, close} arrays. */
export interface StoresTable {
  tenant_id: string;
  preorders: Generated<boolean>;
  pickup: Generated<boolean>;
  delivery: Generated<boolean>;
  dine_in: Generated<boolean>;
  order_statuses: Generated<string[]>;
  pickup_minutes: Generated<number>;
  delivery_minutes: Generated<number>;
  min_order: Generated<number>;
  always_open: Generated<boolean>;
  opening_hours: ColumnType<WeeklyWindowRow[], string | undefined, string>;
  delivery_hours: ColumnType<WeeklyWindowRow[], string | undefined, string>;
  phone: Generated<string | null>;
  email: Generated<string | null>;
  website: Generated<string | null>;
  address_line: Generated<string | null>;
  lat: Generated<number | null>;
  lon: Generated<number | null>;
  default_table_seats: Generated<number>;
  paused: Generated<boolean>;
  paused_until: Generated<Date | null>;
  pause_note: Generated<string | null>;
  /** Busy mode: both set (extra minutes 5 to 120 on the lead times until busy_until) or both null. */
  busy_extra_minutes: Generated<number | null>;
  busy_until: Generated<Date | null>;
  /** Orders paid on site guests may place per minute (60 to 1,000; migration 0033). */
  guest_orders_per_minute: Generated<number>;
  /** The storefront's colour, '#rrggbb', or null: Servery's (migration 0035). */
  accent_color: Generated<string | null>;
  /** The storefront's logo and cover picture: the image store's key by width, or null (migration 0036). */
  logo_sizes: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  cover_sizes: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  /** The restaurant's VAT identification number, on its receipts, or null (migration 0038). */
  vat_id: Generated<string | null>;
  /** The delivery zones, in their order; postal codes normalized (migration 0037). */
  delivery_zones: ColumnType<DeliveryZoneRow[], string | undefined, string>;
  /** Kitchen tickets (migration 0040): the board prints them; a network printer, host and port or null. */
  auto_print: Generated<boolean>;
  printer_host: Generated<string | null>;
  printer_port: Generated<number | null>;
  updated_at: Date;
}

export interface DeliveryZoneRow {
  name: string;
  postal_codes: string[];
  fee: number;
  min_order: number;
}

export interface WeeklyWindowRow {
  weekday: number;
  open: string;
  close: string;
}

/** A special day; `date` is read as text (YYYY-MM-DD, no time zone involved). */
export interface StoreClosuresTable {
  tenant_id: string;
  date: ColumnType<string, string, string>;
  closed: boolean;
  hours: ColumnType<Array<{ open: string; close: string }>, string, string>;
  note: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A floor area of a restaurant (see 0012). */
export interface StoreAreasTable {
  tenant_id: string;
  id: string;
  name: string;
  bookable_online: Generated<boolean>;
  created_at: Date;
}

/** A table (see 0012): seats null = the store's default_table_seats; qr_key stored as it is. */
export interface StoreTablesTable {
  tenant_id: string;
  id: string;
  label: string;
  seats: number | null;
  area_id: string | null;
  bookable_online: Generated<boolean>;
  min_party: number | null;
  qr_key: string;
  created_at: Date;
}

/** The sandbox clock's one row (see 0014): how far it is ahead of the system clock. */
export interface SandboxClockTable {
  only_row: Generated<boolean>;
  offset_seconds: number;
}

/** A tax class of a menu category or product (see 0017); null: the category's, else food. */
export type TaxClassColumn = 'food' | 'drink' | 'alcohol' | null;

/*
 * The menu (see 0017). external_id is the app external_id_app_id's own reference (both null or
 * both set); only that app sees it.
 */
export interface MenuCategoriesTable {
  tenant_id: string;
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
  name: string;
  position: number;
  tax_class: TaxClassColumn;
  created_at: Date;
  updated_at: Date;
}

export interface MenuProductsTable {
  tenant_id: string;
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
  category_id: string | null;
  name: string;
  description: string | null;
  price: number;
  available: Generated<boolean>;
  unavailable_until: Generated<Date | null>;
  position: number;
  allergens: Generated<string[]>;
  diets: Generated<string[]>;
  image_url: string | null;
  tax_class: TaxClassColumn;
  created_at: Date;
  updated_at: Date;
}

export interface MenuOptionGroupsTable {
  tenant_id: string;
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
  /** The one product the group belongs to; null = shared (linked in menu_product_option_groups). */
  product_id: string | null;
  name: string;
  min_select: Generated<number>;
  max_select: Generated<number>;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export interface MenuOptionsTable {
  tenant_id: string;
  id: string;
  external_id: string | null;
  external_id_app_id: string | null;
  group_id: string;
  name: string;
  price_delta: number;
  available: Generated<boolean>;
  unavailable_until: Generated<Date | null>;
  position: number;
  created_at: Date;
  updated_at: Date;
}

/** A product's shared option groups, in order. */
export interface MenuProductOptionGroupsTable {
  tenant_id: string;
  product_id: string;
  group_id: string;
  position: number;
}

/**
 * A restaurant's menu image, by the SHA-256 of its source URL (see 0018): pending, ready with the
 * store's key of each hosted width (`sizes`), or failed with the reason.
 */
export interface MenuImagesTable {
  tenant_id: string;
  url_hash: string;
  source_url: string;
  status: 'pending' | 'ready' | 'failed';
  sizes: ColumnType<Record<string, string> | null, string | null, string | null>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An order (see 0021): listed for the API once placed on site or paid online. */
export interface OrdersTable {
  tenant_id: string;
  id: string;
  code: string;
  type: 'pickup' | 'delivery' | 'dine_in';
  source: 'storefront' | 'table' | 'app';
  status: 'pending' | 'confirmed' | 'preparing' | 'ready' | 'completed' | 'cancelled';
  listed: boolean;
  payment_method: 'online' | 'on_site';
  payment_state: 'awaiting' | 'open' | 'paid' | 'abandoned';
  pay_by: Date | null;
  paid_at: Date | null;
  currency: string;
  subtotal: number;
  delivery_fee: number;
  service_fee: number;
  discount: number;
  tip: number;
  total: number;
  items: ColumnType<OrderItemRow[], string, string>;
  tax_lines: ColumnType<TaxLineRow[], string, string>;
  requested_for: Date | null;
  estimated_ready_at: Date | null;
  customer_name: string | null;
  customer_phone: string | null;
  delivery_address: string | null;
  delivery_postal_code: string | null;
  delivery_city: string | null;
  table_id: string | null;
  table_label: string | null;
  note: string | null;
  cancel_reason: string | null;
  cancelled_by: 'app' | 'restaurant' | 'guest' | null;
  guest_key_hash: string;
  /** The guest's e-mail (migration 0038): the order's mails go there; never in the API or events. */
  guest_email: Generated<string | null>;
  /** A second key to the guest's order page, for the link in a paid online order's mail (0038). */
  mail_key_hash: Generated<string | null>;
  /** The kitchen ticket on the network printer (migration 0040): last printed, or why it failed. */
  ticket_printed_at: Generated<Date | null>;
  ticket_print_error: Generated<string | null>;
  created_at: Date;
  updated_at: Date;
}

export interface TaxLineRow {
  rate_bps: number | null;
  gross: number;
  net: number | null;
  tax: number | null;
}

/** An order's line as at order time (the Order's `items[]`). */
export interface OrderItemRow {
  id: string;
  product_id: string;
  name: string;
  quantity: number;
  unit_price: number;
  line_total: number;
  tax_rate_bps: number | null;
  options: OrderItemOptionRow[];
}

export interface OrderItemOptionRow {
  id: string | null;
  name: string;
  price_delta: number;
  group_id: string | null;
  group_name: string | null;
}

/** An app's take-over of an order: its own external_id and first acknowledgement. */
export interface OrderAcknowledgementsTable {
  tenant_id: string;
  order_id: string;
  app_id: string;
  external_id: string | null;
  acknowledged_at: Date;
}

/** An online payment at a provider, found by the provider's reference. */
export interface OrderPaymentsTable {
  tenant_id: string;
  id: string;
  order_id: string;
  provider: 'test' | 'stripe';
  reference: string;
  status: 'pending' | 'succeeded' | 'failed';
  amount: number;
  currency: string;
  created_at: Date;
  updated_at: Date;
}

/** Minutes a party of at most max_party holds its table (null: every larger party). */
export interface DurationRule {
  max_party: number | null;
  minutes: number;
}

export interface ReservationSettingsTable {
  tenant_id: string;
  slot_minutes: Generated<number>;
  durations: ColumnType<DurationRule[], string | undefined, string>;
  last_seating_minutes: Generated<number>;
  guest_horizon_days: Generated<number>;
  guest_lead_minutes: Generated<number>;
  updated_at: Date;
}

/** Changes counted per restaurant to what availability is computed from (see 0025; kept by triggers). */
export interface FloorVersionsTable {
  tenant_id: string;
  version: ColumnType<string, never, never>;
}

export interface ReservationCombinationsTable {
  tenant_id: string;
  id: string;
  table_ids: string[];
  created_at: Date;
}

export interface ReservationsTable {
  tenant_id: string;
  id: string;
  code: string;
  status: 'pending' | 'confirmed' | 'declined' | 'seated' | 'done' | 'cancelled' | 'no_show';
  starts_at: Date;
  duration_minutes: number;
  party_size: number;
  table_ids: string[];
  source: 'guest' | 'staff' | 'api';
  guest_name: string | null;
  guest_phone: string | null;
  guest_email: string | null;
  /** Whether the guest is mailed about it (migration 0038): false when made with notify_guest false. */
  notify_guest: Generated<boolean>;
  guest_locale: 'de' | 'en' | 'fr' | 'es' | 'it' | null;
  note: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** SHA-256 (hex) of the guest's cancel link token (0024); null unless booked at the storefront. */
  cancel_token_hash: string | null;
  /** SHA-256 (hex) of the storefront booking form's guest key (0024): one booking per key. */
  guest_key_hash: string | null;
}

export interface DB {
  accounts: AccountsTable;
  restaurants: RestaurantsTable;
  restaurant_members: RestaurantMembersTable;
  invitations: InvitationsTable;
  apps: AppsTable;
  app_secrets: AppSecretsTable;
  connections: ConnectionsTable;
  access_tokens: AccessTokensTable;
  authorization_codes: AuthorizationCodesTable;
  refresh_tokens: RefreshTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  event_envelopes: EventEnvelopesTable;
  event_sequences: EventSequencesTable;
  menu_versions: MenuVersionsTable;
  jobs: JobsTable;
  sessions: SessionsTable;
  account_tokens: AccountTokensTable;
  webhooks: WebhooksTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_fanout: WebhookFanoutTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  stores: StoresTable;
  store_closures: StoreClosuresTable;
  store_areas: StoreAreasTable;
  store_tables: StoreTablesTable;
  sandbox_clock: SandboxClockTable;
  menu_categories: MenuCategoriesTable;
  menu_products: MenuProductsTable;
  menu_option_groups: MenuOptionGroupsTable;
  menu_options: MenuOptionsTable;
  menu_product_option_groups: MenuProductOptionGroupsTable;
  menu_images: MenuImagesTable;
  orders: OrdersTable;
  order_acknowledgements: OrderAcknowledgementsTable;
  order_payments: OrderPaymentsTable;
  reservation_settings: ReservationSettingsTable;
  reservation_combinations: ReservationCombinationsTable;
  reservations: ReservationsTable;
  floor_versions: FloorVersionsTable;
}
