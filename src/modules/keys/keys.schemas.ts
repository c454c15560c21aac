import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';

export const RoleSchema = Type.Union([Type.Literal('runtime'), Type.Literal('read'), Type.Literal('admin')]);

/** null: the server's default (PROMPTLINE_RATE_LIMIT_PER_MINUTE); 0: no limit for this key. */
const RateLimit = Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'requests per minute; null: the server default; 0: unlimited' }));

export const CreateKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  role: RoleSchema,
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time', maxLength: 64 }))),
  rate_limit_per_minute: Type.Optional(RateLimit),
});

export type KeyInput = Static<typeof CreateKeyBody>;

export const PatchKeyBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  rate_limit_per_minute: Type.Optional(RateLimit),
});
export type KeyPatch = Static<typeof PatchKeyBody>;

export const PublicKeySchema = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  key_prefix: Type.String(),
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
  rate_limit_per_minute: Nullable(Type.Integer()),
});

export type PublicKey = Static<typeof PublicKeySchema>;

export const CreatedKeySchema = Type.Composite([PublicKeySchema, Type.Object({ key: Type.String() })]);
export type CreatedKey = Static<typeof CreatedKeySchema>;

export const KeyIdParams = Type.Object({ key_id: Type.String({ maxLength: 128 }) });
