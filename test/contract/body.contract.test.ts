import { defineContractSuite } from './contractRunner.js';
import { bodyCases } from './tables/body.js';

defineContractSuite('contract §2.2 body reading', bodyCases);
