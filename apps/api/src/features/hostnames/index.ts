// The hostnames wing's public surface: what other wings may use (the layering lint holds them to this file).
export { parseDnsServers } from './dns.ts';
export { INGRESS_LIVE } from './go-live.ts';
export { hostnameInput, releaseEdgeHostnames } from './hostnames.ts';
export { type IngressJobSetup, runIngressChecks } from './ingress-job.ts';
export { isLiveProxy, LOOKUP_REFUSED, type ProxyRoute, type ProxyRoutes, proxyRoutes } from './proxy-route.ts';
export { byCreation, hostnameRecord } from './record.ts';
export { TLS_ASK_PATH, tlsAskHandler } from './tls-ask.ts';
export { newVerifyToken, verificationName, verificationValue } from './view.ts';
