import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery } from '../../lib/schemas.js';

export const ListAuditQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. prompt.label_moved, experiment.stopped, key.revoked' })),
  target_type: Type.Optional(
    Type.Union([
      Type.Literal('prompt'),
      Type.Literal('experiment'),
      Type.Literal('key'),
      Type.Literal('user'),
      Type.Literal('webhook'),
      Type.Literal('dataset'),
      Type.Literal('evaluator'),
    ]),
  ),
  target_id: Type.Optional(Type.String({ maxLength: 1024 })),
  key_id: Type.Optional(Type.String({ maxLength: 128, description: 'changes made with this API key' })),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'exclusive' })),
  ...PageQuery,
});
export type ListAuditInput = Static<typeof ListAuditQuery>;

const AuditEntrySchema = Type.Object(
  {
    id: Type.String(),
    created_at: Type.String(),
    key_id: Nullable(Type.String({ description: 'the API key that made the change; null for the CLI' })),
    key_name: Type.String({ description: 'its name at the time ("cli" for the command line)' }),
    action: Type.String(),
    target_type: Type.String(),
    target_id: Type.String(),
    before: Type.Unknown({ description: 'the object before the change; null when it is new' }),
    after: Type.Unknown({ description: 'the object after the change; null when it is gone' }),
  },
  { title: 'AuditEntry' },
);
export const AuditPageSchema = Type.Object({ data: Type.Array(AuditEntrySchema), next_cursor: Nullable(Type.String()) });
