/** An endpoint's state: enabled (events are queued for it) or disabled. */
export function StateChip({ enabled }: { enabled: boolean }) {
  return <span className={`status ${enabled ? 'state-enabled' : 'state-disabled'}`}>{enabled ? 'enabled' : 'disabled'}</span>;
}
