/**
 * "Take over": shown to an owner beside something a member who left had made (a shared link, an e-mail
 * report, an alert), which stopped with their leaving and works again in the owner's name once taken over.
 */
export function TakeOverButton(props: { shown: boolean; name: string; disabled: boolean; onClick: () => void }) {
  if (!props.shown) return null;
  return (
    <>
      <button
        type="button"
        className="button button-secondary button-small"
        aria-label={props.name}
        disabled={props.disabled}
        onClick={props.onClick}
      >
        Take over
      </button>{' '}
    </>
  );
}
