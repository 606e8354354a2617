import type { Language } from './language.ts';

/**
 * Every sentence the check page and `/_us/pass` show, in each language we have. Plain text: the page
 * escapes it. `{host}` style values are passed in, never concatenated by the caller.
 */
export type RefusalKind =
  | 'badLink'
  | 'expired'
  | 'notVerified'
  | 'used'
  | 'tooMany'
  | 'unavailable'
  | 'needsScript'
  | 'automated'
  | 'passGone'
  | 'passBad';

export interface Messages {
  title: string;
  intro: (host: string) => string;
  privacy: (host: string) => string;
  starting: string;
  /** Shown by the page script; `%s` is replaced with the percentage. */
  working: string;
  progressLabel: string;
  statusLabel: string;
  done: string;
  stillWorking: string;
  continue: string;
  noscript: string;
  failed: string;
  stale: string;
  backTo: (host: string) => string;
  refusals: Record<RefusalKind, { title: string; text: string }>;
}

const en: Messages = {
  title: 'Checking your browser',
  intro: (host) =>
    `Before you continue to ${host}, your browser solves a short puzzle. This keeps automated traffic away from the site. It takes a few seconds and needs nothing from you.`,
  privacy: (host) =>
    `This page sets no cookies. When the check passes, ${host} sets one cookie that lets this browser through for a day.`,
  starting: 'The check starts by itself.',
  working: 'Working… %s %',
  progressLabel: 'Progress of the check',
  statusLabel: 'State of the check',
  done: 'Done. Taking you to the page…',
  stillWorking: 'Still working: one moment, please.',
  continue: 'Continue',
  noscript:
    'This check needs JavaScript. Turn JavaScript on for this page and load it again. If you cannot, ask the site’s owner for another way in.',
  failed: 'The check did not succeed. It runs again now; this time it may take a little longer.',
  stale: 'The check took too long. It runs again now.',
  backTo: (host) => `Back to ${host}`,
  refusals: {
    badLink: {
      title: 'This check cannot start',
      text: 'The link to this check is not valid. Go back to the page you wanted and load it again.',
    },
    expired: { title: 'This check has expired', text: 'A check is valid for ten minutes. Load the page you wanted again.' },
    notVerified: {
      title: 'This check cannot continue',
      text: 'The address this check would send you back to is not a verified address of the site, so we will not send you there.',
    },
    used: { title: 'This check was already used', text: 'Load the page you wanted again.' },
    tooMany: { title: 'Too many attempts', text: 'Wait a minute, then load the page you wanted again.' },
    unavailable: { title: 'The check is unavailable for a moment', text: 'Try again in a few seconds.' },
    needsScript: {
      title: 'This check needs JavaScript',
      text: 'Turn JavaScript on for this page and load the page you wanted again. If you cannot, ask the site’s owner for another way in.',
    },
    automated: {
      title: 'This browser is run by software',
      text: 'Your browser says it is controlled by automation software, so this check cannot let it through. Open the page you wanted in an ordinary browser window.',
    },
    passGone: {
      title: 'This link has expired',
      text: 'It worked for two minutes, and only once. Load the page you wanted again.',
    },
    passBad: { title: 'This link is not valid', text: 'Go back to the page you wanted and load it again.' },
  },
};

const de: Messages = {
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

const fr: Messages = {
  title: 'Vérification de votre navigateur',
  intro: (host) =>
    `Avant de continuer vers ${host}, votre navigateur résout un petit calcul. Cela tient le trafic automatisé à l’écart du site. Cela prend quelques secondes et ne vous demande rien.`,
  privacy: (host) =>
    `Cette page ne dépose aucun cookie. Une fois la vérification réussie, ${host} dépose un cookie qui laisse passer ce navigateur pendant une journée.`,
  starting: 'La vérification démarre toute seule.',
  working: 'Vérification en cours… %s %',
  progressLabel: 'Progression de la vérification',
  statusLabel: 'État de la vérification',
  done: 'Terminé. Redirection vers la page…',
  stillWorking: 'La vérification est encore en cours, un instant s’il vous plaît.',
  continue: 'Continuer',
  noscript:
    'Cette vérification a besoin de JavaScript. Activez JavaScript pour cette page, puis rechargez-la. Si vous ne le pouvez pas, demandez aux responsables du site un autre moyen d’accès.',
  failed: 'La vérification n’a pas abouti. Elle recommence maintenant et peut prendre un peu plus de temps.',
  stale: 'La vérification a pris trop de temps. Elle recommence maintenant.',
  backTo: (host) => `Retour à ${host}`,
  refusals: {
    badLink: {
      title: 'Cette vérification ne peut pas commencer',
      text: 'Le lien vers cette vérification n’est pas valide. Revenez à la page souhaitée et rechargez-la.',
    },
    expired: {
      title: 'Cette vérification a expiré',
      text: 'Une vérification est valable dix minutes. Rechargez la page souhaitée.',
    },
    notVerified: {
      title: 'Cette vérification ne peut pas continuer',
      text: 'L’adresse vers laquelle cette vérification vous renverrait n’est pas une adresse vérifiée du site : nous ne vous y envoyons donc pas.',
    },
    used: { title: 'Cette vérification a déjà été utilisée', text: 'Rechargez la page souhaitée.' },
    tooMany: { title: 'Trop de tentatives', text: 'Attendez une minute, puis rechargez la page souhaitée.' },
    unavailable: { title: 'La vérification est momentanément indisponible', text: 'Réessayez dans quelques secondes.' },
    needsScript: {
      title: 'Cette vérification a besoin de JavaScript',
      text: 'Activez JavaScript pour cette page, puis rechargez la page souhaitée. Si vous ne le pouvez pas, demandez aux responsables du site un autre moyen d’accès.',
    },
    automated: {
      title: 'Ce navigateur est piloté par un logiciel',
      text: 'Votre navigateur indique qu’il est piloté par un logiciel d’automatisation : cette vérification ne peut donc pas le laisser passer. Ouvrez la page souhaitée dans une fenêtre de navigateur ordinaire.',
    },
    passGone: {
      title: 'Ce lien a expiré',
      text: 'Il était valable deux minutes et une seule fois. Rechargez la page souhaitée.',
    },
    passBad: { title: 'Ce lien n’est pas valide', text: 'Revenez à la page souhaitée et rechargez-la.' },
  },
};

const es: Messages = {
  title: 'Comprobando su navegador',
  intro: (host) =>
    `Antes de continuar a ${host}, su navegador resuelve un pequeño cálculo. Así se mantiene el tráfico automatizado lejos del sitio. Tarda unos segundos y no tiene que hacer nada.`,
  privacy: (host) =>
    `Esta página no guarda cookies. Cuando se supera la comprobación, ${host} guarda una cookie que deja pasar a este navegador durante un día.`,
  starting: 'La comprobación empieza sola.',
  working: 'Comprobando… %s %',
  progressLabel: 'Progreso de la comprobación',
  statusLabel: 'Estado de la comprobación',
  done: 'Listo. Le llevamos a la página…',
  stillWorking: 'La comprobación sigue en marcha: un momento, por favor.',
  continue: 'Continuar',
  noscript:
    'Esta comprobación necesita JavaScript. Active JavaScript para esta página y vuelva a cargarla. Si no puede, pida a los responsables del sitio otra forma de acceso.',
  failed: 'La comprobación no se ha superado. Vuelve a empezar ahora y esta vez puede tardar un poco más.',
  stale: 'La comprobación ha tardado demasiado. Vuelve a empezar ahora.',
  backTo: (host) => `Volver a ${host}`,
  refusals: {
    badLink: {
      title: 'Esta comprobación no puede empezar',
      text: 'El enlace a esta comprobación no es válido. Vuelva a la página que quería y cárguela de nuevo.',
    },
    expired: {
      title: 'Esta comprobación ha caducado',
      text: 'Una comprobación vale diez minutos. Vuelva a cargar la página que quería.',
    },
    notVerified: {
      title: 'Esta comprobación no puede continuar',
      text: 'La dirección a la que esta comprobación le devolvería no es una dirección verificada del sitio, así que no le enviamos allí.',
    },
    used: { title: 'Esta comprobación ya se ha usado', text: 'Vuelva a cargar la página que quería.' },
    tooMany: { title: 'Demasiados intentos', text: 'Espere un minuto y vuelva a cargar la página que quería.' },
    unavailable: { title: 'La comprobación no está disponible en este momento', text: 'Inténtelo de nuevo en unos segundos.' },
    needsScript: {
      title: 'Esta comprobación necesita JavaScript',
      text: 'Active JavaScript para esta página y vuelva a cargar la página que quería. Si no puede, pida a los responsables del sitio otra forma de acceso.',
    },
    automated: {
      title: 'Este navegador está controlado por software',
      text: 'Su navegador indica que lo controla un software de automatización, así que esta comprobación no puede dejarlo pasar. Abra la página que quería en una ventana normal del navegador.',
    },
    passGone: {
      title: 'Este enlace ha caducado',
      text: 'Valía dos minutos y una sola vez. Vuelva a cargar la página que quería.',
    },
    passBad: { title: 'Este enlace no es válido', text: 'Vuelva a la página que quería y cárguela de nuevo.' },
  },
};

export const MESSAGES: Record<Language, Messages> = { en, de, fr, es };
