// tsconfig.json maps 'undici' to undici-lean.cjs, which has no types of its own: its
// exports are undici's, under the same names.
declare module 'undici' {
  export * from 'undici/index.js';
}
