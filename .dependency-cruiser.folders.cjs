// ARCHITECTURE.md: no folder under src/ imports another that imports it back (through any others).
// A run of its own because folder cycles need dependency-cruiser's folder scope; type-only
// imports are included, as in every other rule (.dependency-cruiser.cjs). `npm run lint:deps` runs both.
const { options } = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'No folder under src/ imports another that imports it back, directly or through others.',
      from: { path: '^src' },
      to: { circular: true },
    },
  ],
  options,
};
