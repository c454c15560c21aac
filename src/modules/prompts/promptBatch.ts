import type { Sql } from '../../db/sql.js';
import type { Actor } from '../changes/changeLog.js';
import type { CreatePromptInput, PromptView, VersionInput, VersionView } from './prompts.schemas.js';
import type { PromptRow, VersionRecord } from './prompts.repo.js';

/** What a push reads of one prompt, inside its transaction. */
export interface PromptSyncState {
  prompt: PromptRow | undefined;
  versions: VersionRecord[];
  labels: Record<string, number>;
}

/** The writes (and the one read) a push makes inside its transaction: PromptService.batch. */
export interface PromptBatch {
  readonly db: Sql;
  read(promptId: string): Promise<PromptSyncState>;
  create(input: CreatePromptInput, actor: Actor): Promise<PromptView & { version: VersionView | null }>;
  createVersion(promptId: string, input: VersionInput, actor: Actor): Promise<VersionView>;
  moveLabel(promptId: string, label: string, version: number, actor: Actor): Promise<PromptView>;
  /** Marks a prompt managed in Git (once: a prompt already marked records no change). */
  markManagedInGit(promptId: string, actor: Actor): Promise<void>;
}
