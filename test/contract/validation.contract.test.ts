import { defineContractSuite } from './contractRunner.js';
import { validationCases } from './tables/validation.js';

defineContractSuite('contract §2.3–2.5 header and body validation', validationCases);
