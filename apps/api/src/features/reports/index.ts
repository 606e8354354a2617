// The reports wing's public surface: the pieces alerts (features/alerts/) share with e-mail reports —
// the workspace's consent to mail an address, and signed one-click unsubscribe links.
export { bounded as boundedSiteName } from './confirm-mail.ts';
export { askToConfirm, type Confirmation, confirmationOf, confirmedJoin, recordAsk } from './confirmation.ts';
export { idOfUnsubscribeToken, unsubscribeToken } from './unsubscribe.ts';
