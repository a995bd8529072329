const require_kernel_command = require("./kernel-command-DtAmYtw2.js");
// node_modules/jose/dist/webapi/lib/jws_verify.js
function prepareVerify(options) {
	return [options && require_kernel_command.validateAlgorithms("algorithms", options.algorithms), options?.crit];
}
function parseProtectedHeader(encodedProtectedHeader) {
	return encodedProtectedHeader === void 0 ? {} : require_kernel_command.parseJoseHeader(encodedProtectedHeader, require_kernel_command.JWSInvalid, "JWS Protected Header is invalid");
}
function encodeCompactUnencodedPayload(payload) {
	try {
		return require_kernel_command.encode(payload);
	} catch (cause) {
		throw new require_kernel_command.JWSInvalid("JWS Compact Serialization payload must use only ASCII characters", { cause });
	}
}
async function verifySignature(jws, shared, key, encodeUnencodedPayload, parsedProtected) {
	const { protected: encodedProtectedHeader, header, payload: inputPayload } = jws, protectedHeader = parsedProtected ?? parseProtectedHeader(encodedProtectedHeader);
	if (!require_kernel_command.isDisjoint(protectedHeader, header)) throw new require_kernel_command.JWSInvalid("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
	const joseHeader = {
		...protectedHeader,
		...header
	}, b64 = require_kernel_command.validateB64(protectedHeader, require_kernel_command.validateCrit(require_kernel_command.JWSInvalid, require_kernel_command.JWS_RECOGNIZED, shared[1], protectedHeader, joseHeader)), { alg } = joseHeader;
	if (typeof alg != "string" || !alg) throw new require_kernel_command.JWSInvalid("JWS \"alg\" (Algorithm) Header Parameter missing or invalid");
	if (shared[0] && !shared[0].has(alg)) throw new require_kernel_command.JOSEAlgNotAllowed("\"alg\" (Algorithm) Header Parameter value not allowed");
	if (b64) {
		if (typeof inputPayload != "string") throw new require_kernel_command.JWSInvalid("JWS Payload must be a string");
	} else if (typeof inputPayload != "string" && !(inputPayload instanceof Uint8Array)) throw new require_kernel_command.JWSInvalid("JWS Payload must be a string or an Uint8Array instance");
	const signingPayload = b64 || typeof inputPayload != "string" ? inputPayload : encodeUnencodedPayload(inputPayload);
	let resolvedKey = !1;
	typeof key == "function" && (key = await key(protectedHeader, jws), resolvedKey = !0);
	const entry = require_kernel_command.jwsAlgorithm(alg), signingInput = require_kernel_command.concat(encodedProtectedHeader !== void 0 ? require_kernel_command.encode(encodedProtectedHeader) : /* @__PURE__ */ new Uint8Array(), require_kernel_command.encode("."), typeof signingPayload == "string" ? shared[2] ??= require_kernel_command.encodeAsciiMember(signingPayload, "payload", require_kernel_command.JWSInvalid) : signingPayload), signature = require_kernel_command.decodeBase64url(jws.signature, "signature", require_kernel_command.JWSInvalid), verificationKey = await require_kernel_command.prepareKey(entry, key, "verify"), cryptoKey = await require_kernel_command.rawKey(verificationKey, entry.subtle, "verify");
	entry.minRsaBits && require_kernel_command.checkModulusLength(entry.alg, cryptoKey);
	let verified = !1;
	try {
		verified = await crypto.subtle.verify(entry.signing, cryptoKey, signature, signingInput);
	} catch (cause) {
		throw new require_kernel_command.JWSSignatureVerificationFailed(void 0, { cause });
	}
	if (!verified) throw new require_kernel_command.JWSSignatureVerificationFailed();
	const result = { payload: typeof signingPayload == "string" ? require_kernel_command.decodeBase64url(signingPayload, "payload", require_kernel_command.JWSInvalid) : signingPayload };
	return encodedProtectedHeader !== void 0 && (result.protectedHeader = protectedHeader), header !== void 0 && (result.unprotectedHeader = header), resolvedKey ? [{
		...result,
		key: verificationKey
	}, b64] : [result, b64];
}
async function verifyCompact(jws, shared, key) {
	if (jws instanceof Uint8Array && (jws = require_kernel_command.decoder.decode(jws)), typeof jws != "string") throw new require_kernel_command.JWSInvalid("Compact JWS must be a string or Uint8Array");
	const { 0: protectedHeader, 1: payload, 2: signature, length } = jws.split(".");
	if (length !== 3) throw new require_kernel_command.JWSInvalid("Invalid Compact JWS");
	return verifySignature({
		payload,
		protected: protectedHeader,
		signature
	}, shared, key, encodeCompactUnencodedPayload);
}
// node_modules/jose/dist/webapi/lib/jwt_claims_set.js
const epoch = (date) => Math.floor(date.getTime() / 1e3);
const multipliers = {
	s: 1,
	m: 60,
	h: 3600,
	d: 86400,
	w: 604800,
	y: 31557600
};
const REGEX = /^(\+|\-)? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i;
const checkFailed = "check_failed";
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
	if (!Number.isFinite(input)) throw new TypeError(`Invalid ${label} input`);
	return input;
}
const normalizeTyp = (value) => {
	const normalized = value.toLowerCase();
	return value.includes("/") ? normalized : `application/${normalized}`;
};
const checkAudiencePresence = (audPayload, audOption) => typeof audPayload == "string" ? audOption.includes(audPayload) : Array.isArray(audPayload) ? audOption.some((aud) => audPayload.includes(aud)) : !1;
function validateNumericDate(claimsSet, claim, required = !1) {
	const value = claimsSet[claim];
	if (!(value === void 0 && !required)) {
		if (typeof value != "number") throw new require_kernel_command.JWTClaimValidationFailed(`"${claim}" claim must be a number`, claimsSet, claim, "invalid");
		return value;
	}
}
function unexpectedClaim(claimsSet, claim) {
	throw new require_kernel_command.JWTClaimValidationFailed(`unexpected "${claim}" claim value`, claimsSet, claim, checkFailed);
}
function validateClaimsSet(protectedHeader, claimsSetBytes, options = {}) {
	let claimsSet;
	try {
		claimsSet = JSON.parse(require_kernel_command.strictDecoder.decode(claimsSetBytes));
	} catch (cause) {
		throw new require_kernel_command.JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause });
	}
	if (!require_kernel_command.isObject(claimsSet)) throw new require_kernel_command.JWTInvalid("JWT Claims Set must be a top-level JSON object");
	const { typ } = options;
	if (typ !== void 0 && (typeof protectedHeader.typ != "string" || normalizeTyp(protectedHeader.typ) !== normalizeTyp(typ))) throw new require_kernel_command.JWTClaimValidationFailed("unexpected \"typ\" JWT header value", claimsSet, "typ", checkFailed);
	const { requiredClaims = [], issuer, subject, audience, maxTokenAge } = options, presenceCheck = [...requiredClaims];
	maxTokenAge !== void 0 && presenceCheck.push("iat"), audience !== void 0 && presenceCheck.push("aud"), subject !== void 0 && presenceCheck.push("sub"), issuer !== void 0 && presenceCheck.push("iss");
	for (const claim of new Set(presenceCheck.reverse())) if (!Object.hasOwn(claimsSet, claim)) throw new require_kernel_command.JWTClaimValidationFailed(`missing required "${claim}" claim`, claimsSet, claim, "missing");
	issuer !== void 0 && !(Array.isArray(issuer) ? issuer : [issuer]).includes(claimsSet.iss) && unexpectedClaim(claimsSet, "iss"), subject !== void 0 && claimsSet.sub !== subject && unexpectedClaim(claimsSet, "sub"), audience !== void 0 && !checkAudiencePresence(claimsSet.aud, typeof audience == "string" ? [audience] : audience) && unexpectedClaim(claimsSet, "aud");
	const { clockTolerance } = options;
	let tolerance = 0;
	if (typeof clockTolerance == "string") tolerance = secs(clockTolerance);
	else if (clockTolerance !== void 0) {
		if (typeof clockTolerance != "number") throw new TypeError("Invalid clockTolerance option type");
		tolerance = clockTolerance;
	}
	if (validateInput("clockTolerance option", tolerance), tolerance < 0) throw new TypeError("Invalid clockTolerance option input");
	const { currentDate } = options, now = validateInput("currentDate option", epoch(currentDate === void 0 ? /* @__PURE__ */ new Date() : currentDate)), iat = validateNumericDate(claimsSet, "iat", maxTokenAge !== void 0), nbf = validateNumericDate(claimsSet, "nbf");
	if (nbf !== void 0 && nbf > now + tolerance) throw new require_kernel_command.JWTClaimValidationFailed("\"nbf\" claim timestamp check failed", claimsSet, "nbf", checkFailed);
	const exp = validateNumericDate(claimsSet, "exp");
	if (exp !== void 0 && exp <= now - tolerance) throw new require_kernel_command.JWTExpired("\"exp\" claim timestamp check failed", claimsSet, "exp", checkFailed);
	if (maxTokenAge !== void 0) {
		const age = now - iat, max = validateInput("maxTokenAge option", typeof maxTokenAge == "number" ? maxTokenAge : secs(maxTokenAge));
		if (max < 0) throw new TypeError("Invalid maxTokenAge option input");
		if (age - tolerance > max) throw new require_kernel_command.JWTExpired("\"iat\" claim timestamp check failed (too far in the past)", claimsSet, "iat", checkFailed);
		if (age < -tolerance) throw new require_kernel_command.JWTClaimValidationFailed("\"iat\" claim timestamp check failed (it should be in the past)", claimsSet, "iat", checkFailed);
	}
	return claimsSet;
}
// node_modules/jose/dist/webapi/jwt/verify.js
async function jwtVerify(jwt, key, options) {
	const [verified, b64] = await verifyCompact(jwt, prepareVerify(options), key);
	if (!b64) throw new require_kernel_command.JWTInvalid("JWTs MUST NOT use unencoded payload");
	const payload = validateClaimsSet(verified.protectedHeader, verified.payload, options);
	return {
		...verified,
		payload
	};
}
// src/kernel/auth/oidc.ts
/** Asymmetric signatures only: no `none`, no HMAC (a shared secret would let anyone with it mint tokens). */
const ALLOWED_ALGS = [
	"RS256",
	"RS384",
	"RS512",
	"PS256",
	"PS384",
	"PS512",
	"ES256",
	"ES384",
	"EdDSA"
];
/** The oldest `iat` accepted (GitHub's tokens last minutes; this only bounds a replayed one). */
const MAX_TOKEN_AGE_S = 21600;
/**
* Tokens already verified, kept until their `exp`: a keeper renews with the same token
* every few seconds, and a signature check costs ~0.25 ms of CPU. Bounded; the oldest go first.
*/
const VERIFIED_TOKENS = 1024;
function createOidcVerifier(options) {
	const issuer = options.issuer.replace(/\/+$/, "");
	require_kernel_command.checkIssuerUrl(issuer);
	const now = options.now ?? Date.now;
	const cacheMs = options.cacheMs ?? 3e5;
	const skewS = Math.min(options.skewS ?? 60, 60);
	const keys = new require_kernel_command.IssuerKeys(issuer, {
		http: options.http,
		now,
		minRefreshMs: options.minRefreshMs ?? 1e4,
		cacheMs,
		maxStaleMs: Math.max(options.maxStaleMs ?? 36e5, cacheMs)
	});
	const verified = /* @__PURE__ */ new Map();
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
			requiredClaims: ["exp", "iat"],
			currentDate: new Date(now())
		});
		return payload;
	}
	async function verifyUncached(token) {
		try {
			try {
				return await verifyOnce(token);
			} catch (error) {
				if (!(error instanceof require_kernel_command.JWKSNoMatchingKey) || !keys.mayRefresh) throw error;
				await keys.refresh();
				if (keys.lastError !== void 0) throw require_kernel_command.unavailable(keys.lastError);
				return await verifyOnce(token);
			}
		} catch (error) {
			if (error instanceof require_kernel_command.AuthRefusal) throw error;
			throw new require_kernel_command.AuthRefusal(`The OIDC token was refused: ${why(error)}.`, {
				status: 401,
				reason: "unauthorized",
				cause: error
			});
		}
	}
	return {
		issuer,
		async verify(token) {
			const known = verified.get(token);
			if (known && (known.exp ?? 0) + skewS > now() / 1e3 && (known.nbf ?? 0) - skewS <= now() / 1e3) return known;
			if (known) verified.delete(token);
			const claims = await verifyUncached(token);
			if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value);
			verified.set(token, claims);
			return claims;
		}
	};
}
/** jose's reasons in words a caller can act on; never the token itself. */
function why(error) {
	if (error instanceof require_kernel_command.JWTExpired) return "it has expired";
	if (error instanceof require_kernel_command.JWTClaimValidationFailed) return `its "${error.claim}" claim is not accepted (${error.reason === "missing" ? "missing" : error.message})`;
	if (error instanceof require_kernel_command.JOSEAlgNotAllowed) return `its algorithm is not one of ${ALLOWED_ALGS.join(", ")}`;
	if (error instanceof require_kernel_command.JWKSNoMatchingKey) return "it is signed with a key the issuer doesn't publish";
	if (error instanceof require_kernel_command.JWSSignatureVerificationFailed) return "its signature does not verify";
	if (error instanceof require_kernel_command.JOSEError) return `it is not a valid JWT (${error.code})`;
	return "it is not a valid JWT";
}
exports.createOidcVerifier = createOidcVerifier;

//# sourceMappingURL=oidc-BIAx-Lh-.js.map