/**
 * A simulated bandit on success rates, driven by the same pure functions the scheduled check uses:
 * users arrive in periods (one check per period), each new user follows the weights in force, their
 * outcome is a coin with the arm's true rate. Seeded throughout, so every run gives the same figures.
 */
import { mulberry32 } from '../../support/prng.js';
import { armPosterior, periodWeightedEstimates, probabilityBest, thompsonWeights, type ArmEstimate, type Suff } from './banditTestKit.js';

export interface SimulationOptions {
  rates: readonly number[];
  usersPerPeriod: number;
  periods: number;
  /** Monte Carlo draws of P(best) per check (the service uses 10 000; the weights need far fewer). */
  draws: number;
}

export interface SimulationRun {
  /** Weights in force during each period (period 0: equal). */
  weights: number[][];
  /** Users per arm per period. */
  cells: Suff[][];
  /** The period-weighted estimates after the last period. */
  estimates: Array<ArmEstimate | null>;
  /** Σ over users of (best rate − their arm's rate): the expected successes lost to exploring. */
  regret: number;
}

export function simulateBandit(options: SimulationOptions, seed: number): SimulationRun {
  const random = mulberry32(seed); // the simulated users (the statistics draw with their own generator)
  const k = options.rates.length;
  const best = Math.max(...options.rates);
  let weights = new Array<number>(k).fill(1 / k);
  const history: number[][] = [];
  const cells: Suff[][] = [];
  let regret = 0;
  for (let p = 0; p < options.periods; p++) {
    history.push(weights);
    const period = options.rates.map(() => ({ n: 0, sum: 0, sumSquares: 0 }));
    for (let u = 0; u < options.usersPerPeriod; u++) {
      const r = random();
      let arm = 0;
      let cumulative = weights[0]!;
      while (r >= cumulative && arm < k - 1) cumulative += weights[++arm]!;
      const cell = period[arm]!;
      cell.n += 1;
      if (random() < options.rates[arm]!) {
        cell.sum += 1;
        cell.sumSquares += 1;
      }
      regret += best - options.rates[arm]!;
    }
    cells.push(period);
    const estimates = periodWeightedEstimates('success_rate', cells);
    const posteriors = estimates.map((e) => armPosterior('success_rate', e)!);
    const pBest = probabilityBest(posteriors, { seed: seed * 1000 + p, draws: options.draws });
    weights = thompsonWeights(
      pBest,
      options.rates.map(() => true),
    );
  }
  return { weights: history, cells, estimates: periodWeightedEstimates('success_rate', cells), regret };
}
