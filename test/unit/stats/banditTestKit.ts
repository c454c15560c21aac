/** The bandit statistics under test, and the normal CDF their checks compare with. */
export * from '../../../src/stats/index.js';
export { normalCdf as normalCdfForTests } from '../../../src/stats/distributions.js';
