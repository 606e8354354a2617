import { useEffect, useRef, useState } from 'react';
import { useReadOnly } from './ReadOnly.tsx';

interface ConfirmButtonProps {
  /** Visible text of the first button ("Delete"). */
  label: string;
  /** Its accessible name when the text alone is ambiguous in a list ("Delete shop.example.com", "Remove ada@example.com"). */
  name?: string;
  /** What will happen, asked before doing it. */
  question: string;
  confirmLabel: string;
  busy: boolean;
  busyLabel?: string;
  disabled?: boolean;
  onConfirm: () => void;
}

/** A destructive button that asks first: the question and a confirm button replace it in place. None where nothing may change (`ReadOnly`). */
export function ConfirmButton(props: ConfirmButtonProps) {
  const { label, name, question, confirmLabel, busy, busyLabel = 'Working…', disabled, onConfirm } = props;
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  const readOnly = useReadOnly();

  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (wasAsking.current) first.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (readOnly) return null;
  if (!asking) {
    return (
      <button
        ref={first}
        type="button"
        className="button button-secondary button-small"
        aria-label={name}
        onClick={() => setAsking(true)}
        disabled={busy || disabled}
      >
        {busy ? busyLabel : label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <span className="confirm-question">{question}</span>
      <span className="confirm-buttons">
        <button
          ref={confirm}
          type="button"
          className="button button-danger button-small"
          onClick={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" className="button button-link" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </span>
    </span>
  );
}
