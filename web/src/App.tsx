import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { SIGNED_OUT_EVENT, type Role } from './lib/api';
import { forgetSession, SESSION_QUERY, type SignedIn, signOut, useSession } from './lib/session';
import { KeysPage } from './pages/KeysPage';
import { AuditRoute, WebhookRoute, WebhooksRoute } from './pages/lazyAdmin';
import { ExperimentRoute, ExperimentsRoute } from './pages/lazyExperiments';
import { DatasetRoute, DatasetsRoute, EvaluationRoute, EvaluationsRoute, EvaluatorRoute, EvaluatorsRoute } from './pages/lazyEvaluations';
import { PromptPage } from './pages/PromptPage';
import { PromptsPage } from './pages/PromptsPage';
import { RunPage } from './pages/RunPage';
import { RunsPage } from './pages/RunsPage';
import { SignInPage } from './pages/SignInPage';
import { VersionPage } from './pages/VersionPage';
import { useFocusOnNavigation } from './lib/focus';

/**
 * Signed out: the session query says so (the shell, subscribed to it, shows the sign-in form) and
 * everything read with the session goes. The session query is set, not removed and made again, so
 * its observer hears of it.
 */
function forgetEverything(queryClient: QueryClient): void {
  queryClient.setQueryData(SESSION_QUERY, null);
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY[0] });
}

export function App() {
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const session = useSession();
  /** Signed in from the form in this tab: focus then goes to the page's heading (the form is gone). */
  const signedInHere = useRef(false);
  useEffect(() => {
    // The server refused the session (ended, expired, its key revoked): what this tab holds goes with it.
    const onSignedOut = () => {
      forgetSession();
      forgetEverything(queryClient);
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, [queryClient]);

  if (session.isPending) return <p className="loading">Checking the session…</p>;
  if (session.isError) {
    return (
      <main className="narrow">
        <p role="alert">Could not check the session: {session.error.message}</p>
        <button type="button" onClick={() => void session.refetch()}>
          Try again
        </button>
      </main>
    );
  }
  if (session.data === null) {
    // Signed in here, the page stays where it was: a deep link opens what it names.
    return (
      <SignInPage
        onSignedIn={(signedIn) => {
          signedInHere.current = true;
          queryClient.setQueryData(SESSION_QUERY, signedIn);
        }}
      />
    );
  }
  const onSignOut = async () => {
    await signOut();
    forgetEverything(queryClient);
    navigate('/');
  };
  return <Shell signedIn={session.data} focusFirst={signedInHere.current} onSignOut={() => void onSignOut()} />;
}

function Shell({ signedIn, focusFirst, onSignOut }: { signedIn: SignedIn; focusFirst: boolean; onSignOut: () => void }) {
  const role: Role = signedIn.role;
  const main = useFocusOnNavigation(focusFirst);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/prompts" className="brand">
          Promptline
        </Link>
        <nav aria-label="Main">
          <Link href="/prompts">Prompts</Link>
          <Link href="/experiments">Experiments</Link>
          <Link href="/runs">Runs</Link>
          <Link href="/datasets">Datasets</Link>
          <Link href="/evaluators">Evaluators</Link>
          <Link href="/evaluations">Evaluations</Link>
          {role === 'admin' && <Link href="/keys">Keys</Link>}
          {role === 'admin' && <Link href="/audit">Audit log</Link>}
          {role === 'admin' && <Link href="/webhooks">Webhooks</Link>}
        </nav>
        <span className="role" title={`signed in with ${signedIn.key_name} (${signedIn.key_prefix})`}>
          {role === 'admin' ? 'admin key' : 'read-only key'}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Switch>
          <Route path="/prompts">
            <PromptsPage role={role} />
          </Route>
          <Route path="/prompts/:id">{(params) => <PromptPage promptId={params.id} role={role} />}</Route>
          <Route path="/prompts/:id/versions/:version">{(params) => <VersionPage promptId={params.id} version={Number(params.version)} role={role} />}</Route>
          <Route path="/experiments">
            <ExperimentsRoute role={role} />
          </Route>
          <Route path="/experiments/:id">{(params) => <ExperimentRoute experimentId={params.id} role={role} />}</Route>
          <Route path="/runs">
            <RunsPage />
          </Route>
          <Route path="/runs/:id">{(params) => <RunPage runId={params.id} />}</Route>
          <Route path="/datasets">
            <DatasetsRoute role={role} />
          </Route>
          <Route path="/datasets/:id">{(params) => <DatasetRoute datasetId={params.id} role={role} />}</Route>
          <Route path="/evaluators">
            <EvaluatorsRoute role={role} />
          </Route>
          <Route path="/evaluators/:id">{(params) => <EvaluatorRoute evaluatorId={params.id} role={role} />}</Route>
          <Route path="/evaluations">
            <EvaluationsRoute />
          </Route>
          <Route path="/evaluations/:id">{(params) => <EvaluationRoute evaluationId={params.id} />}</Route>
          <Route path="/keys">
            <KeysPage role={role} signedInKeyId={signedIn.key_id} />
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
