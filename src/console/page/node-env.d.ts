// src/action/did.ts (whose runUrlFromDid the console uses) names NodeJS.ProcessEnv in a
// function the page never calls; the page is typed without Node's globals, so name it here.
declare namespace NodeJS {
  type ProcessEnv = Record<string, string | undefined>;
}
