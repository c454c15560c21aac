// ARCHITECTURE.md: no folder under src/ imports another that imports it back (through any others).
// A run of its own because it reads the graph as it runs: type-only imports are left out (they
// vanish when compiled, and the edge may name a module's types: the key decision, the Config type);
// every other rule, in .dependency-cruiser.cjs, sees them. `npm run lint:deps` runs both.
const { options } = require('./.dependency-cruiser.cjs');

// Temporary: the audit ⇄ webhooks cycle (audit's recordChange enqueues webhook events; webhooks
// record their own changes through recordChange; experiments close a longer loop through both) is
// removed by the change-log port. Until that branch is merged, only the imports among these three
// folders go unchecked; every edge leaving them, and every other folder, is checked. After the
// merge: drop TRIO, the pathNot of the first rule and the whole second rule.
const TRIO = '^src/modules/(audit|webhooks|experiments)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'No folder under src/ imports another that imports it back, directly or through others.',
      from: { path: '^src', pathNot: TRIO },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'The same, for the edges that leave audit, webhooks and experiments (see TRIO).',
      from: { path: TRIO },
      to: { circular: true, pathNot: TRIO },
    },
  ],
  options: {
    ...options,
    tsPreCompilationDeps: false,
  },
};

