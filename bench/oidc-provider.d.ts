/** The part of oidc-provider's API the token endpoint bench uses (the package ships no types). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** What the provider stores of a model (a token, a grant). */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
  }

  /** The storage of one model, `new Adapter(name)` per model name. */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Configuration {
    adapter?: new (name: string) => Adapter;
    clients?: Array<Record<string, unknown>>;
    [option: string]: unknown;
  }

  export interface Client {
    clientId: string;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    readonly Client: { find(id: string): Promise<Client | undefined> };
    readonly Grant: new (properties: {
      accountId: string;
      clientId: string;
    }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
    readonly RefreshToken: new (properties: {
      accountId: string;
      client: Client;
      grantId: string;
      scope: string;
      gty: string;
    }) => { save(): Promise<string> };
  }
}
