import type { Messages } from './types.ts';

export const fr: Messages = {
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
