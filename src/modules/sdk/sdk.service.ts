import { createHash } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { withIdempotency, type IdempotencyClaim } from '../idempotency/idempotency.js';
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_TYPED,
  type Bundle,
  type BundleExperiment,
  type BundleLimits,
  type BundlePrompt,
  type ExposureReport,
  type ReportedExposure,
} from './sdk.schemas.js';

/** What the SDK endpoints need of prompts and experiments, each from its own module. */
export interface SdkPorts {
  /** Live prompts with their served version and the other versions `extra` names per prompt. */
  promptsForBundle(db: Sql, projectId: string, extra: ReadonlyMap<string, readonly number[]>): Promise<BundlePrompt[]>;
  experimentsForBundle(db: Sql, projectId: string): Promise<BundleExperiment[]>;
  /** Inside the report's write. */
  recordExposures(db: Sql, projectId: string, items: readonly ReportedExposure[], nowMs: number): Promise<ExposureReport>;
}

/** A bundle as sent: its bytes, and their hash as a strong ETag. */
export interface BuiltBundle {
  etag: string;
  body: Buffer;
}

/**
 * `GET /sdk/bundle` and `POST /sdk/exposures` (docs/sdks.md). A project's bundle is built once from
 * one read snapshot and kept until a change to any of its prompts or experiments drops it (the same
 * invalidations as the serving caches: this process's writes, another process's commits), so
 * clients polling every few seconds cost a hash compare. Its ETag is the hash of its bytes: a
 * rebuild that changed nothing keeps the ETag, and clients get 304.
 */
export function createSdkService(store: Store, ports: SdkPorts, limits: BundleLimits, trusted: () => boolean = () => true) {
  // A build in flight is shared; an invalidation drops it, so later callers start a new one.
  const built = new Map<string, Promise<BuiltBundle>>();

  async function build(projectId: string): Promise<BuiltBundle> {
    const bundle = await store.readSnapshot(async (db): Promise<Bundle> => {
      const experiments = (await ports.experimentsForBundle(db, projectId)).filter((e) => e.variants.length > 0);
      const extra = new Map(experiments.map((e) => [e.prompt_id, e.variants.map((v) => v.version)]));
      const prompts = await ports.promptsForBundle(db, projectId, extra);
      const servable = new Set(prompts.map((p) => p.prompt_id));
      const typed = prompts.some((p) => p.versions.some((v) => v.declared_variables !== null));
      return { format: typed ? BUNDLE_FORMAT_TYPED : BUNDLE_FORMAT, limits, prompts, experiments: experiments.filter((e) => servable.has(e.prompt_id)) };
    });
    const body = Buffer.from(JSON.stringify(bundle), 'utf8');
    return { etag: `"${createHash('sha256').update(body).digest('base64url')}"`, body };
  }

  return {
    bundle(projectId: string): Promise<BuiltBundle> {
      if (!trusted()) return build(projectId);
      const cached = built.get(projectId);
      if (cached !== undefined) return cached;
      const building = build(projectId);
      built.set(projectId, building);
      building.catch(() => {
        if (built.get(projectId) === building) built.delete(projectId);
      });
      return building;
    },

    async reportExposures(projectId: string, items: readonly ReportedExposure[], claim: IdempotencyClaim | null): Promise<ExposureReport> {
      return await withIdempotency<ExposureReport>(store.sql, projectId, claim, (remember) =>
        store.writer.write(async (db) => {
          const report = await ports.recordExposures(db, projectId, items, store.clock.now().getTime());
          await remember(db, report, isoNow(store.clock));
          return report;
        }),
      );
    },

    /** A change to a project's prompts or experiments. */
    invalidate(projectId: string): void {
      built.delete(projectId);
    },
    clear(): void {
      built.clear();
    },
  };
}

export type SdkService = ReturnType<typeof createSdkService>;
