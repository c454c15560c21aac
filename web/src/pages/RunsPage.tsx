import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import { api } from '../lib/api';
import { ApiError } from '../lib/errors';
import { filtersFromSearch, runsPath, searchFromFilters, type RunFilters } from '../lib/runFilters.js';
import type { Run } from '../lib/runView.js';
import type { Page, Prompt } from '../lib/types';
import { GeneralErrors } from './parts';
import { FilterForm, FILTER_FIELDS } from './runs/FilterForm';
import { RunsTable } from './runs/RunsTable';
import './runs.css';

/** Stored runs, newest first, filtered as the API filters them; the filters live in the URL. */
export function RunsPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersFromSearch(search);
  const canonical = searchFromFilters(filters);
  const runs = useInfiniteQuery({
    queryKey: ['runs', canonical],
    queryFn: ({ pageParam }) => api<Page<Run>>('GET', runsPath(filters, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  // Prompt ids for the prompt filter's suggestions; the filter takes any text.
  const prompts = useQuery({ queryKey: ['prompts'], queryFn: () => api<Page<Prompt>>('GET', '/prompts?limit=500') });
  const apply = (next: RunFilters) => {
    const qs = searchFromFilters(next);
    navigate(qs === '' ? '/runs' : `/runs?${qs}`);
  };
  const error = runs.error instanceof ApiError ? runs.error : null;
  const list = runs.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = canonical !== '';

  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <FilterForm key={canonical} filters={filters} error={error} promptIds={(prompts.data?.data ?? []).map((p) => p.prompt_id)} onApply={apply} />
      <GeneralErrors error={runs.error} fields={FILTER_FIELDS} />
      {runs.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        runs.isSuccess && (
          <p className="empty">
            {filtered ? 'No run matches these filters.' : 'No runs yet. Runs appear here when an application (or the playground) calls /run_prompt.'}
          </p>
        )
      ) : (
        <RunsTable runs={list} />
      )}
      {list.length > 0 && (
        <p className="help">
          {list.length === 1 ? '1 run shown' : `${list.length} runs shown`}, newest first{runs.hasNextPage ? '; there are more.' : '.'}
        </p>
      )}
      {runs.hasNextPage && (
        <button type="button" className="more" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {runs.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}
