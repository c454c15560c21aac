import type { Static } from '@sinclair/typebox';
import { describe, expectTypeOf, it } from 'vitest';
import type { ExperimentSchema } from '../../../src/modules/experiments/experiments.schemas.js';
import type { CreatedKeySchema, PublicKeySchema } from '../../../src/modules/keys/keys.schemas.js';
import type { PromptSchema, VersionSchema } from '../../../src/modules/prompts/prompts.schemas.js';
import type { ExperimentResultsSchema } from '../../../src/modules/results/results.schemas.js';
import type { RunSchema } from '../../../src/modules/runs/runs.schemas.js';
import type { ImpactSchema } from '../../../src/modules/inputs/impact.schemas.js';
import type { Impact } from '../../../web/src/pages/prompt/impact.js';
import type { ApiKey, CreatedKey } from '../../../web/src/lib/keys.js';
import type { Run } from '../../../web/src/lib/runView.js';
import type { ExperimentCheck, ExperimentDetail, ExperimentResults, Prompt, Version } from '../../../web/src/lib/types.js';
import type { CheckListSchema } from '../../../src/modules/scheduler/scheduler.schemas.js';
import type { EvaluatorSchema, EvaluatorVersionSchema } from '../../../src/modules/evaluators/evaluators.schemas.js';
import type { OnlineEvaluatorSchema, RunScoreListSchema } from '../../../src/modules/onlineScoring/onlineScoring.schemas.js';
import type { Evaluator } from '../../../web/src/lib/datasets.js';
import type { EvaluatorVersion, OnlineEvaluator, RunScore } from '../../../web/src/lib/evaluators.js';

/**
 * The console restates the API's shapes in web/src/lib (it must not bundle server code). These
 * checks run in the type checker (`npm test` runs `tsc` over the tests): every answer the server's
 * schema allows must fit what the console reads, so a field renamed or retyped on the server fails
 * the build instead of showing "undefined" in a browser.
 */
describe("the console's types fit the API's schemas", () => {
  it('prompts and versions', () => {
    expectTypeOf<Static<typeof PromptSchema>>().toExtend<Prompt>();
    expectTypeOf<Static<typeof VersionSchema>>().toExtend<Version>();
  });
  it('experiments and their results', () => {
    expectTypeOf<Static<typeof ExperimentSchema>>().toExtend<ExperimentDetail>();
    expectTypeOf<Static<typeof ExperimentResultsSchema>>().toExtend<ExperimentResults>();
    expectTypeOf<Static<typeof CheckListSchema>['data'][number]>().toExtend<ExperimentCheck>();
  });
  it("a version's impact", () => {
    expectTypeOf<Static<typeof ImpactSchema>>().toExtend<Impact>();
  });
  it('runs and keys', () => {
    expectTypeOf<Static<typeof RunSchema>>().toExtend<Run>();
    expectTypeOf<Static<typeof PublicKeySchema>>().toExtend<ApiKey>();
    expectTypeOf<Static<typeof CreatedKeySchema>>().toExtend<CreatedKey>();
  });
  it('evaluators, online evaluators and run scores', () => {
    expectTypeOf<Static<typeof EvaluatorSchema>>().toExtend<Evaluator>();
    expectTypeOf<Static<typeof EvaluatorVersionSchema>>().toExtend<EvaluatorVersion>();
    expectTypeOf<Static<typeof OnlineEvaluatorSchema>>().toExtend<OnlineEvaluator>();
    expectTypeOf<Static<typeof RunScoreListSchema>['data'][number]>().toExtend<RunScore>();
  });
});
