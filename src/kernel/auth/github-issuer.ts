/** GitHub Actions' issuer: its own module, so what names it need not load jose (oidc.ts). */
export const GITHUB_ISSUER_URL = 'https://token.actions.githubusercontent.com';
