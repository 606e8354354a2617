import type { Messages } from './types.ts';

export const de: Messages = {
  title: 'Ihr Browser wird geprüft',
  intro: (host) =>
    `Bevor es weiter zu ${host} geht, löst Ihr Browser eine kurze Rechenaufgabe. Das hält automatisierte Zugriffe von der Website fern. Es dauert wenige Sekunden, Sie müssen nichts tun.`,
  privacy: (host) =>
    `Diese Seite setzt keine Cookies. Ist die Prüfung bestanden, setzt ${host} ein Cookie, mit dem dieser Browser einen Tag lang durchgelassen wird.`,
  starting: 'Die Prüfung beginnt von selbst.',
  working: 'Wird geprüft … %s %',
  progressLabel: 'Fortschritt der Prüfung',
  statusLabel: 'Stand der Prüfung',
  done: 'Fertig. Sie werden zur Seite weitergeleitet …',
  stillWorking: 'Die Prüfung läuft noch, bitte einen Moment.',
  continue: 'Weiter',
  noscript:
    'Diese Prüfung braucht JavaScript. Schalten Sie JavaScript für diese Seite ein und laden Sie sie neu. Wenn das nicht geht, bitten Sie die Betreiber der Website um einen anderen Zugang.',
  failed: 'Die Prüfung ist nicht gelungen. Sie läuft jetzt noch einmal und kann diesmal etwas länger dauern.',
  stale: 'Die Prüfung hat zu lange gedauert. Sie läuft jetzt noch einmal.',
  backTo: (host) => `Zurück zu ${host}`,
  refusals: {
    badLink: {
      title: 'Diese Prüfung kann nicht beginnen',
      text: 'Der Link zu dieser Prüfung ist ungültig. Gehen Sie zurück zur gewünschten Seite und laden Sie sie neu.',
    },
    expired: {
      title: 'Diese Prüfung ist abgelaufen',
      text: 'Eine Prüfung gilt zehn Minuten. Laden Sie die gewünschte Seite neu.',
    },
    notVerified: {
      title: 'Diese Prüfung kann nicht fortgesetzt werden',
      text: 'Die Adresse, zu der diese Prüfung zurückführen würde, ist keine bestätigte Adresse der Website. Deshalb leiten wir Sie nicht dorthin.',
    },
    used: { title: 'Diese Prüfung wurde schon verwendet', text: 'Laden Sie die gewünschte Seite neu.' },
    tooMany: { title: 'Zu viele Versuche', text: 'Warten Sie eine Minute und laden Sie dann die gewünschte Seite neu.' },
    unavailable: { title: 'Die Prüfung ist gerade nicht erreichbar', text: 'Versuchen Sie es in ein paar Sekunden noch einmal.' },
    needsScript: {
      title: 'Diese Prüfung braucht JavaScript',
      text: 'Schalten Sie JavaScript für diese Seite ein und laden Sie die gewünschte Seite neu. Wenn das nicht geht, bitten Sie die Betreiber der Website um einen anderen Zugang.',
    },
    automated: {
      title: 'Dieser Browser wird von Software gesteuert',
      text: 'Ihr Browser meldet, dass er von Automatisierungssoftware gesteuert wird. Deshalb kann diese Prüfung ihn nicht durchlassen. Öffnen Sie die gewünschte Seite in einem gewöhnlichen Browserfenster.',
    },
    passGone: {
      title: 'Dieser Link ist abgelaufen',
      text: 'Er galt zwei Minuten und nur einmal. Laden Sie die gewünschte Seite neu.',
    },
    passBad: { title: 'Dieser Link ist ungültig', text: 'Gehen Sie zurück zur gewünschten Seite und laden Sie sie neu.' },
  },
};
