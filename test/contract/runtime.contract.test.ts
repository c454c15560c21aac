import { expect, it } from 'vitest';
import { defineContractSuite } from './contractRunner.js';
import { bodyCases } from './tables/body.js';
import { routingCases } from './tables/routing.js';
import { runtimeCases } from './tables/runtime.js';
import { validationCases } from './tables/validation.js';

defineContractSuite('contract §1 and §2.6 runtime decisions', runtimeCases);

it('the contract tables hold at least 100 uniquely named cases', () => {
  const all = [...routingCases, ...bodyCases, ...validationCases, ...runtimeCases];
  expect(new Set(all.map((c) => c.name)).size).toBe(all.length);
  expect(all.length).toBeGreaterThanOrEqual(100);
});
