import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { roleOf, SIGNED_OUT_EVENT, type Role } from './lib/api';
import { session } from './lib/session';
import { KeysPage } from './pages/KeysPage';
import { AuditRoute, WebhookRoute, WebhooksRoute } from './pages/lazyAdmin';
import { ExperimentRoute, ExperimentsRoute } from './pages/lazyExperiments';
import { PromptPage } from './pages/PromptPage';
import { PromptsPage } from './pages/PromptsPage';
import { RunPage } from './pages/RunPage';
import { RunsPage } from './pages/RunsPage';
import { SignInPage } from './pages/SignInPage';
import { VersionPage } from './pages/VersionPage';

export function App() {
  const [key, setKey] = useState(session.key());
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  useEffect(() => {
    const onSignedOut = () => setKey(null);
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);
  const role = useQuery({ queryKey: ['role', key], queryFn: () => roleOf(key!), enabled: key !== null, staleTime: Number.POSITIVE_INFINITY });

  if (key === null) {
    return (
      <SignInPage
        onSignedIn={(signedIn) => {
          session.signIn(signedIn);
          setKey(signedIn);
        }}
      />
    );
  }
  if (role.isPending) return <p className="loading">Checking the key…</p>;
  if (role.isError) {
    return (
      <main className="narrow">
        <p role="alert">Could not check the key: {role.error.message}</p>
        <button
          type="button"
          onClick={() => {
            session.signOut();
            setKey(null);
          }}
        >
          Sign in again
        </button>
      </main>
    );
  }
  const signOut = () => {
    session.signOut();
    queryClient.clear();
    setKey(null);
    navigate('/');
  };
  return <Shell role={role.data} onSignOut={signOut} />;
}

function Shell({ role, onSignOut }: { role: Role; onSignOut: () => void }) {
  return (
    <>
      <header className="top">
        <Link href="/prompts" className="brand">
          Promptline
        </Link>
        <nav aria-label="Main">
          <Link href="/prompts">Prompts</Link>
          <Link href="/experiments">Experiments</Link>
          <Link href="/runs">Runs</Link>
          {role === 'admin' && <Link href="/keys">Keys</Link>}
          {role === 'admin' && <Link href="/audit">Audit log</Link>}
          {role === 'admin' && <Link href="/webhooks">Webhooks</Link>}
        </nav>
        <span className="role" title="what this key may do">
          {role === 'admin' ? 'admin key' : 'read-only key'}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>
        <Switch>
          <Route path="/prompts">
            <PromptsPage role={role} />
          </Route>
          <Route path="/prompts/:id">{(params) => <PromptPage promptId={params.id} role={role} />}</Route>
          <Route path="/prompts/:id/versions/:version">{(params) => <VersionPage promptId={params.id} version={Number(params.version)} />}</Route>
          <Route path="/experiments">
            <ExperimentsRoute role={role} />
          </Route>
          <Route path="/experiments/:id">{(params) => <ExperimentRoute experimentId={params.id} role={role} />}</Route>
          <Route path="/runs">
            <RunsPage />
          </Route>
          <Route path="/runs/:id">{(params) => <RunPage runId={params.id} />}</Route>
          <Route path="/keys">
            <KeysPage role={role} />
          </Route>
          <Route path="/audit">
            <AuditRoute role={role} />
          </Route>
          <Route path="/webhooks">
            <WebhooksRoute role={role} />
          </Route>
          <Route path="/webhooks/:id">{(params) => <WebhookRoute webhookId={params.id} role={role} />}</Route>
          <Route>
            <Redirect to="/prompts" />
          </Route>
        </Switch>
      </main>
    </>
  );
}
