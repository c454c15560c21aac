import { useEffect, useRef, useState } from 'react';
import type { ExperimentDetail, ExperimentResults } from '../../lib/types';
import { shipBacking, suggestedWinner } from './shipBacking';

const DECISION_NAMES: Record<ExperimentResults['decisions'][number]['decision'], string> = {
  ship: 'Ship',
  rollback: 'Roll back',
  keep_running: 'Keep running',
  unhealthy: 'Unhealthy',
};

export interface StopBody {
  winner: string;
  ship: true;
  override?: true;
  reason?: string;
}

/**
 * Stop and ship, asked with the decision in view: the winner the results say to ship comes first,
 * with its decision and reason. A winner the results do not back can still ship, as an override:
 * the dialog then asks why (kept in the audit log) and for the experiment id typed back.
 */
export function ShipDialog({
  experiment,
  results,
  pending,
  onConfirm,
  onCancel,
}: {
  experiment: ExperimentDetail;
  /** The results with default options (what the API checks a ship against); undefined while loading. */
  results: ExperimentResults | undefined;
  pending: boolean;
  onConfirm: (body: StopBody) => void;
  onCancel: () => void;
}) {
  const treatments = experiment.variants.filter((v) => v.key !== experiment.control).map((v) => v.key);
  const [chosen, setChosen] = useState<string | null>(null);
  const winner = chosen ?? suggestedWinner(results, experiment.control, treatments);
  const [reason, setReason] = useState('');
  const [typedId, setTypedId] = useState('');
  const legend = useRef<HTMLLegendElement>(null);
  useEffect(() => legend.current?.focus(), []);

  const backing = results === undefined ? null : shipBacking(results, winner);
  const override = backing !== null && !backing.backed;
  const ready = backing !== null && (!override || (reason.trim() !== '' && typedId === experiment.experiment_id));

  return (
    <fieldset className="confirm ship-dialog">
      <legend ref={legend} tabIndex={-1}>
        The experiment stops for good and the production label moves to the winner's version, in the same step.
      </legend>
      <label htmlFor="ship-winner">Winner</label>
      <select id="ship-winner" value={winner} onChange={(e) => setChosen(e.target.value)}>
        {experiment.variants.map((v) => (
          <option key={v.key} value={v.key}>
            {v.key} (v{v.version})
          </option>
        ))}
      </select>
      <p className="ship-decision" aria-live="polite">
        {backing === null
          ? 'Reading the decision…'
          : backing.decision === null
            ? (backing.why ?? `No treatment is decided ship or unhealthy: keeping ${winner} is backed.`)
            : `${DECISION_NAMES[backing.decision.decision]} (${backing.decision.variant}): ${backing.decision.reason}`}
      </p>
      {override && (
        <div className="ship-override">
          <p className="error">
            {backing.decision === null ? '' : `${backing.why} `}Shipping {winner} anyway is an override: say why (the audit log keeps it), and type the
            experiment id to confirm.
          </p>
          <label htmlFor="ship-reason">Reason for the override</label>
          <textarea id="ship-reason" rows={2} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
          <label htmlFor="ship-confirm-id">Type the experiment id ({experiment.experiment_id}) to confirm</label>
          <input id="ship-confirm-id" value={typedId} onChange={(e) => setTypedId(e.target.value)} autoComplete="off" />
        </div>
      )}
      <button
        type="button"
        disabled={pending || !ready}
        onClick={() => onConfirm(override ? { winner, ship: true, override: true, reason: reason.trim() } : { winner, ship: true })}
      >
        {override ? `Confirm: override and ship ${winner}` : `Confirm: stop and ship ${winner}`}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}
