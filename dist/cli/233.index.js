export const id = 233;
export const ids = [233];
export const modules = {

/***/ 3233:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  createOidcVerifier: () => (/* binding */ createOidcVerifier)
});

// UNUSED EXPORTS: ALLOWED_ALGS, GITHUB_ISSUER, JWKS_CACHE_MS, JWKS_MAX_STALE_MS, JWKS_MIN_REFRESH_MS, MAX_SKEW_S

// EXTERNAL MODULE: ./node_modules/jose/dist/webapi/lib/jws_algorithms.js + 1 modules
var jws_algorithms = __webpack_require__(8576);
// EXTERNAL MODULE: ./node_modules/jose/dist/webapi/util/errors.js
var errors = __webpack_require__(5674);
// EXTERNAL MODULE: ./node_modules/jose/dist/webapi/lib/buffer_utils.js
var buffer_utils = __webpack_require__(7410);
// EXTERNAL MODULE: ./node_modules/jose/dist/webapi/lib/validate.js
var validate = __webpack_require__(7784);
// EXTERNAL MODULE: ./node_modules/jose/dist/webapi/lib/key.js
var lib_key = __webpack_require__(7859);
;// CONCATENATED MODULE: ./node_modules/jose/dist/webapi/lib/jws_verify.js





function snapshotJws(jws, sharedPayload) {
  const encodedProtectedHeader = jws.protected, inputHeader = jws.header, header = isObject(inputHeader) ? { ...inputHeader } : inputHeader;
  let payload = sharedPayload ? sharedPayload[0] : jws.payload;
  !sharedPayload && payload instanceof Uint8Array && (payload = new Uint8Array(payload));
  const signature = jws.signature, snapshot = { payload, signature };
  if (encodedProtectedHeader !== void 0 && (snapshot.protected = encodedProtectedHeader), inputHeader !== void 0 && (snapshot.header = header), encodedProtectedHeader === void 0 && header === void 0)
    throw new JWSInvalid('Flattened JWS must have either of the "protected" or "header" members');
  if (encodedProtectedHeader !== void 0 && typeof encodedProtectedHeader != "string")
    throw new JWSInvalid("JWS Protected Header incorrect type");
  if (payload === void 0)
    throw new JWSInvalid("JWS Payload missing");
  if (typeof signature != "string")
    throw new JWSInvalid("JWS Signature missing or incorrect type");
  if (header !== void 0 && !isObject(header))
    throw new JWSInvalid("JWS Unprotected Header incorrect type");
  return snapshot;
}
function prepareVerify(options) {
  return [options && (0,validate/* validateAlgorithms */.Fw)("algorithms", options.algorithms), options?.crit];
}
function parseProtectedHeader(encodedProtectedHeader) {
  return encodedProtectedHeader === void 0 ? {} : (0,validate/* parseJoseHeader */.OX)(encodedProtectedHeader, errors/* JWSInvalid */.Ye, "JWS Protected Header is invalid");
}
function encodeJsonUnencodedPayload(payload) {
  const invalid = /[\p{Cs}\p{Cn}]/u.exec(payload)?.[0];
  if (invalid !== void 0)
    throw new JWSInvalid(/\p{Cs}/u.test(invalid) ? "JWS Payload must be a well-formed Unicode string" : "JWS Payload must not contain unassigned Unicode code points");
  return encoder.encode(payload);
}
function encodeCompactUnencodedPayload(payload) {
  try {
    return (0,buffer_utils/* encode */.lF)(payload);
  } catch (cause) {
    throw new errors/* JWSInvalid */.Ye("JWS Compact Serialization payload must use only ASCII characters", {
      cause
    });
  }
}
async function verifySignature(jws, shared, key, encodeUnencodedPayload, parsedProtected) {
  const { protected: encodedProtectedHeader, header, payload: inputPayload } = jws, protectedHeader = parsedProtected ?? parseProtectedHeader(encodedProtectedHeader);
  if (!(0,validate/* isDisjoint */.fz)(protectedHeader, header))
    throw new errors/* JWSInvalid */.Ye("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
  const joseHeader = { ...protectedHeader, ...header }, b64 = (0,validate/* validateB64 */.J0)(protectedHeader, (0,validate/* validateCrit */.nI)(errors/* JWSInvalid */.Ye, validate/* JWS_RECOGNIZED */.qc, shared[1], protectedHeader, joseHeader)), { alg } = joseHeader;
  if (typeof alg != "string" || !alg)
    throw new errors/* JWSInvalid */.Ye('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (shared[0] && !shared[0].has(alg))
    throw new errors/* JOSEAlgNotAllowed */.Rb('"alg" (Algorithm) Header Parameter value not allowed');
  if (b64) {
    if (typeof inputPayload != "string")
      throw new errors/* JWSInvalid */.Ye("JWS Payload must be a string");
  } else if (typeof inputPayload != "string" && !(inputPayload instanceof Uint8Array))
    throw new errors/* JWSInvalid */.Ye("JWS Payload must be a string or an Uint8Array instance");
  const signingPayload = b64 || typeof inputPayload != "string" ? inputPayload : encodeUnencodedPayload(inputPayload);
  let resolvedKey = !1;
  typeof key == "function" && (key = await key(protectedHeader, jws), resolvedKey = !0);
  const entry = (0,jws_algorithms/* jwsAlgorithm */.q)(alg), signingInput = (0,buffer_utils/* concat */.xW)(encodedProtectedHeader !== void 0 ? (0,buffer_utils/* encode */.lF)(encodedProtectedHeader) : new Uint8Array(), (0,buffer_utils/* encode */.lF)("."), typeof signingPayload == "string" ? shared[2] ??= (0,validate/* encodeAsciiMember */.MV)(signingPayload, "payload", errors/* JWSInvalid */.Ye) : signingPayload), signature = (0,validate/* decodeBase64url */.h2)(jws.signature, "signature", errors/* JWSInvalid */.Ye), verificationKey = await (0,lib_key/* prepareKey */.dT)(entry, key, "verify"), cryptoKey = await (0,lib_key/* rawKey */.GK)(verificationKey, entry.subtle, "verify");
  entry.minRsaBits && (0,lib_key/* checkModulusLength */.or)(entry.alg, cryptoKey);
  let verified = !1;
  try {
    verified = await crypto.subtle.verify(entry.signing, cryptoKey, signature, signingInput);
  } catch (cause) {
    throw new errors/* JWSSignatureVerificationFailed */.h2(void 0, { cause });
  }
  if (!verified)
    throw new errors/* JWSSignatureVerificationFailed */.h2();
  const result = { payload: typeof signingPayload == "string" ? (0,validate/* decodeBase64url */.h2)(signingPayload, "payload", errors/* JWSInvalid */.Ye) : signingPayload };
  return encodedProtectedHeader !== void 0 && (result.protectedHeader = protectedHeader), header !== void 0 && (result.unprotectedHeader = header), resolvedKey ? [{ ...result, key: verificationKey }, b64] : [result, b64];
}
async function verifyCompact(jws, shared, key) {
  if (jws instanceof Uint8Array && (jws = buffer_utils/* decoder */.D0.decode(jws)), typeof jws != "string")
    throw new errors/* JWSInvalid */.Ye("Compact JWS must be a string or Uint8Array");
  const { 0: protectedHeader, 1: payload, 2: signature, length } = jws.split(".");
  if (length !== 3)
    throw new errors/* JWSInvalid */.Ye("Invalid Compact JWS");
  return verifySignature({ payload, protected: protectedHeader, signature }, shared, key, encodeCompactUnencodedPayload);
}


;// CONCATENATED MODULE: ./node_modules/jose/dist/webapi/lib/jwt_claims_set.js



const epoch = (date) => Math.floor(date.getTime() / 1e3), multipliers = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  y: 31557600
}, REGEX = /^(\+|\-)? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i, checkFailed = "check_failed";
function invalidDuration() {
  throw new TypeError("Invalid time period format");
}
function secs(str) {
  typeof str != "string" && invalidDuration();
  const matched = REGEX.exec(str);
  (!matched || matched[4] && matched[1]) && invalidDuration();
  const value = parseFloat(matched[2]), durationSeconds = Math.round(value * multipliers[matched[3][0].toLowerCase()]);
  return Number.isFinite(durationSeconds) || invalidDuration(), matched[1] === "-" || matched[4]?.toLowerCase() === "ago" ? -durationSeconds : durationSeconds;
}
function validateInput(label, input) {
  if (!Number.isFinite(input))
    throw new TypeError(`Invalid ${label} input`);
  return input;
}
function validateStringClaim(claim, value) {
  if (typeof value != "string")
    throw new TypeError(`"${claim}" claim must be a string`);
}
function validateAudienceClaim(value) {
  if (typeof value != "string" && (!Array.isArray(value) || Array.from(value).some((member) => typeof member != "string")))
    throw new TypeError('"aud" claim must be a string or an array of strings');
}
function numericDate(value, label) {
  return typeof value == "number" ? validateInput(label, value) : value instanceof Date ? validateInput(label, epoch(value)) : epoch(/* @__PURE__ */ new Date()) + secs(value);
}
const normalizeTyp = (value) => {
  const normalized = value.toLowerCase();
  return value.includes("/") ? normalized : `application/${normalized}`;
}, checkAudiencePresence = (audPayload, audOption) => typeof audPayload == "string" ? audOption.includes(audPayload) : Array.isArray(audPayload) ? audOption.some((aud) => audPayload.includes(aud)) : !1;
function validateNumericDate(claimsSet, claim, required = !1) {
  const value = claimsSet[claim];
  if (!(value === void 0 && !required)) {
    if (typeof value != "number")
      throw new errors/* JWTClaimValidationFailed */.ie(`"${claim}" claim must be a number`, claimsSet, claim, "invalid");
    return value;
  }
}
function unexpectedClaim(claimsSet, claim) {
  throw new errors/* JWTClaimValidationFailed */.ie(`unexpected "${claim}" claim value`, claimsSet, claim, checkFailed);
}
function validateClaimsSet(protectedHeader, claimsSetBytes, options = {}) {
  let claimsSet;
  try {
    claimsSet = JSON.parse(buffer_utils/* strictDecoder */.u8.decode(claimsSetBytes));
  } catch (cause) {
    throw new errors/* JWTInvalid */.Dp("JWT Claims Set must be a top-level JSON object", { cause });
  }
  if (!(0,validate/* isObject */.Gv)(claimsSet))
    throw new errors/* JWTInvalid */.Dp("JWT Claims Set must be a top-level JSON object");
  const { typ } = options;
  if (typ !== void 0 && (typeof protectedHeader.typ != "string" || normalizeTyp(protectedHeader.typ) !== normalizeTyp(typ)))
    throw new errors/* JWTClaimValidationFailed */.ie('unexpected "typ" JWT header value', claimsSet, "typ", checkFailed);
  const { requiredClaims = [], issuer, subject, audience, maxTokenAge } = options, presenceCheck = [...requiredClaims];
  maxTokenAge !== void 0 && presenceCheck.push("iat"), audience !== void 0 && presenceCheck.push("aud"), subject !== void 0 && presenceCheck.push("sub"), issuer !== void 0 && presenceCheck.push("iss");
  for (const claim of new Set(presenceCheck.reverse()))
    if (!Object.hasOwn(claimsSet, claim))
      throw new errors/* JWTClaimValidationFailed */.ie(`missing required "${claim}" claim`, claimsSet, claim, "missing");
  issuer !== void 0 && !(Array.isArray(issuer) ? issuer : [issuer]).includes(claimsSet.iss) && unexpectedClaim(claimsSet, "iss"), subject !== void 0 && claimsSet.sub !== subject && unexpectedClaim(claimsSet, "sub"), audience !== void 0 && !checkAudiencePresence(claimsSet.aud, typeof audience == "string" ? [audience] : audience) && unexpectedClaim(claimsSet, "aud");
  const { clockTolerance } = options;
  let tolerance = 0;
  if (typeof clockTolerance == "string")
    tolerance = secs(clockTolerance);
  else if (clockTolerance !== void 0) {
    if (typeof clockTolerance != "number")
      throw new TypeError("Invalid clockTolerance option type");
    tolerance = clockTolerance;
  }
  if (validateInput("clockTolerance option", tolerance), tolerance < 0)
    throw new TypeError("Invalid clockTolerance option input");
  const { currentDate } = options, now = validateInput("currentDate option", epoch(currentDate === void 0 ? /* @__PURE__ */ new Date() : currentDate)), iat = validateNumericDate(claimsSet, "iat", maxTokenAge !== void 0), nbf = validateNumericDate(claimsSet, "nbf");
  if (nbf !== void 0 && nbf > now + tolerance)
    throw new errors/* JWTClaimValidationFailed */.ie('"nbf" claim timestamp check failed', claimsSet, "nbf", checkFailed);
  const exp = validateNumericDate(claimsSet, "exp");
  if (exp !== void 0 && exp <= now - tolerance)
    throw new errors/* JWTExpired */.n('"exp" claim timestamp check failed', claimsSet, "exp", checkFailed);
  if (maxTokenAge !== void 0) {
    const age = now - iat, max = validateInput("maxTokenAge option", typeof maxTokenAge == "number" ? maxTokenAge : secs(maxTokenAge));
    if (max < 0)
      throw new TypeError("Invalid maxTokenAge option input");
    if (age - tolerance > max)
      throw new errors/* JWTExpired */.n('"iat" claim timestamp check failed (too far in the past)', claimsSet, "iat", checkFailed);
    if (age < -tolerance)
      throw new errors/* JWTClaimValidationFailed */.ie('"iat" claim timestamp check failed (it should be in the past)', claimsSet, "iat", checkFailed);
  }
  return claimsSet;
}
let producerClaimsSets;
function producerClaimsSet(producer) {
  return producerClaimsSets.get(producer);
}
function jwtClaimsSetBytes(producer) {
  const claimsSet = producerClaimsSet(producer);
  for (const claim of ["iat", "nbf", "exp"]) {
    const value = claimsSet[claim];
    if (typeof value == "number" && !Number.isFinite(value))
      throw new TypeError(`"${claim}" claim must be a finite number`);
  }
  return encoder.encode(JSON.stringify(claimsSet));
}
function jwtClaim(producer, claim) {
  return producerClaimsSet(producer)[claim];
}
class JWTClaimsBuilder {
  constructor(claimsSet = {}) {
    if (!isObject(claimsSet))
      throw new TypeError("JWT Claims Set MUST be an object");
    (producerClaimsSets ||= /* @__PURE__ */ new WeakMap()).set(this, structuredClone(claimsSet));
  }
  setIssuer(value) {
    return validateStringClaim("iss", value), producerClaimsSet(this).iss = value, this;
  }
  setSubject(value) {
    return validateStringClaim("sub", value), producerClaimsSet(this).sub = value, this;
  }
  setAudience(value) {
    return validateAudienceClaim(value), producerClaimsSet(this).aud = value, this;
  }
  setJti(value) {
    return validateStringClaim("jti", value), producerClaimsSet(this).jti = value, this;
  }
  setNotBefore(value) {
    return producerClaimsSet(this).nbf = numericDate(value, "setNotBefore"), this;
  }
  setExpirationTime(value) {
    return producerClaimsSet(this).exp = numericDate(value, "setExpirationTime"), this;
  }
  setIssuedAt(value) {
    const claimsSet = producerClaimsSet(this);
    return value === void 0 ? claimsSet.iat = epoch(/* @__PURE__ */ new Date()) : typeof value == "string" ? claimsSet.iat = validateInput("setIssuedAt", epoch(/* @__PURE__ */ new Date()) + secs(value)) : claimsSet.iat = numericDate(value, "setIssuedAt"), this;
  }
}


;// CONCATENATED MODULE: ./node_modules/jose/dist/webapi/jwt/verify.js



async function jwtVerify(jwt, key, options) {
  const [verified, b64] = await verifyCompact(jwt, prepareVerify(options), key);
  if (!b64)
    throw new errors/* JWTInvalid */.Dp("JWTs MUST NOT use unencoded payload");
  const payload = validateClaimsSet(verified.protectedHeader, verified.payload, options);
  return { ...verified, payload };
}


// EXTERNAL MODULE: ./src/kernel/auth/oidc-keys.ts
var oidc_keys = __webpack_require__(9396);
// EXTERNAL MODULE: ./src/kernel/auth/refusal.ts
var refusal = __webpack_require__(2528);
;// CONCATENATED MODULE: ./src/kernel/auth/oidc.ts




/**
 * Verifies OIDC ID tokens (GitHub Actions' by default) against the issuer's
 * published keys: discovery document, then JWKS, both fetched through our one
 * HTTP client (https only, plain http only for a loopback issuer). The keys are
 * fetched again every `cacheMs` (5 min; oidc-keys.ts), so a key the issuer dropped stops
 * verifying new tokens within that, and on an unknown `kid`; never two
 * attempts within `minRefreshMs`, failed ones included, so an issuer that is
 * down costs one fetch per bound, not one per request. jose does the JOSE
 * work: signature, `alg` allow-list, `iss`, `aud`, `exp`, `nbf`, `iat`.
 */
const GITHUB_ISSUER = (/* unused pure expression or super */ null && (GITHUB_ISSUER_URL));
/** Asymmetric signatures only: no `none`, no HMAC (a shared secret would let anyone with it mint tokens). */
const ALLOWED_ALGS = [
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'EdDSA',
];
/** Clock skew tolerated on `exp`, `nbf`, `iat`. */
const MAX_SKEW_S = 60;
/** The oldest `iat` accepted (GitHub's tokens last minutes; this only bounds a replayed one). */
const MAX_TOKEN_AGE_S = 6 * 3_600;
/**
 * Keys are fetched again after this even without an unknown kid: the longest a key
 * dropped from the JWKS still verifies new tokens while the issuer answers.
 */
const JWKS_CACHE_MS = 300_000;
/**
 * While the issuer cannot be reached, the keys last fetched stay in use this long
 * after that fetch, then nothing verifies (503) until a fetch succeeds: an outage of
 * the issuer must not keep a dropped key alive for ever.
 */
const JWKS_MAX_STALE_MS = 3_600_000;
/** The least time between two attempts to fetch the keys, by default. */
const JWKS_MIN_REFRESH_MS = 10_000;
/**
 * Tokens already verified, kept until their `exp`: a keeper renews with the same token
 * every few seconds, and a signature check costs ~0.25 ms of CPU. Bounded; the oldest go first.
 */
const VERIFIED_TOKENS = 1_024;
function createOidcVerifier(options) {
    const issuer = options.issuer.replace(/\/+$/, '');
    (0,oidc_keys/* checkIssuerUrl */.nt)(issuer);
    const now = options.now ?? Date.now;
    const cacheMs = options.cacheMs ?? JWKS_CACHE_MS;
    const skewS = Math.min(options.skewS ?? MAX_SKEW_S, MAX_SKEW_S);
    const keys = new oidc_keys/* IssuerKeys */.uF(issuer, {
        http: options.http,
        now,
        minRefreshMs: options.minRefreshMs ?? JWKS_MIN_REFRESH_MS,
        cacheMs,
        maxStaleMs: Math.max(options.maxStaleMs ?? JWKS_MAX_STALE_MS, cacheMs),
    });
    const verified = new Map();
    /**
     * What jose asks for the key with, once it has read the header and checked its `alg`:
     * a token that is not even a JWS of an allowed algorithm never makes the kernel fetch.
     */
    const lookUp = async (header, token) => (await keys.keySet())(header, token);
    async function verifyOnce(token) {
        const { payload } = await jwtVerify(token, lookUp, {
            issuer,
            audience: options.audience,
            algorithms: [...ALLOWED_ALGS],
            clockTolerance: skewS,
            maxTokenAge: MAX_TOKEN_AGE_S,
            requiredClaims: ['exp', 'iat'],
            currentDate: new Date(now()),
        });
        return payload;
    }
    async function verifyUncached(token) {
        try {
            try {
                return await verifyOnce(token);
            }
            catch (error) {
                // A key we do not know yet: the issuer may have rotated. Fetch again, rate-bounded.
                if (!(error instanceof errors/* JWKSNoMatchingKey */.BT) || !keys.mayRefresh)
                    throw error;
                await keys.refresh();
                if (keys.lastError !== undefined)
                    throw (0,oidc_keys/* unavailable */.hU)(keys.lastError);
                return await verifyOnce(token);
            }
        }
        catch (error) {
            if (error instanceof refusal/* AuthRefusal */.N)
                throw error;
            throw new refusal/* AuthRefusal */.N(`The OIDC token was refused: ${why(error)}.`, {
                status: 401,
                reason: 'unauthorized',
                cause: error,
            });
        }
    }
    return {
        issuer,
        async verify(token) {
            const known = verified.get(token);
            // The time claims still decide on every use; only the signature check is not repeated.
            if (known &&
                (known.exp ?? 0) + skewS > now() / 1000 &&
                (known.nbf ?? 0) - skewS <= now() / 1000) {
                return known;
            }
            if (known)
                verified.delete(token);
            const claims = await verifyUncached(token);
            if (verified.size >= VERIFIED_TOKENS)
                verified.delete(verified.keys().next().value);
            verified.set(token, claims);
            return claims;
        },
    };
}
/** jose's reasons in words a caller can act on; never the token itself. */
function why(error) {
    if (error instanceof errors/* JWTExpired */.n)
        return 'it has expired';
    if (error instanceof errors/* JWTClaimValidationFailed */.ie) {
        return `its "${error.claim}" claim is not accepted (${error.reason === 'missing' ? 'missing' : error.message})`;
    }
    if (error instanceof errors/* JOSEAlgNotAllowed */.Rb)
        return `its algorithm is not one of ${ALLOWED_ALGS.join(', ')}`;
    if (error instanceof errors/* JWKSNoMatchingKey */.BT)
        return "it is signed with a key the issuer doesn't publish";
    if (error instanceof errors/* JWSSignatureVerificationFailed */.h2)
        return 'its signature does not verify';
    if (error instanceof errors/* JOSEError */.i4)
        return `it is not a valid JWT (${error.code})`;
    return 'it is not a valid JWT';
}


/***/ })

};

//# sourceMappingURL=233.index.js.map