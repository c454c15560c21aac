import { contentHash, versionContent } from '../../promptFiles/hash.js';
import type { VersionInput } from './prompts.schemas.js';
import type { VersionRecord } from './prompts.repo.js';

/**
 * The content hash every new version stores (over its content alone: src/promptFiles/hash.ts), by
 * which a push of prompt files finds the version that already holds a file's content.
 */
export function contentHashOf(input: VersionInput): string {
  return contentHash(versionContent(input));
}

/** A stored version's content hash: the one kept, else computed from its content (versions older than the column). */
export function storedContentHash(record: VersionRecord): string {
  return record.content_hash ?? contentHash(versionContent({ ...record, ...record.model_config, variables: record.declared_variables }));
}
