/** The API's shapes the console reads (the server's TypeBox schemas are the reference). */
export interface Prompt {
  prompt_id: string;
  description: string | null;
  latest_version: number | null;
  labels: Record<string, number>;
  created_at: string;
  archived_at: string | null;
}

export interface ChatMessage {
  role: string;
  content: string;
}

export interface Version {
  prompt_id: string;
  version: number;
  type: 'text' | 'chat';
  template: string | null;
  messages: ChatMessage[] | null;
  model: string | null;
  params: Record<string, unknown>;
  fallbacks: string[];
  variables: string[];
  commit_message: string | null;
  labels: string[];
  created_at: string;
}

export interface Experiment {
  experiment_id: string;
  prompt_id: string;
  name: string | null;
  status: 'draft' | 'running' | 'paused' | 'stopped';
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
