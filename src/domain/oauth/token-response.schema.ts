import Type, { type Static } from 'typebox';

/** The 200 body of the token endpoint, exactly as the spec lists it (Token request). */
export const TokenResponseSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  scope: Type.String({ description: 'The access token’s scopes, space-separated.' }),
  connection_id: Type.String({ format: 'uuid' }),
  tenant: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), slug: Type.String() }),
});
export type TokenResponse = Static<typeof TokenResponseSchema>;
