import { defineContractSuite } from './contractRunner.js';
import { routingCases } from './tables/routing.js';

defineContractSuite('contract §2.1 routing', routingCases);
