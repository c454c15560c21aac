import type { ChatMessage } from '../../lib/chatMessage.js';

/** A version as the management API takes it (POST /prompts/{id}/versions), labels aside. */
export interface VersionContent {
  template?: string;
  messages?: ChatMessage[];
  model: string | null;
  params: Record<string, unknown>;
  commit_message: string | null;
}

/** One version read from another tool, in its order, with where it came from (for the report). */
export interface ImportedVersion {
  /** How the source names it: `v3` (Langfuse), `version 2` (OpenAI), `welcome.txt` (a folder). */
  origin: string;
  content: VersionContent;
  /** Promptline labels to point at this version once it exists (already checked against the label pattern). */
  labels: string[];
}

export interface ImportedPrompt {
  prompt_id: string;
  description: string | null;
  /** Oldest first: they become versions in this order. */
  versions: ImportedVersion[];
}

/** Something of the source that could not be carried over, and why. */
export interface Problem {
  prompt: string;
  /** The source's version (its `origin`), or null for the whole prompt. */
  version: string | null;
  reason: string;
}

/** What a mapper answers: what can be imported, and what cannot (or only in part). */
export interface Mapped {
  prompts: ImportedPrompt[];
  problems: Problem[];
}
