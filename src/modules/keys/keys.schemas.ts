import { Type } from '@sinclair/typebox';
import { Nullable, RoleSchema } from '../../http/commonSchemas.js';

export const CreateKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  role: RoleSchema,
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time', maxLength: 64 }))),
});

export const PublicKeySchema = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  key_prefix: Type.String(),
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
});

export const CreatedKeySchema = Type.Composite([PublicKeySchema, Type.Object({ key: Type.String() })]);

export const KeyIdParams = Type.Object({ key_id: Type.String({ maxLength: 128 }) });
