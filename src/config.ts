import path from 'node:path';
import ipaddr from 'ipaddr.js';
import addressparser from 'nodemailer/lib/addressparser';
import type { PasswordHashCost } from './domain/accounts/password.ts';

/** The service's settings, read once from the environment. Every variable is listed in the README. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** PostgreSQL connection string; when absent the embedded database (PGlite) in `dataDir` is used. */
  readonly databaseUrl: string | null;
  /** A read replica of DATABASE_URL's server, where the reports and the orders list read (docs/scale-out.md). */
  readonly databaseReplicaUrl: string | null;
  readonly dataDir: string;
  /**
   * Where downloaded menu images are kept (src/adapters/image-store.ts), also with DATABASE_URL:
   * every API and worker process needs the same directory (a shared volume when they run apart).
   */
  readonly imagesDir: string;
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly appUrl: string;
  readonly storefrontDomain: string;
  readonly logLevel: string;
  /** Whether an empty database gets demo data on start. */
  readonly demoData: boolean;
  /** Redis connection string; when set, the rate limits count in Redis (else in PostgreSQL or memory). */
  readonly redisUrl: string | null;
  /** The SMTP server e-mails go through (smtp:// or smtps://); without it they are only logged. */
  readonly smtpUrl: string | null;
  /** The From of every e-mail. */
  readonly mailFrom: string;
  /**
   * Development only: webhooks may use `http` and loopback receivers. Never for live restaurants:
   * a restaurant's own webhook gets it only in a test restaurant, the app's webhook only for
   * deliveries of test restaurants' events (see src/domain/webhooks/webhook-address.ts).
   */
  readonly webhooksAllowInsecure: boolean;
  /**
   * Which peers are proxies whose X-Forwarded-For names the client (its address then counts in
   * the per-address limits): none (false), or their addresses and CIDR ranges. Trusting every peer
   * is not offered: any client could then pick the address it is counted under.
   */
  readonly trustProxy: false | string[];
  /**
   * Development only: the clock of every time rule is the system clock plus an offset that
   * `servery clock advance` moves forward (src/domain/shared/sandbox-clock.ts). Refused in production
   * mode (NODE_ENV=production), where times must be real.
   */
  readonly sandboxClock: boolean;
  /** Stripe takes live restaurants' online payments when set; else the built-in test provider does. */
  readonly stripe: StripeSettings | null;
  /**
   * METRICS_LISTEN: where Prometheus metrics are served (`host:port`, e.g. 127.0.0.1:9464), on a
   * listener of its own, never the public port; off (null) by default.
   */
  readonly metricsListen: { readonly host: string; readonly port: number } | null;
  /**
   * OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
   * names a collector (the SDK reads these and its other OTEL_* variables itself); off (null) by
   * default. `serviceName`: OTEL_SERVICE_NAME, by default `servery`.
   */
  readonly tracing: { readonly serviceName: string } | null;
  /**
   * PASSWORD_HASH_COST: `standard` (scrypt N=2^17, OWASP's recommendation) or, for tests only,
   * `minimum` (N=2^10), refused in production mode (src/domain/accounts/password.ts).
   */
  readonly passwordHashCost: PasswordHashCost;
}

/** A Stripe account's keys (STRIPE_*), and where its API is when not at Stripe (a fake, in tests). */
export interface StripeSettings {
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  readonly api: { readonly host: string; readonly port: number; readonly protocol: 'http' | 'https' } | null;
}

export class ConfigError extends Error {}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function url(name: string, value: string | undefined, fallback: string): string {
  const raw = value === undefined || value === '' ? fallback : value;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function smtpUrl(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {}
  // The URL holds the SMTP password: the message does not repeat it.
  if (protocol !== 'smtp:' && protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587');
  return value;
}

/** One address, with or without a name: `Servery <no-reply@example.com>`. */
function mailFrom(value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  const addresses = addressparser(value, { flatten: true });
  if (addresses.length !== 1 || !addresses[0]?.address.includes('@'))
    throw new ConfigError(
      `MAIL_FROM must be one e-mail address, e.g. "Servery <no-reply@example.com>", got "${value}"`,
    );
  return value;
}

function redisUrl(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {}
  // The URL may hold the Redis password: the message does not repeat it.
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  return value;
}

function trustProxy(value: string | undefined): false | string[] {
  if (value === undefined || value === '' || value === 'false') return false;
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    // Written-out addresses only (ipaddr.js would also take `2` or `0x0a000001` for IPv4).
    const [address = '', bits, extra] = entry.split('/');
    const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
    const valid =
      (v4 || ipaddr.IPv6.isValid(address)) &&
      extra === undefined &&
      (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (v4 ? 32 : 128)));
    if (!valid)
      throw new ConfigError(
        `TRUST_PROXY must be false or a comma list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,::1), got "${value}"`,
      );
  }
  return entries;
}

function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

function sandboxClock(env: NodeJS.ProcessEnv): boolean {
  const on = flag('SANDBOX_CLOCK', env.SANDBOX_CLOCK, false);
  if (on && env.NODE_ENV === 'production')
    throw new ConfigError(
      'SANDBOX_CLOCK is for development and tests: it cannot be on in production mode (NODE_ENV=production)',
    );
  return on;
}

function passwordHashCost(env: NodeJS.ProcessEnv): PasswordHashCost {
  const value = env.PASSWORD_HASH_COST || 'standard';
  if (value !== 'standard' && value !== 'minimum')
    throw new ConfigError(`PASSWORD_HASH_COST must be standard or minimum, got "${value}"`);
  if (value === 'minimum' && env.NODE_ENV === 'production')
    throw new ConfigError(
      'PASSWORD_HASH_COST=minimum is for tests: it cannot be set in production mode (NODE_ENV=production)',
    );
  return value;
}

/*
 * Stripe needs all three keys: the secret one to start payments, the publishable one for the
 * guest's browser, the webhook secret to trust the confirmations. A partial set is a mistake,
 * refused at start rather than taking real orders that could never be confirmed.
 */
function stripe(env: NodeJS.ProcessEnv): StripeSettings | null {
  const keys = {
    STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY || '',
    STRIPE_PUBLISHABLE_KEY: env.STRIPE_PUBLISHABLE_KEY || '',
    STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET || '',
  };
  const missing = Object.entries(keys).filter(([, value]) => value === '');
  if (missing.length === 3) return null;
  if (missing.length > 0)
    throw new ConfigError(
      `Stripe needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET together; missing ${missing.map(([name]) => name).join(', ')}`,
    );
  let api: StripeSettings['api'] = null;
  if (env.STRIPE_API_URL) {
    const parsed = new URL(url('STRIPE_API_URL', env.STRIPE_API_URL, ''));
    // The Stripe client takes a host, port and protocol: a path would be silently dropped.
    if (parsed.pathname !== '/' || parsed.search !== '')
      throw new ConfigError(
        `STRIPE_API_URL must be an origin without a path, e.g. http://127.0.0.1:12111, got "${env.STRIPE_API_URL}"`,
      );
    const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
    api = {
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port ? Number(parsed.port) : protocol === 'http' ? 80 : 443,
      protocol,
    };
  }
  return {
    secretKey: keys.STRIPE_SECRET_KEY,
    publishableKey: keys.STRIPE_PUBLISHABLE_KEY,
    webhookSecret: keys.STRIPE_WEBHOOK_SECRET,
    api,
  };
}

/** `host:port` or `[v6 address]:port`: the metrics are never on a port chosen by accident. */
function metricsListen(value: string | undefined): Config['metricsListen'] {
  if (value === undefined || value === '') return null;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535)
    throw new ConfigError(
      `METRICS_LISTEN must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464, got "${value}"`,
    );
  return { host: (match[1] ?? match[2]) as string, port };
}

function databaseReplicaUrl(env: NodeJS.ProcessEnv): string | null {
  if (!env.DATABASE_REPLICA_URL) return null;
  if (!env.DATABASE_URL)
    throw new ConfigError('DATABASE_REPLICA_URL needs DATABASE_URL: a replica is of a PostgreSQL server');
  return env.DATABASE_REPLICA_URL;
}

function tracing(env: NodeJS.ProcessEnv): Config['tracing'] {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  return { serviceName: env.OTEL_SERVICE_NAME || 'servery' };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer('PORT', env.PORT, 3000, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const baseUrl = url('BASE_URL', env.BASE_URL, `http://localhost:${port}`);
  const dataDir = path.resolve(env.DATA_DIR || 'data');
  return Object.freeze({
    port,
    host,
    databaseUrl: env.DATABASE_URL || null,
    databaseReplicaUrl: databaseReplicaUrl(env),
    dataDir,
    imagesDir: env.IMAGES_DIR ? path.resolve(env.IMAGES_DIR) : path.join(dataDir, 'images'),
    baseUrl,
    authUrl: url('AUTH_URL', env.AUTH_URL, baseUrl),
    appUrl: url('APP_URL', env.APP_URL, baseUrl),
    storefrontDomain: env.STOREFRONT_DOMAIN || new URL(baseUrl).host,
    logLevel: env.LOG_LEVEL || 'info',
    demoData: flag('DEMO_DATA', env.DEMO_DATA, true),
    redisUrl: redisUrl(env.REDIS_URL),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: mailFrom(env.MAIL_FROM, `Servery <no-reply@${new URL(baseUrl).hostname}>`),
    webhooksAllowInsecure: flag('WEBHOOKS_ALLOW_INSECURE', env.WEBHOOKS_ALLOW_INSECURE, false),
    trustProxy: trustProxy(env.TRUST_PROXY),
    sandboxClock: sandboxClock(env),
    stripe: stripe(env),
    metricsListen: metricsListen(env.METRICS_LISTEN),
    tracing: tracing(env),
    passwordHashCost: passwordHashCost(env),
  });
}
