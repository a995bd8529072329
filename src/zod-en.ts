import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * zod/mini ships no messages (every issue reads "Invalid input"); classic zod installed
 * English on first use. The texts a person sees (the app config, the policy and keys
 * files, the kernel's 400 answers) keep zod's English wording, so each module whose
 * schema messages reach a person imports this once. `config` is global and idempotent.
 */
z.config(en());
