/*
 * The peer of the token endpoint bench (bench/token-peer.ts): node-oidc-provider, the most used
 * Node authorization server, configured as our token endpoint is:
 * - one confidential client authenticating with client_secret_post;
 * - refresh tokens rotated on every use, opaque tokens (access 1 hour, refresh 180 days);
 * - every model in PostgreSQL through the small adapter below, one JSONB row per token, on a fresh
 *   database of its own, through pg with a pool of 10 and prepared statements, as ours has.
 * It lacks what ours adds to each grant: client secrets in the database, the per-client and
 * per-address limits, hashed tokens, the family lock and the grace rule.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import pg from 'pg';
import { createPostgresDatabase } from './databases.ts';

const schema = `
CREATE TABLE oidc_payloads (
  id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (id, type)
);
CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id);
CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid);
CREATE INDEX oidc_payloads_user_code ON oidc_payloads (user_code);`;

/** oidc-provider's storage of each model (AccessToken, RefreshToken, Grant…) in `oidc_payloads`. */
function postgresAdapter(pool: pg.Pool): new (name: string) => Adapter {
  const query = (name: string, text: string, values: unknown[]) =>
    pool.query<{ payload: AdapterPayload; consumed_at: Date | null }>({
      name: `oidc_${name}`,
      text,
      values,
    });
  const found = ({ rows: [row] }: { rows: Array<{ payload: AdapterPayload; consumed_at: Date | null }> }) =>
    row && { ...row.payload, ...(row.consumed_at ? { consumed: true } : {}) };
  const live = '(expires_at IS NULL OR expires_at > now())';
  return class PostgresAdapter implements Adapter {
    readonly type: string;

    constructor(type: string) {
      this.type = type;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await query(
        'upsert',
        `INSERT INTO oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         ON CONFLICT (id, type) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [id, this.type, payload, payload.grantId, payload.userCode, payload.uid, expiresIn ?? null],
      );
    }

    async find(id: string) {
      const sql = `SELECT payload, consumed_at FROM oidc_payloads WHERE id = $1 AND type = $2 AND ${live}`;
      return found(await query('find', sql, [id, this.type]));
    }

    async findByUid(uid: string) {
      const sql = `SELECT payload, consumed_at FROM oidc_payloads WHERE uid = $1 AND type = $2 AND ${live}`;
      return found(await query('find_uid', sql, [uid, this.type]));
    }

    async findByUserCode(userCode: string) {
      const sql = `SELECT payload, consumed_at FROM oidc_payloads WHERE user_code = $1 AND type = $2 AND ${live}`;
      return found(await query('find_user_code', sql, [userCode, this.type]));
    }

    async consume(id: string): Promise<void> {
      const sql = 'UPDATE oidc_payloads SET consumed_at = now() WHERE id = $1 AND type = $2';
      await query('consume', sql, [id, this.type]);
    }

    async destroy(id: string): Promise<void> {
      await query('destroy', 'DELETE FROM oidc_payloads WHERE id = $1 AND type = $2', [id, this.type]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await query('revoke_grant', 'DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
    }
  };
}

export interface PeerEndpoint {
  /** http://127.0.0.1:<port>/token */
  url: string;
  client: { client_id: string; client_secret: string };
  server: http.Server;
  /** The database's name, and where it is for the report (no password). */
  database: string;
  where: string;
  /** `n` new grants, each with its first refresh token (as a code exchange would issue it). */
  families(n: number): Promise<string[]>;
  close(): Promise<void>;
}

const scope = 'orders:read menu:read';

export async function startPeerEndpoint(): Promise<PeerEndpoint> {
  const created = await createPostgresDatabase();
  const pool = new pg.Pool({ connectionString: created.url, max: 10 });
  const server = http.createServer();
  const close = async () => {
    server.close();
    try {
      await pool.end();
    } finally {
      await created.drop();
    }
  };
  try {
    await pool.query(schema);
    const client = { client_id: 'peer-client', client_secret: randomBytes(32).toString('base64url') };
    const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      format: 'jwk',
    });
    const provider = new Provider('http://127.0.0.1', {
      adapter: postgresAdapter(pool),
      clients: [
        {
          ...client,
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: ['https://app.example.test/callback'],
        },
      ],
      scopes: scope.split(' '),
      // Ours issues a refresh token with every grant, and rotates it on every use.
      issueRefreshToken: async () => true,
      rotateRefreshToken: true,
      ttl: { AccessToken: 3600, RefreshToken: 180 * 24 * 3600, Grant: 180 * 24 * 3600 },
      findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
      jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig' }] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      features: { devInteractions: { enabled: false } },
    });
    server.on('request', provider.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const peerClient = await provider.Client.find(client.client_id);
    if (!peerClient) throw new Error('oidc-provider does not know its client');
    return {
      url: `http://127.0.0.1:${address.port}/token`,
      client,
      server,
      database: new URL(created.url).pathname.slice(1),
      where: created.where,
      families: (n) =>
        Promise.all(
          Array.from({ length: n }, async () => {
            const accountId = `account-${randomBytes(8).toString('hex')}`;
            const grant = new provider.Grant({ accountId, clientId: client.client_id });
            grant.addOIDCScope(scope);
            const grantId = await grant.save();
            const gty = 'authorization_code';
            return new provider.RefreshToken({ accountId, client: peerClient, grantId, scope, gty }).save();
          }),
        ),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
