/** What a page for admin keys says to a read-only key that follows a link to it: no controls, no request. */
export function AdminOnly({ title, what }: { title: string; what: string }) {
  return (
    <section aria-labelledby="admin-only-title">
      <h1 id="admin-only-title">{title}</h1>
      <p className="notice">Admin keys only: {what}. This console is signed in with a read-only key.</p>
    </section>
  );
}
