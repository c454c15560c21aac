/**
 * The bundle as `GET /sdk/bundle` sends it (docs/sdks.md, "The bundle"), and the index a client
 * builds of it once per load, so a call costs map lookups and a walk, nothing else.
 */
import { prepareChecks, type PreparedCheck, type WireDeclaration } from './declarations.js';

/**
 * The bundle formats this client knows (2: some version declares typed variables); any other is
 * ignored and calls go to the server.
 */
const BUNDLE_FORMATS: readonly number[] = [1, 2];

export type TemplateNode =
  | { type: 'text'; text: string }
  | { type: 'value'; name: string }
  | { type: 'section' | 'inverted'; name: string; nodes: TemplateNode[] };

export type ChatRole = 'system' | 'user' | 'assistant';

interface WireVersion {
  version: number;
  kind: 'text' | 'chat';
  template: TemplateNode[] | null;
  messages: Array<{ role: ChatRole; template: TemplateNode[] }> | null;
  /** Absent in a bundle of format 1 from a server that predates typed variables. */
  declared_variables?: Record<string, WireDeclaration> | null;
}

interface WireExperiment {
  experiment_id: string;
  prompt_id: string;
  seed: string;
  remote_only: boolean;
  variants: Array<{ key: string; version: number; range: [number, number] }>;
}

export interface BundleLimits {
  render_max_bytes: number;
  render_max_steps: number;
  prompt_id_max_length: number;
  external_user_id_max_length: number;
  inputs_max_entries: number;
  body_max_bytes: number;
}

export interface WireBundle {
  format: number;
  limits: BundleLimits;
  prompts: Array<{ prompt_id: string; served_version: number; versions: WireVersion[] }>;
  experiments: WireExperiment[];
}

/** A node ready to walk: a value's name split once, a text's UTF-8 size counted once. */
export type Node =
  | { kind: 'text'; text: string; bytes: number }
  | { kind: 'value'; name: string; path: readonly string[] | null }
  | { kind: 'section' | 'inverted'; name: string; path: readonly string[] | null; nodes: readonly Node[] };

export interface PreparedVersion {
  version: number;
  /** Text prompts: one template; chat prompts: one per message. */
  kind: 'text' | 'chat';
  templates: ReadonlyArray<{ role: ChatRole; nodes: readonly Node[] }>;
  /** The typed variables' checks; null: none declared. */
  checks: readonly PreparedCheck[] | null;
  /** A declaration this client cannot check as the server does (a pattern its engine refuses): ask the server. */
  remoteOnly: boolean;
}

interface PreparedExperiment {
  id: string;
  seed: string;
  remoteOnly: boolean;
  variants: ReadonlyArray<{ key: string; version: number; lo: number; hi: number }>;
}

export interface PreparedPrompt {
  servedVersion: number;
  versions: ReadonlyMap<number, PreparedVersion>;
  experiment: PreparedExperiment | null;
}

export interface BundleIndex {
  limits: BundleLimits;
  prompts: ReadonlyMap<string, PreparedPrompt>;
}

export function prepareNodes(nodes: readonly TemplateNode[]): Node[] {
  return nodes.map((node): Node => {
    if (node.type === 'text') return { kind: 'text', text: node.text, bytes: Buffer.byteLength(node.text, 'utf8') };
    const path = node.name === '.' ? null : node.name.split('.');
    if (node.type === 'value') return { kind: 'value', name: node.name, path };
    return { kind: node.type, name: node.name, path, nodes: prepareNodes(node.nodes) };
  });
}

function prepareVersion(version: WireVersion): PreparedVersion {
  const templates =
    version.kind === 'chat'
      ? (version.messages ?? []).map((m) => ({ role: m.role, nodes: prepareNodes(m.template) }))
      : [{ role: 'user' as const, nodes: prepareNodes(version.template ?? []) }];
  const declared = version.declared_variables ?? null;
  const checks = declared === null ? null : prepareChecks(declared);
  return { version: version.version, kind: version.kind, templates, checks, remoteOnly: declared !== null && checks === null };
}

/** Null for a bundle of a format this client does not know. */
export function indexBundle(bundle: WireBundle): BundleIndex | null {
  if (!BUNDLE_FORMATS.includes(bundle.format)) return null;
  const experiments = new Map(bundle.experiments.map((e) => [e.prompt_id, e]));
  const prompts = new Map<string, PreparedPrompt>();
  for (const prompt of bundle.prompts) {
    const experiment = experiments.get(prompt.prompt_id);
    prompts.set(prompt.prompt_id, {
      servedVersion: prompt.served_version,
      versions: new Map(prompt.versions.map((v) => [v.version, prepareVersion(v)])),
      experiment:
        experiment === undefined
          ? null
          : {
              id: experiment.experiment_id,
              seed: experiment.seed,
              remoteOnly: experiment.remote_only,
              variants: experiment.variants.map((v) => ({ key: v.key, version: v.version, lo: v.range[0], hi: v.range[1] })),
            },
    });
  }
  return { limits: bundle.limits, prompts };
}
