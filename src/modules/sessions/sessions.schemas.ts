import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';

/** Who a request is signed in as: what the console shows and checks on load. */
export const WhoAmISchema = Type.Object({
  project_id: Type.String(),
  key_id: Type.String(),
  key_name: Type.String(),
  key_prefix: Type.String({ description: 'the first characters of the key, as in GET /keys' }),
  role: Type.Union([Type.Literal('runtime'), Type.Literal('read'), Type.Literal('admin')]),
  authenticated_by: Type.Union([Type.Literal('session'), Type.Literal('api_key')], {
    description: 'session: the console session cookie; api_key: the X-API-Key header',
  }),
  expires_at: Nullable(
    Type.String({
      description: "when this sign-in stops working: the session's expiry (never after its key's), or for X-API-Key the key's own expiry; null: never",
    }),
  ),
});
export type WhoAmI = Static<typeof WhoAmISchema>;
