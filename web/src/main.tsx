import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { App } from './App';
import { ApiError } from './lib/errors';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // A 4xx will not get better by asking again; a network blip might.
    queries: { retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2, refetchOnWindowFocus: false },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <Router base="/ui">
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
