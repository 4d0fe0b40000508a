import fastifyCsrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDeveloper } from '../../domain/accounts/accounts.service.ts';
import {
  completeSecondFactor,
  endSession,
  findSession,
  type Session,
  type SessionKind,
  sessionLifetimeSeconds,
  signIn,
} from '../../domain/accounts/sessions.ts';
import type { Ctx } from '../../domain/shared/context.ts';
import type { Limiter, Limiters } from '../../domain/shared/limits.ts';

/** A browser session of an account, as its cookie names it. */
export type BrowserSession = Session & { token: string };

/** The session cookie of one surface. */
export interface SessionCookie {
  name: string;
  /** The surface's path: the browser sends the cookie there only. */
  path: string;
  /** `strict` where every page is reached from our own; `lax` where apps send the browser to us. */
  sameSite: 'strict' | 'lax';
  /** Whether the surface is served over https. */
  secure: boolean;
}

/** Who signs in where: a surface's session cookie (all but `secure`) and which accounts may use it. */
export interface SessionSurface {
  /** The sessions it accepts: those signed in on it (the storefront preview: the console's). */
  kind: SessionKind;
  cookie: Omit<SessionCookie, 'secure'>;
  mayUse(ctx: Ctx, accountId: string): Promise<boolean>;
}

const anyAccount = async () => true;

/** The consent page: the whole site's cookie, SameSite=Lax, as apps send the browser there. */
export const consentSessions: SessionSurface = {
  kind: 'consent',
  cookie: { name: 'servery_session', path: '/', sameSite: 'lax' },
  mayUse: anyAccount,
};
/** The developer console (its pages and its API): developer accounts only. */
export const consoleSessions: SessionSurface = {
  kind: 'console',
  cookie: { name: 'servery_console_session', path: '/console', sameSite: 'strict' },
  mayUse: isDeveloper,
};
/**
 * A developer's look at their test restaurant's storefront (`/s/...`): the console session, carried
 * by a cookie of its own that the console sets when the developer opens the storefront from it
 * (the console's cookie goes to `/console` only). It ends with the console session.
 */
export const storefrontPreviewSessions: SessionSurface = {
  kind: 'console',
  cookie: { name: 'servery_storefront_preview', path: '/s', sameSite: 'strict' },
  mayUse: isDeveloper,
};
/** The restaurant dashboard: any account; what it sees is decided per restaurant. */
export const dashboardSessions: SessionSurface = {
  kind: 'dashboard',
  cookie: { name: 'servery_dashboard_session', path: '/dashboard', sameSite: 'strict' },
  mayUse: anyAccount,
};

export type SignInOutcome =
  | { kind: 'signed_in'; session: BrowserSession }
  | { kind: 'refused' }
  | { kind: 'limited'; resetSeconds: number };

export type CodeOutcome =
  | { kind: 'accepted' }
  | { kind: 'refused' }
  | { kind: 'limited'; resetSeconds: number };

/*
 * Failed sign-ins (wrong password or wrong second-factor code) per e-mail and IP address: 10 in
 * 15 minutes, then refused until the window ends, on every surface together (one limit name), so
 * switching pages buys no extra guesses. Only a complete sign-in forgets the count, so a known
 * password cannot be used to reset the guessing of codes.
 */
const loginLimit = { keyPrefix: 'login', points: 10, durationSeconds: 15 * 60 };
/**
 * And failed sign-ins per IP address, whatever the e-mail: 20 in 15 minutes, so that one password
 * tried against many accounts (spraying) is refused too. A sign-in does not forget this count:
 * knowing one account must not reset the guessing of others.
 */
const loginAddressLimit = { keyPrefix: 'login-address', points: 20, durationSeconds: 15 * 60 };
// Longer input is a wrong sign-in, without the cost of hashing it.
const longestEmail = 200;
const longestPassword = 1000;

/**
 * Sign-in, second factor and sign-out of one surface's browser sessions (the consent page, the
 * console, the dashboard, and the pages of each): the cookie, the sign-in limit, and which
 * accounts may use the surface at all.
 */
export class Sessions {
  readonly #ctx: Ctx;
  readonly #kind: SessionKind;
  readonly #cookie: SessionCookie;
  readonly #mayUse: (ctx: Ctx, accountId: string) => Promise<boolean>;
  readonly limiter: Limiter;
  readonly #addressLimiter: Limiter;

  constructor(ctx: Ctx, limiters: Limiters, surface: SessionSurface, secure: boolean) {
    this.#ctx = ctx;
    this.#kind = surface.kind;
    this.#cookie = { ...surface.cookie, secure };
    this.#mayUse = surface.mayUse;
    this.limiter = limiters.createLimiter(loginLimit);
    this.#addressLimiter = limiters.createLimiter(loginAddressLimit);
  }

  get cookie(): SessionCookie {
    return this.#cookie;
  }

  /** The request's session, also one still waiting for its second factor. */
  async current(request: FastifyRequest): Promise<BrowserSession | null> {
    const token = request.cookies[this.#cookie.name];
    const session = token ? await findSession(this.#ctx, this.#kind, token) : null;
    return token && session ? { ...session, token } : null;
  }

  /** The account of a complete session that may use this surface; null otherwise. */
  async signedInAccount(request: FastifyRequest): Promise<string | null> {
    const session = await this.current(request);
    if (!session || session.secondFactorPending) return null;
    return (await this.#mayUse(this.#ctx, session.accountId)) ? session.accountId : null;
  }

  /**
   * Checks e-mail and password under the sign-in limit; on success replaces the request's session
   * by a new one (pending its second factor if the account has one) and sets its cookie.
   */
  async signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    input: { email: string; password: string },
  ): Promise<SignInOutcome> {
    const key = limitKey(request, input.email);
    for (const limit of [await this.limiter.peek(key), await this.#addressLimiter.peek(request.ip)])
      if (!limit.allowed) return { kind: 'limited', resetSeconds: limit.resetSeconds };
    const ctx = this.#ctx;
    const fits = input.email.length <= longestEmail && input.password.length <= longestPassword;
    const result = fits ? await signIn(ctx, this.#kind, input) : null;
    const session = result ? await findSession(ctx, this.#kind, result.token) : null;
    if (!result || !session || !(await this.#mayUse(ctx, session.accountId))) {
      if (result) await endSession(ctx, this.#kind, result.token);
      await this.limiter.consume(key);
      await this.#addressLimiter.consume(request.ip);
      return { kind: 'refused' };
    }
    if (!result.secondFactorPending) await this.limiter.reset(key);
    const old = request.cookies[this.#cookie.name];
    if (old) await endSession(ctx, this.#kind, old);
    const { name, path, sameSite, secure } = this.#cookie;
    reply.setCookie(name, result.token, {
      path,
      httpOnly: true,
      sameSite,
      secure,
      maxAge: sessionLifetimeSeconds,
    });
    return { kind: 'signed_in', session: { ...session, token: result.token } };
  }

  /** The second factor of a pending session, under the sign-in limit of its e-mail. */
  async secondFactor(request: FastifyRequest, session: BrowserSession, code: string): Promise<CodeOutcome> {
    const key = limitKey(request, session.email);
    const limit = await this.limiter.peek(key);
    if (!limit.allowed) return { kind: 'limited', resetSeconds: limit.resetSeconds };
    if (!(await completeSecondFactor(this.#ctx, this.#kind, session.token, code.trim()))) {
      await this.limiter.consume(key);
      return { kind: 'refused' };
    }
    await this.limiter.reset(key);
    return { kind: 'accepted' };
  }

  /**
   * A change of the signed-in account's second factor that a code must allow (`change`: confirming
   * a setup, turning it off), in the ctx's transaction. Wrong codes count against the sign-in limit
   * of the account (10 in 15 minutes), so a stolen session cannot guess its way to switching it off.
   */
  async secondFactorChange(
    ctx: Ctx,
    accountId: string,
    code: string,
    change: (ctx: Ctx, accountId: string, code: string) => Promise<boolean>,
  ): Promise<CodeOutcome> {
    const key = `second-factor ${accountId}`;
    const limit = await this.limiter.peek(key);
    if (!limit.allowed) return { kind: 'limited', resetSeconds: limit.resetSeconds };
    if (!(await change(ctx, accountId, code.trim()))) {
      await this.limiter.consume(key);
      return { kind: 'refused' };
    }
    return { kind: 'accepted' };
  }

  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = request.cookies[this.#cookie.name];
    if (token) await endSession(this.#ctx, this.#kind, token);
    reply.clearCookie(this.#cookie.name, { path: this.#cookie.path });
  }
}

function limitKey(request: FastifyRequest, email: string): string {
  return `${email.trim().toLowerCase()} ${request.ip}`;
}

/**
 * CSRF tokens for a surface's HTML forms (@fastify/csrf-protection): a secret in a cookie of the
 * surface's path, and each token bound to the session cookie it was issued with (`userInfo`):
 * - a token and CSRF cookie from one browser are refused with another browser's session;
 * - signing in sets a new session cookie, so every later form needs a token issued for it.
 * Before sign-in there is no session: the sign-in form's token is bound to the CSRF cookie alone.
 * That is enough there: a forged sign-in can only sign the victim into the attacker's account.
 * Needs @fastify/cookie registered; routes check the token with `app.csrfProtection`.
 */
export async function formCsrf(
  app: FastifyInstance,
  options: {
    session: SessionCookie;
    /** The CSRF secret's cookie: its name and the path of the forms. */
    csrfCookie: { name: string; path: string };
    tokenOf: (request: FastifyRequest) => unknown;
  },
): Promise<{ token: (request: FastifyRequest, reply: FastifyReply) => string }> {
  const { session, csrfCookie } = options;
  const binding = (request: FastifyRequest) => request.cookies[session.name] || 'signed out';
  await app.register(fastifyCsrfProtection, {
    cookieKey: csrfCookie.name,
    cookieOpts: { path: csrfCookie.path, httpOnly: true, sameSite: 'lax', secure: session.secure },
    getToken: (request) => {
      const token = options.tokenOf(request);
      return typeof token === 'string' ? token : undefined;
    },
    getUserInfo: binding,
    // The plugin requires a key for the binding; it need not be secret, as the session token is.
    csrfOpts: { userInfo: true, hmacKey: 'servery forms' },
  });
  return { token: (request, reply) => reply.generateCsrf({ userInfo: binding(request) }) };
}
