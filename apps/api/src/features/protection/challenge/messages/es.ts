import type { Messages } from './types.ts';

export const es: Messages = {
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
