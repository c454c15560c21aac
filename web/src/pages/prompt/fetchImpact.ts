import { api } from '../../lib/api';
import type { Impact } from './impact';

export function fetchImpact(promptId: string, version: number, label: string): Promise<Impact> {
  return api<Impact>('GET', `/prompts/${encodeURIComponent(promptId)}/versions/${version}/impact?label=${encodeURIComponent(label)}`);
}
