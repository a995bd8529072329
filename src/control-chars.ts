/**
 * Control characters, once, for every layer that keeps them out of a line of text: the
 * plane's clipped texts and deploy fields, the kernel's reasons and notifications, the
 * action's outputs, the session's log lines and a shown URL.
 *
 * Here, beside errors.ts, and not in plane/: src/http/ (url-display.ts) sits below plane/ and
 * may import nothing of ours but top-level modules like this one, and every other user may
 * import it too. No imports and no node: APIs, so the console page may bundle it.
 */

/** C0 controls and DEL, as a character class's ranges (a line break, ESC, NUL, …). */
const CONTROL_RANGES = '\\u0000-\\u001f\\u007f';

/** Whether a text holds a control character (`.test`: not global, so it keeps no lastIndex). */
export const CONTROL_CHAR = new RegExp(`[${CONTROL_RANGES}]`);

/** Every control character of a text, for `.replace`. */
export const CONTROL_CHARS = new RegExp(`[${CONTROL_RANGES}]`, 'g');

/** A whole text of `min` to `max` characters (no bound: any length), none a control character. */
export const controlFree = (min = 0, max?: number) =>
  new RegExp(`^[^${CONTROL_RANGES}]{${min},${max ?? ''}}$`);

/**
 * What a terminal or the runner must not be handed raw, for text escaped rather than
 * replaced (lease/escape.ts): C0 controls but tab and line feed (those are escaped first,
 * by the runner's own rule), DEL and the C1 controls (a terminal reads 0x9b as CSI), and
 * the Unicode line and paragraph separators (a line break to some readers).
 */
export const TERMINAL_CONTROL_CHARS =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
