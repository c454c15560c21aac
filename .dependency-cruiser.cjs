// The import rules of ARCHITECTURE.md ("Who may import whom" and the layer map), kept by the
// machine: `npm run lint:deps`, and a stage of `npm test`. A rule here and its sentence there change
// together.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No file imports another that imports it back, directly or through others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-imports-nothing-of-ours',
      severity: 'error',
      comment: '`lib` imports nothing of ours.',
      from: { path: '^src/lib/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/lib/' },
    },
    {
      name: 'stats-imports-only-lib',
      severity: 'error',
      comment: '`stats` imports nothing of ours but `lib`.',
      from: { path: '^src/stats/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/(stats|lib)/' },
    },
    {
      name: 'db-imports-only-lib',
      severity: 'error',
      comment: '`db` imports `lib` only (config.ts imports what it needs of db, never the other way round).',
      from: { path: '^src/db/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/(db|lib)/' },
    },
    {
      name: 'providers-imports-only-lib',
      severity: 'error',
      comment: '`providers` imports `lib` only.',
      from: { path: '^src/providers/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/(providers|lib)/' },
    },
    {
      name: 'fastapi-is-self-contained',
      severity: 'error',
      comment: '`http/fastapi/` imports nothing of ours outside itself.',
      from: { path: '^src/http/fastapi/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/http/fastapi/' },
    },
    {
      name: 'fastapi-is-free-of-fastify',
      severity: 'error',
      comment: '`http/fastapi/` imports nothing of Fastify.',
      from: { path: '^src/http/fastapi/' },
      to: { path: 'node_modules/(fastify|@fastify/)' },
    },
    {
      name: 'edge-imports-what-it-may',
      severity: 'error',
      comment: '`http` may import `lib`, `db`, `providers`, module types and the `Config` type: nothing else of ours.',
      from: { path: '^src/http/' },
      to: { path: '^(src|web|bench|scripts|test)/', pathNot: '^src/(http|lib|db|providers|modules|config[.]ts$)' },
    },
    {
      name: 'edge-imports-only-types-of-modules-and-config',
      severity: 'error',
      comment: 'Of the modules (the key decision) and of config.ts, `http` imports types only.',
      from: { path: '^src/http/' },
      to: { path: '^src/(modules/|config[.]ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-other-modules-repo',
      severity: 'error',
      comment: "A module never imports another module's repo (its SQL): it goes through that module's service or exported functions.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/[^/]+[.]repo[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'only-routes-import-http',
      severity: 'error',
      comment: 'Within modules, only *.routes.ts import `http` (services, repos and schemas never speak HTTP).',
      from: { path: '^src/modules/', pathNot: '[.]routes[.]ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'experiments-import-nothing-of-results',
      severity: 'error',
      comment: 'Results read experiments; experiments import nothing of results.',
      from: { path: '^src/modules/experiments/' },
      to: { path: '^src/modules/results/' },
    },
    {
      name: 'web-imports-only-numbers',
      severity: 'error',
      comment: "Of the server's code, `web/` imports `src/lib/numbers.ts` only.",
      from: { path: '^web/' },
      to: { path: '^(src|bench|scripts|test)/', pathNot: '^src/lib/numbers[.]ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (else a rule above could not see it).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
