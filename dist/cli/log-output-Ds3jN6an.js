const require_rolldown_runtime = require("./rolldown-runtime-C-fzZZTt.js");
const require_cli = require("./cli.js");
const require_time = require("./time-ww7Hd0C3.js");
// src/github/rest.ts
/**
* What every caller of GitHub's REST API shares (the protection-rule app, the kernel's
* promotion check): the error it throws, how long a refusal says to wait, and GitHub's
* own error text, read as untrusted.
*/
var GitHubError = class extends require_cli.LeaseGateError {
	name = "GitHubError";
	/** GitHub's status, or 0 when no answer came. */
	status;
	constructor(message, options) {
		super(message, {
			...require_cli.causeOf(options.cause),
			code: "github"
		});
		this.status = options.status;
	}
};
/** The headers every REST call sends (the bearer is the caller's). */
function restHeaders(bearer, userAgent) {
	return {
		authorization: `Bearer ${bearer}`,
		accept: "application/vnd.github+json",
		"x-github-api-version": "2022-11-28",
		"user-agent": userAgent
	};
}
/** GitHub's advice for a secondary rate limit that names no time. */
const RATE_LIMIT_FALLBACK_MS = 6e4;
function headerOf(answer, name) {
	const value = answer.headers[name];
	return Array.isArray(value) ? value[0] : value;
}
/**
* How long to wait before asking again, or undefined when asking again cannot help:
* a rate limit waits what GitHub names; 5xx backs off; anything else is final.
*/
function retryWait(answer, wallNow, policy, attempt, random) {
	const retryAfter = require_time.parseRetryAfter(headerOf(answer, "retry-after"), wallNow);
	const remaining = headerOf(answer, "x-ratelimit-remaining");
	const reset = Number(headerOf(answer, "x-ratelimit-reset") ?? NaN);
	if (answer.status === 429 || answer.status === 403 && (retryAfter !== void 0 || remaining === "0")) {
		if (retryAfter !== void 0) return retryAfter;
		if (remaining === "0" && Number.isFinite(reset)) return Math.max(0, reset * 1e3 - wallNow) + 1e3;
		return RATE_LIMIT_FALLBACK_MS;
	}
	if (answer.status >= 500 || answer.status === 408) return require_time.backoffMs(policy, attempt, random);
}
/** GitHub's error answers: `{ message, documentation_url }`. */
const githubErrorSchema = require_cli.object({ message: require_cli.string() });
function parseJson(text) {
	try {
		return JSON.parse(text);
	} catch {
		return;
	}
}
/** The `message` of GitHub's error answer, or the start of what it sent (not yet escaped). */
function answerMessage(text) {
	const body = githubErrorSchema.safeParse(parseJson(text));
	return body.success ? body.data.message : text.slice(0, 200);
}
/** GitHub's text bound for a message that travels on (a refusal a job prints): printable ASCII. */
function printable(text, max = 200) {
	const line = text.replace(/[^\x20-\x7e]/g, "?");
	return line.length <= max ? line : `${line.slice(0, max - 1)}~`;
}
// node_modules/prom-client/lib/util.js
var require_util = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.getValueAsString = function getValueString(value) {
		if (Number.isNaN(value)) return "Nan";
		else if (!Number.isFinite(value)) {
			if (value < 0) return "-Inf";
			else return "+Inf";
		} else return `${value}`;
	};
	exports.removeLabels = function removeLabels(hashMap, labels, sortedLabelNames) {
		const hash = hashObject(labels, sortedLabelNames);
		delete hashMap[hash];
	};
	exports.setValue = function setValue(hashMap, value, labels) {
		const hash = hashObject(labels);
		hashMap[hash] = {
			value: typeof value === "number" ? value : 0,
			labels: labels || {}
		};
		return hashMap;
	};
	exports.setValueDelta = function setValueDelta(hashMap, deltaValue, labels, hash = "") {
		const value = typeof deltaValue === "number" ? deltaValue : 0;
		if (hashMap[hash]) hashMap[hash].value += value;
		else hashMap[hash] = {
			value,
			labels
		};
		return hashMap;
	};
	exports.getLabels = function(labelNames, args) {
		if (typeof args[0] === "object") return args[0];
		if (labelNames.length !== args.length) throw new Error(`Invalid number of arguments (${args.length}): "${args.join(", ")}" for label names (${labelNames.length}): "${labelNames.join(", ")}".`);
		const acc = {};
		for (let i = 0; i < labelNames.length; i++) acc[labelNames[i]] = args[i];
		return acc;
	};
	function fastHashObject(keys, labels) {
		if (keys.length === 0) return "";
		let hash = "";
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i];
			const value = labels[key];
			if (value === void 0) continue;
			hash += `${key}:${value},`;
		}
		return hash;
	}
	function hashObject(labels, labelNames) {
		if (labelNames) return fastHashObject(labelNames, labels);
		const keys = Object.keys(labels);
		if (keys.length > 1) keys.sort();
		return fastHashObject(keys, labels);
	}
	exports.hashObject = hashObject;
	exports.isObject = function isObject(obj) {
		return obj !== null && typeof obj === "object";
	};
	exports.nowTimestamp = function nowTimestamp() {
		return Date.now() / 1e3;
	};
	var Grouper = class extends Map {
		/**
		* Adds the `value` to the `key`'s array of values.
		* @param {*} key Key to set.
		* @param {*} value Value to add to `key`'s array.
		* @returns {undefined} undefined.
		*/
		add(key, value) {
			if (this.has(key)) this.get(key).push(value);
			else this.set(key, [value]);
		}
	};
	exports.Grouper = Grouper;
}));
// node_modules/prom-client/lib/registry.js
var require_registry = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const { getValueAsString } = require_util();
	var Registry = class Registry {
		static get PROMETHEUS_CONTENT_TYPE() {
			return "text/plain; version=0.0.4; charset=utf-8";
		}
		static get OPENMETRICS_CONTENT_TYPE() {
			return "application/openmetrics-text; version=1.0.0; charset=utf-8";
		}
		constructor(regContentType = Registry.PROMETHEUS_CONTENT_TYPE) {
			this._metrics = {};
			this._collectors = [];
			this._defaultLabels = {};
			if (regContentType !== Registry.PROMETHEUS_CONTENT_TYPE && regContentType !== Registry.OPENMETRICS_CONTENT_TYPE) throw new TypeError(`Content type ${regContentType} is unsupported`);
			this._contentType = regContentType;
		}
		getMetricsAsArray() {
			return Object.values(this._metrics);
		}
		async getMetricsAsString(metrics) {
			const metric = typeof metrics.getForPromString === "function" ? await metrics.getForPromString() : await metrics.get();
			const name = escapeString(metric.name);
			const values = [`# HELP ${name} ${escapeString(metric.help)}`, `# TYPE ${name} ${metric.type}`];
			const defaultLabels = Object.keys(this._defaultLabels).length > 0 ? this._defaultLabels : null;
			const isOpenMetrics = this.contentType === Registry.OPENMETRICS_CONTENT_TYPE;
			for (const val of metric.values || []) {
				let { metricName = name, labels = {} } = val;
				const { sharedLabels = {} } = val;
				if (isOpenMetrics && metric.type === "counter") metricName = `${metricName}_total`;
				if (defaultLabels) labels = {
					...labels,
					...defaultLabels,
					...labels
				};
				const formattedLabels = formatLabels(labels, sharedLabels);
				const flattenedShared = flattenSharedLabels(sharedLabels);
				const labelParts = [...formattedLabels, flattenedShared].filter(Boolean);
				const labelsString = labelParts.length ? `{${labelParts.join(",")}}` : "";
				let fullMetricLine = `${metricName}${labelsString} ${getValueAsString(val.value)}`;
				const { exemplar } = val;
				if (exemplar && isOpenMetrics) {
					const formattedExemplars = formatLabels(exemplar.labelSet);
					fullMetricLine += ` # {${formattedExemplars.join(",")}} ${getValueAsString(exemplar.value)} ${exemplar.timestamp}`;
				}
				values.push(fullMetricLine);
			}
			return values.join("\n");
		}
		async metrics() {
			const isOpenMetrics = this.contentType === Registry.OPENMETRICS_CONTENT_TYPE;
			const promises = this.getMetricsAsArray().map((metric) => {
				if (isOpenMetrics && metric.type === "counter") metric.name = standardizeCounterName(metric.name);
				return this.getMetricsAsString(metric);
			});
			const resolves = await Promise.all(promises);
			return isOpenMetrics ? `${resolves.join("\n")}\n# EOF\n` : `${resolves.join("\n\n")}\n`;
		}
		registerMetric(metric) {
			if (this._metrics[metric.name] && this._metrics[metric.name] !== metric) throw new Error(`A metric with the name ${metric.name} has already been registered.`);
			this._metrics[metric.name] = metric;
		}
		clear() {
			this._metrics = {};
			this._defaultLabels = {};
		}
		async getMetricsAsJSON() {
			const metrics = [];
			const defaultLabelNames = Object.keys(this._defaultLabels);
			const promises = [];
			for (const metric of this.getMetricsAsArray()) promises.push(metric.get());
			const resolves = await Promise.all(promises);
			for (const item of resolves) {
				if (item.values && defaultLabelNames.length > 0) for (const val of item.values) {
					val.labels = Object.assign({}, val.labels);
					for (const labelName of defaultLabelNames) val.labels[labelName] = val.labels[labelName] || this._defaultLabels[labelName];
				}
				metrics.push(item);
			}
			return metrics;
		}
		removeSingleMetric(name) {
			delete this._metrics[name];
		}
		getSingleMetricAsString(name) {
			return this.getMetricsAsString(this._metrics[name]);
		}
		getSingleMetric(name) {
			return this._metrics[name];
		}
		setDefaultLabels(labels) {
			this._defaultLabels = labels;
		}
		resetMetrics() {
			for (const metric in this._metrics) this._metrics[metric].reset();
		}
		get contentType() {
			return this._contentType;
		}
		setContentType(metricsContentType) {
			if (metricsContentType === Registry.OPENMETRICS_CONTENT_TYPE || metricsContentType === Registry.PROMETHEUS_CONTENT_TYPE) this._contentType = metricsContentType;
			else throw new Error(`Content type ${metricsContentType} is unsupported`);
		}
		static merge(registers) {
			const regType = registers[0].contentType;
			for (const reg of registers) if (reg.contentType !== regType) throw new Error("Registers can only be merged if they have the same content type");
			const mergedRegistry = new Registry(regType);
			registers.reduce((acc, reg) => acc.concat(reg.getMetricsAsArray()), []).forEach(mergedRegistry.registerMetric, mergedRegistry);
			return mergedRegistry;
		}
	};
	function formatLabels(labels, exclude) {
		const { hasOwnProperty } = Object.prototype;
		const formatted = [];
		for (const [name, value] of Object.entries(labels)) if (!exclude || !hasOwnProperty.call(exclude, name)) formatted.push(`${name}="${escapeLabelValue(value)}"`);
		return formatted;
	}
	const sharedLabelCache = /* @__PURE__ */ new WeakMap();
	function flattenSharedLabels(labels) {
		const cached = sharedLabelCache.get(labels);
		if (cached) return cached;
		const flattened = formatLabels(labels).join(",");
		sharedLabelCache.set(labels, flattened);
		return flattened;
	}
	function escapeLabelValue(str) {
		if (typeof str !== "string") return str;
		return escapeString(str).replace(/"/g, "\\\"");
	}
	function escapeString(str) {
		return str.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
	}
	function standardizeCounterName(name) {
		return name.replace(/_total$/, "");
	}
	module.exports = Registry;
	module.exports.globalRegistry = new Registry();
}));
// node_modules/prom-client/lib/validation.js
var require_validation = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const util = require("util");
	const metricRegexp = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
	const labelRegexp = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
	exports.validateMetricName = function(name) {
		return metricRegexp.test(name);
	};
	exports.validateLabelName = function(names = []) {
		return names.every((name) => labelRegexp.test(name));
	};
	exports.validateLabel = function validateLabel(savedLabels, labels) {
		for (const label in labels) if (!savedLabels.includes(label)) throw new Error(`Added label "${label}" is not included in initial labelset: ${util.inspect(savedLabels)}`);
	};
}));
// node_modules/prom-client/lib/metric.js
var require_metric = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Registry = require_registry();
	const { isObject } = require_util();
	const { validateMetricName, validateLabelName } = require_validation();
	/**
	* @abstract
	*/
	var Metric = class {
		constructor(config, defaults = {}) {
			if (!isObject(config)) throw new TypeError("constructor expected a config object");
			Object.assign(this, {
				labelNames: [],
				registers: [Registry.globalRegistry],
				aggregator: "sum",
				enableExemplars: false
			}, defaults, config);
			if (!this.registers) this.registers = [Registry.globalRegistry];
			if (!this.help) throw new Error("Missing mandatory help parameter");
			if (!this.name) throw new Error("Missing mandatory name parameter");
			if (!validateMetricName(this.name)) throw new Error("Invalid metric name");
			if (!validateLabelName(this.labelNames)) throw new Error("Invalid label name");
			if (this.collect && typeof this.collect !== "function") throw new Error("Optional \"collect\" parameter must be a function");
			if (this.labelNames) this.sortedLabelNames = [...this.labelNames].sort();
			else this.sortedLabelNames = [];
			this.reset();
			for (const register of this.registers) {
				if (this.enableExemplars && register.contentType === Registry.PROMETHEUS_CONTENT_TYPE) throw new TypeError("Exemplars are supported only on OpenMetrics registries");
				register.registerMetric(this);
			}
		}
		reset() {}
	};
	module.exports = { Metric };
}));
// node_modules/prom-client/lib/exemplar.js
var require_exemplar = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	/**
	* Class representing an OpenMetrics exemplar.
	*
	* @property {object} labelSet
	* @property {number} value
	* @property {number} [timestamp]
	* */
	var Exemplar = class {
		constructor(labelSet = {}, value = null) {
			this.labelSet = labelSet;
			this.value = value;
		}
		/**
		* Validation for the label set format.
		* https://github.com/OpenObservability/OpenMetrics/blob/d99b705f611b75fec8f450b05e344e02eea6921d/specification/OpenMetrics.md#exemplars
		*
		* @param {object} labelSet - Exemplar labels.
		* @throws {RangeError}
		* @return {void}
		*/
		validateExemplarLabelSet(labelSet) {
			let res = "";
			for (const [labelName, labelValue] of Object.entries(labelSet)) res += `${labelName}${labelValue}`;
			if (res.length > 128) throw new RangeError("Label set size must be smaller than 128 UTF-8 chars");
		}
	};
	module.exports = Exemplar;
}));
// node_modules/prom-client/lib/counter.js
/**
* Counter metric
*/
var require_counter = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const util = require("util");
	const { hashObject, isObject, getLabels, removeLabels, nowTimestamp } = require_util();
	const { validateLabel } = require_validation();
	const { Metric } = require_metric();
	const Exemplar = require_exemplar();
	var Counter = class extends Metric {
		constructor(config) {
			super(config);
			this.type = "counter";
			this.defaultLabels = {};
			this.defaultValue = 1;
			this.defaultExemplarLabelSet = {};
			if (config.enableExemplars) {
				this.enableExemplars = true;
				this.inc = this.incWithExemplar;
			} else this.inc = this.incWithoutExemplar;
		}
		/**
		* Increment counter
		* @param {object} labels - What label you want to be incremented
		* @param {Number} value - Value to increment, if omitted increment with 1
		* @returns {object} results - object with information about the inc operation
		* @returns {string} results.labelHash - hash representation of the labels
		*/
		incWithoutExemplar(labels, value) {
			let hash = "";
			if (isObject(labels)) {
				hash = hashObject(labels, this.sortedLabelNames);
				validateLabel(this.labelNames, labels);
			} else {
				value = labels;
				labels = {};
			}
			if (value && !Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${util.format(value)}`);
			if (value < 0) throw new Error("It is not possible to decrease a counter");
			if (value === null || value === void 0) value = 1;
			setValue(this.hashMap, value, labels, hash);
			return { labelHash: hash };
		}
		/**
		* Increment counter with exemplar, same as inc but accepts labels for an
		* exemplar.
		* If no label is provided the current exemplar labels are kept unchanged
		* (defaults to empty set).
		*
		* @param {object} incOpts - Object with options about what metric to increase
		* @param {object} incOpts.labels - What label you want to be incremented,
		*                                  defaults to null (metric with no labels)
		* @param {Number} incOpts.value - Value to increment, defaults to 1
		* @param {object} incOpts.exemplarLabels - Key-value  labels for the
		*                                          exemplar, defaults to empty set {}
		* @returns {void}
		*/
		incWithExemplar({ labels = this.defaultLabels, value = this.defaultValue, exemplarLabels = this.defaultExemplarLabelSet } = {}) {
			const res = this.incWithoutExemplar(labels, value);
			this.updateExemplar(exemplarLabels, value, res.labelHash);
		}
		updateExemplar(exemplarLabels, value, hash) {
			if (exemplarLabels === this.defaultExemplarLabelSet) return;
			if (!isObject(this.hashMap[hash].exemplar)) this.hashMap[hash].exemplar = new Exemplar();
			this.hashMap[hash].exemplar.validateExemplarLabelSet(exemplarLabels);
			this.hashMap[hash].exemplar.labelSet = exemplarLabels;
			this.hashMap[hash].exemplar.value = value ? value : 1;
			this.hashMap[hash].exemplar.timestamp = nowTimestamp();
		}
		/**
		* Reset counter
		* @returns {void}
		*/
		reset() {
			this.hashMap = {};
			if (this.labelNames.length === 0) setValue(this.hashMap, 0);
		}
		async get() {
			if (this.collect) {
				const v = this.collect();
				if (v instanceof Promise) await v;
			}
			return {
				help: this.help,
				name: this.name,
				type: this.type,
				values: Object.values(this.hashMap),
				aggregator: this.aggregator
			};
		}
		labels(...args) {
			const labels = getLabels(this.labelNames, args) || {};
			return { inc: this.inc.bind(this, labels) };
		}
		remove(...args) {
			const labels = getLabels(this.labelNames, args) || {};
			validateLabel(this.labelNames, labels);
			return removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
		}
	};
	function setValue(hashMap, value, labels = {}, hash = "") {
		if (hashMap[hash]) hashMap[hash].value += value;
		else hashMap[hash] = {
			value,
			labels
		};
		return hashMap;
	}
	module.exports = Counter;
}));
// node_modules/prom-client/lib/gauge.js
/**
* Gauge metric
*/
var require_gauge = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const util = require("util");
	const { setValue, setValueDelta, getLabels, hashObject, isObject, removeLabels } = require_util();
	const { validateLabel } = require_validation();
	const { Metric } = require_metric();
	var Gauge = class extends Metric {
		constructor(config) {
			super(config);
			this.type = "gauge";
		}
		/**
		* Set a gauge to a value
		* @param {object} labels - Object with labels and their values
		* @param {Number} value - Value to set the gauge to, must be positive
		* @returns {void}
		*/
		set(labels, value) {
			value = getValueArg(labels, value);
			labels = getLabelArg(labels);
			set(this, labels, value);
		}
		/**
		* Reset gauge
		* @returns {void}
		*/
		reset() {
			this.hashMap = {};
			if (this.labelNames.length === 0) setValue(this.hashMap, 0, {});
		}
		/**
		* Increment a gauge value
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @param {Number} value - Value to increment - if omitted, increment with 1
		* @returns {void}
		*/
		inc(labels, value) {
			value = getValueArg(labels, value);
			labels = getLabelArg(labels);
			if (value === void 0) value = 1;
			setDelta(this, labels, value);
		}
		/**
		* Decrement a gauge value
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @param {Number} value - Value to decrement - if omitted, decrement with 1
		* @returns {void}
		*/
		dec(labels, value) {
			value = getValueArg(labels, value);
			labels = getLabelArg(labels);
			if (value === void 0) value = 1;
			setDelta(this, labels, -value);
		}
		/**
		* Set the gauge to current unix epoch
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @returns {void}
		*/
		setToCurrentTime(labels) {
			const now = Date.now() / 1e3;
			if (labels === void 0) this.set(now);
			else this.set(labels, now);
		}
		/**
		* Start a timer
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @returns {function} - Invoke this function to set the duration in seconds since you started the timer.
		* @example
		* var done = gauge.startTimer();
		* makeXHRRequest(function(err, response) {
		*	done(); //Duration of the request will be saved
		* });
		*/
		startTimer(labels) {
			const start = process.hrtime();
			return (endLabels) => {
				const delta = process.hrtime(start);
				const value = delta[0] + delta[1] / 1e9;
				this.set(Object.assign({}, labels, endLabels), value);
				return value;
			};
		}
		async get() {
			if (this.collect) {
				const v = this.collect();
				if (v instanceof Promise) await v;
			}
			return {
				help: this.help,
				name: this.name,
				type: this.type,
				values: Object.values(this.hashMap),
				aggregator: this.aggregator
			};
		}
		_getValue(labels) {
			const hash = hashObject(labels || {}, this.sortedLabelNames);
			return this.hashMap[hash] ? this.hashMap[hash].value : 0;
		}
		labels(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			return {
				inc: this.inc.bind(this, labels),
				dec: this.dec.bind(this, labels),
				set: this.set.bind(this, labels),
				setToCurrentTime: this.setToCurrentTime.bind(this, labels),
				startTimer: this.startTimer.bind(this, labels)
			};
		}
		remove(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
		}
	};
	function set(gauge, labels, value) {
		if (typeof value !== "number") throw new TypeError(`Value is not a valid number: ${util.format(value)}`);
		validateLabel(gauge.labelNames, labels);
		setValue(gauge.hashMap, value, labels);
	}
	function setDelta(gauge, labels, delta) {
		if (typeof delta !== "number") throw new TypeError(`Delta is not a valid number: ${util.format(delta)}`);
		validateLabel(gauge.labelNames, labels);
		const hash = hashObject(labels, gauge.sortedLabelNames);
		setValueDelta(gauge.hashMap, delta, labels, hash);
	}
	function getLabelArg(labels) {
		return isObject(labels) ? labels : {};
	}
	function getValueArg(labels, value) {
		return isObject(labels) ? value : labels;
	}
	module.exports = Gauge;
}));
// node_modules/prom-client/lib/histogram.js
/**
* Histogram
*/
var require_histogram = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const util = require("util");
	const { getLabels, hashObject, isObject, removeLabels, nowTimestamp } = require_util();
	const { validateLabel } = require_validation();
	const { Metric } = require_metric();
	const Exemplar = require_exemplar();
	var Histogram = class extends Metric {
		constructor(config) {
			super(config, { buckets: [
				.005,
				.01,
				.025,
				.05,
				.1,
				.25,
				.5,
				1,
				2.5,
				5,
				10
			] });
			this.type = "histogram";
			this.defaultLabels = {};
			this.defaultExemplarLabelSet = {};
			this.enableExemplars = false;
			for (const label of this.labelNames) if (label === "le") throw new Error("le is a reserved label keyword");
			this.upperBounds = this.buckets;
			this.bucketValues = this.upperBounds.reduce((acc, upperBound) => {
				acc[upperBound] = 0;
				return acc;
			}, {});
			if (config.enableExemplars) {
				this.enableExemplars = true;
				this.bucketExemplars = this.upperBounds.reduce((acc, upperBound) => {
					acc[upperBound] = null;
					return acc;
				}, {});
				Object.freeze(this.bucketExemplars);
				this.observe = this.observeWithExemplar;
			} else this.observe = this.observeWithoutExemplar;
			Object.freeze(this.bucketValues);
			Object.freeze(this.upperBounds);
			if (this.labelNames.length === 0) this.hashMap = { [hashObject({})]: createBaseValues({}, this.bucketValues, this.bucketExemplars) };
		}
		/**
		* Observe a value in histogram
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @param {Number} value - Value to observe in the histogram
		* @returns {void}
		*/
		observeWithoutExemplar(labels, value) {
			observe.call(this, labels === 0 ? 0 : labels || {})(value);
		}
		observeWithExemplar({ labels = this.defaultLabels, value, exemplarLabels = this.defaultExemplarLabelSet } = {}) {
			observe.call(this, labels === 0 ? 0 : labels || {})(value);
			this.updateExemplar(labels, value, exemplarLabels);
		}
		updateExemplar(labels, value, exemplarLabels) {
			if (Object.keys(exemplarLabels).length === 0) return;
			const hash = hashObject(labels, this.sortedLabelNames);
			const bound = findBound(this.upperBounds, value);
			const { bucketExemplars } = this.hashMap[hash];
			let exemplar = bucketExemplars[bound];
			if (!isObject(exemplar)) {
				exemplar = new Exemplar();
				bucketExemplars[bound] = exemplar;
			}
			exemplar.validateExemplarLabelSet(exemplarLabels);
			exemplar.labelSet = exemplarLabels;
			exemplar.value = value;
			exemplar.timestamp = nowTimestamp();
		}
		async get() {
			const data = await this.getForPromString();
			data.values = data.values.map(splayLabels);
			return data;
		}
		async getForPromString() {
			if (this.collect) {
				const v = this.collect();
				if (v instanceof Promise) await v;
			}
			const values = Object.values(this.hashMap).map(extractBucketValuesForExport(this)).reduce(addSumAndCountForExport(this), []);
			return {
				name: this.name,
				help: this.help,
				type: this.type,
				values,
				aggregator: this.aggregator
			};
		}
		reset() {
			this.hashMap = {};
		}
		/**
		* Initialize the metrics for the given combination of labels to zero
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @returns {void}
		*/
		zero(labels) {
			const hash = hashObject(labels, this.sortedLabelNames);
			this.hashMap[hash] = createBaseValues(labels, this.bucketValues, this.bucketExemplars);
		}
		/**
		* Start a timer that could be used to logging durations
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @param {object} exemplarLabels - Object with labels for exemplar where key is the label key and value is label value. Can only be one level deep
		* @returns {function} - Function to invoke when you want to stop the timer and observe the duration in seconds
		* @example
		* var end = histogram.startTimer();
		* makeExpensiveXHRRequest(function(err, res) {
		* 	const duration = end(); //Observe the duration of expensiveXHRRequest and returns duration in seconds
		* 	console.log('Duration', duration);
		* });
		*/
		startTimer(labels, exemplarLabels) {
			return this.enableExemplars ? startTimerWithExemplar.call(this, labels, exemplarLabels)() : startTimer.call(this, labels)();
		}
		labels(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			return {
				observe: observe.call(this, labels),
				startTimer: startTimer.call(this, labels)
			};
		}
		remove(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
		}
	};
	function startTimer(startLabels) {
		return () => {
			const start = process.hrtime();
			return (endLabels) => {
				const delta = process.hrtime(start);
				const value = delta[0] + delta[1] / 1e9;
				this.observe(Object.assign({}, startLabels, endLabels), value);
				return value;
			};
		};
	}
	function startTimerWithExemplar(startLabels, startExemplarLabels) {
		return () => {
			const start = process.hrtime();
			return (endLabels, endExemplarLabels) => {
				const delta = process.hrtime(start);
				const value = delta[0] + delta[1] / 1e9;
				this.observe({
					labels: Object.assign({}, startLabels, endLabels),
					value,
					exemplarLabels: Object.assign({}, startExemplarLabels, endExemplarLabels)
				});
				return value;
			};
		};
	}
	function setValuePair(labels, value, metricName, exemplar, sharedLabels = {}) {
		return {
			labels,
			sharedLabels,
			value,
			metricName,
			exemplar
		};
	}
	function findBound(upperBounds, value) {
		for (let i = 0; i < upperBounds.length; i++) {
			const bound = upperBounds[i];
			if (value <= bound) return bound;
		}
		return -1;
	}
	function observe(labels) {
		return (value) => {
			const labelValuePair = convertLabelsAndValues(labels, value);
			validateLabel(this.labelNames, labelValuePair.labels);
			if (!Number.isFinite(labelValuePair.value)) throw new TypeError(`Value is not a valid number: ${util.format(labelValuePair.value)}`);
			const hash = hashObject(labelValuePair.labels, this.sortedLabelNames);
			let valueFromMap = this.hashMap[hash];
			if (!valueFromMap) valueFromMap = createBaseValues(labelValuePair.labels, this.bucketValues, this.bucketExemplars);
			const b = findBound(this.upperBounds, labelValuePair.value);
			valueFromMap.sum += labelValuePair.value;
			valueFromMap.count += 1;
			if (Object.prototype.hasOwnProperty.call(valueFromMap.bucketValues, b)) valueFromMap.bucketValues[b] += 1;
			this.hashMap[hash] = valueFromMap;
		};
	}
	function createBaseValues(labels, bucketValues, bucketExemplars) {
		const result = {
			labels,
			bucketValues: { ...bucketValues },
			sum: 0,
			count: 0
		};
		if (bucketExemplars) result.bucketExemplars = { ...bucketExemplars };
		return result;
	}
	function convertLabelsAndValues(labels, value) {
		return isObject(labels) ? {
			labels,
			value
		} : {
			value: labels,
			labels: {}
		};
	}
	function extractBucketValuesForExport(histogram) {
		const name = `${histogram.name}_bucket`;
		return (bucketData) => {
			let acc = 0;
			return {
				buckets: histogram.upperBounds.map((upperBound) => {
					acc += bucketData.bucketValues[upperBound];
					return setValuePair({ le: upperBound }, acc, name, bucketData.bucketExemplars ? bucketData.bucketExemplars[upperBound] : null, bucketData.labels);
				}),
				data: bucketData
			};
		};
	}
	function addSumAndCountForExport(histogram) {
		return (acc, d) => {
			acc.push(...d.buckets);
			acc.push(setValuePair({ le: "+Inf" }, d.data.count, `${histogram.name}_bucket`, d.data.bucketExemplars ? d.data.bucketExemplars["-1"] : null, d.data.labels), setValuePair({}, d.data.sum, `${histogram.name}_sum`, void 0, d.data.labels), setValuePair({}, d.data.count, `${histogram.name}_count`, void 0, d.data.labels));
			return acc;
		};
	}
	function splayLabels(bucket) {
		const { sharedLabels, labels, ...newBucket } = bucket;
		for (const label of Object.keys(sharedLabels)) labels[label] = sharedLabels[label];
		newBucket.labels = labels;
		return newBucket;
	}
	module.exports = Histogram;
}));
// node_modules/bintrees/lib/treebase.js
var require_treebase = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	function TreeBase() {}
	TreeBase.prototype.clear = function() {
		this._root = null;
		this.size = 0;
	};
	TreeBase.prototype.find = function(data) {
		var res = this._root;
		while (res !== null) {
			var c = this._comparator(data, res.data);
			if (c === 0) return res.data;
			else res = res.get_child(c > 0);
		}
		return null;
	};
	TreeBase.prototype.findIter = function(data) {
		var res = this._root;
		var iter = this.iterator();
		while (res !== null) {
			var c = this._comparator(data, res.data);
			if (c === 0) {
				iter._cursor = res;
				return iter;
			} else {
				iter._ancestors.push(res);
				res = res.get_child(c > 0);
			}
		}
		return null;
	};
	TreeBase.prototype.lowerBound = function(item) {
		var cur = this._root;
		var iter = this.iterator();
		var cmp = this._comparator;
		while (cur !== null) {
			var c = cmp(item, cur.data);
			if (c === 0) {
				iter._cursor = cur;
				return iter;
			}
			iter._ancestors.push(cur);
			cur = cur.get_child(c > 0);
		}
		for (var i = iter._ancestors.length - 1; i >= 0; --i) {
			cur = iter._ancestors[i];
			if (cmp(item, cur.data) < 0) {
				iter._cursor = cur;
				iter._ancestors.length = i;
				return iter;
			}
		}
		iter._ancestors.length = 0;
		return iter;
	};
	TreeBase.prototype.upperBound = function(item) {
		var iter = this.lowerBound(item);
		var cmp = this._comparator;
		while (iter.data() !== null && cmp(iter.data(), item) === 0) iter.next();
		return iter;
	};
	TreeBase.prototype.min = function() {
		var res = this._root;
		if (res === null) return null;
		while (res.left !== null) res = res.left;
		return res.data;
	};
	TreeBase.prototype.max = function() {
		var res = this._root;
		if (res === null) return null;
		while (res.right !== null) res = res.right;
		return res.data;
	};
	TreeBase.prototype.iterator = function() {
		return new Iterator(this);
	};
	TreeBase.prototype.each = function(cb) {
		var it = this.iterator(), data;
		while ((data = it.next()) !== null) if (cb(data) === false) return;
	};
	TreeBase.prototype.reach = function(cb) {
		var it = this.iterator(), data;
		while ((data = it.prev()) !== null) if (cb(data) === false) return;
	};
	function Iterator(tree) {
		this._tree = tree;
		this._ancestors = [];
		this._cursor = null;
	}
	Iterator.prototype.data = function() {
		return this._cursor !== null ? this._cursor.data : null;
	};
	Iterator.prototype.next = function() {
		if (this._cursor === null) {
			var root = this._tree._root;
			if (root !== null) this._minNode(root);
		} else if (this._cursor.right === null) {
			var save;
			do {
				save = this._cursor;
				if (this._ancestors.length) this._cursor = this._ancestors.pop();
				else {
					this._cursor = null;
					break;
				}
			} while (this._cursor.right === save);
		} else {
			this._ancestors.push(this._cursor);
			this._minNode(this._cursor.right);
		}
		return this._cursor !== null ? this._cursor.data : null;
	};
	Iterator.prototype.prev = function() {
		if (this._cursor === null) {
			var root = this._tree._root;
			if (root !== null) this._maxNode(root);
		} else if (this._cursor.left === null) {
			var save;
			do {
				save = this._cursor;
				if (this._ancestors.length) this._cursor = this._ancestors.pop();
				else {
					this._cursor = null;
					break;
				}
			} while (this._cursor.left === save);
		} else {
			this._ancestors.push(this._cursor);
			this._maxNode(this._cursor.left);
		}
		return this._cursor !== null ? this._cursor.data : null;
	};
	Iterator.prototype._minNode = function(start) {
		while (start.left !== null) {
			this._ancestors.push(start);
			start = start.left;
		}
		this._cursor = start;
	};
	Iterator.prototype._maxNode = function(start) {
		while (start.right !== null) {
			this._ancestors.push(start);
			start = start.right;
		}
		this._cursor = start;
	};
	module.exports = TreeBase;
}));
// node_modules/bintrees/lib/rbtree.js
var require_rbtree = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	var TreeBase = require_treebase();
	function Node(data) {
		this.data = data;
		this.left = null;
		this.right = null;
		this.red = true;
	}
	Node.prototype.get_child = function(dir) {
		return dir ? this.right : this.left;
	};
	Node.prototype.set_child = function(dir, val) {
		if (dir) this.right = val;
		else this.left = val;
	};
	function RBTree(comparator) {
		this._root = null;
		this._comparator = comparator;
		this.size = 0;
	}
	RBTree.prototype = new TreeBase();
	RBTree.prototype.insert = function(data) {
		var ret = false;
		if (this._root === null) {
			this._root = new Node(data);
			ret = true;
			this.size++;
		} else {
			var head = new Node(void 0);
			var dir = 0;
			var last = 0;
			var gp = null;
			var ggp = head;
			var p = null;
			var node = this._root;
			ggp.right = this._root;
			while (true) {
				if (node === null) {
					node = new Node(data);
					p.set_child(dir, node);
					ret = true;
					this.size++;
				} else if (is_red(node.left) && is_red(node.right)) {
					node.red = true;
					node.left.red = false;
					node.right.red = false;
				}
				if (is_red(node) && is_red(p)) {
					var dir2 = ggp.right === gp;
					if (node === p.get_child(last)) ggp.set_child(dir2, single_rotate(gp, !last));
					else ggp.set_child(dir2, double_rotate(gp, !last));
				}
				var cmp = this._comparator(node.data, data);
				if (cmp === 0) break;
				last = dir;
				dir = cmp < 0;
				if (gp !== null) ggp = gp;
				gp = p;
				p = node;
				node = node.get_child(dir);
			}
			this._root = head.right;
		}
		this._root.red = false;
		return ret;
	};
	RBTree.prototype.remove = function(data) {
		if (this._root === null) return false;
		var head = new Node(void 0);
		var node = head;
		node.right = this._root;
		var p = null;
		var gp = null;
		var found = null;
		var dir = 1;
		while (node.get_child(dir) !== null) {
			var last = dir;
			gp = p;
			p = node;
			node = node.get_child(dir);
			var cmp = this._comparator(data, node.data);
			dir = cmp > 0;
			if (cmp === 0) found = node;
			if (!is_red(node) && !is_red(node.get_child(dir))) {
				if (is_red(node.get_child(!dir))) {
					var sr = single_rotate(node, dir);
					p.set_child(last, sr);
					p = sr;
				} else if (!is_red(node.get_child(!dir))) {
					var sibling = p.get_child(!last);
					if (sibling !== null) {
						if (!is_red(sibling.get_child(!last)) && !is_red(sibling.get_child(last))) {
							p.red = false;
							sibling.red = true;
							node.red = true;
						} else {
							var dir2 = gp.right === p;
							if (is_red(sibling.get_child(last))) gp.set_child(dir2, double_rotate(p, last));
							else if (is_red(sibling.get_child(!last))) gp.set_child(dir2, single_rotate(p, last));
							var gpc = gp.get_child(dir2);
							gpc.red = true;
							node.red = true;
							gpc.left.red = false;
							gpc.right.red = false;
						}
					}
				}
			}
		}
		if (found !== null) {
			found.data = node.data;
			p.set_child(p.right === node, node.get_child(node.left === null));
			this.size--;
		}
		this._root = head.right;
		if (this._root !== null) this._root.red = false;
		return found !== null;
	};
	function is_red(node) {
		return node !== null && node.red;
	}
	function single_rotate(root, dir) {
		var save = root.get_child(!dir);
		root.set_child(!dir, save.get_child(dir));
		save.set_child(dir, root);
		root.red = true;
		save.red = false;
		return save;
	}
	function double_rotate(root, dir) {
		root.set_child(!dir, single_rotate(root.get_child(!dir), !dir));
		return single_rotate(root, dir);
	}
	module.exports = RBTree;
}));
// node_modules/bintrees/lib/bintree.js
var require_bintree = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	var TreeBase = require_treebase();
	function Node(data) {
		this.data = data;
		this.left = null;
		this.right = null;
	}
	Node.prototype.get_child = function(dir) {
		return dir ? this.right : this.left;
	};
	Node.prototype.set_child = function(dir, val) {
		if (dir) this.right = val;
		else this.left = val;
	};
	function BinTree(comparator) {
		this._root = null;
		this._comparator = comparator;
		this.size = 0;
	}
	BinTree.prototype = new TreeBase();
	BinTree.prototype.insert = function(data) {
		if (this._root === null) {
			this._root = new Node(data);
			this.size++;
			return true;
		}
		var dir = 0;
		var p = null;
		var node = this._root;
		while (true) {
			if (node === null) {
				node = new Node(data);
				p.set_child(dir, node);
				ret = true;
				this.size++;
				return true;
			}
			if (this._comparator(node.data, data) === 0) return false;
			dir = this._comparator(node.data, data) < 0;
			p = node;
			node = node.get_child(dir);
		}
	};
	BinTree.prototype.remove = function(data) {
		if (this._root === null) return false;
		var head = new Node(void 0);
		var node = head;
		node.right = this._root;
		var p = null;
		var found = null;
		var dir = 1;
		while (node.get_child(dir) !== null) {
			p = node;
			node = node.get_child(dir);
			var cmp = this._comparator(data, node.data);
			dir = cmp > 0;
			if (cmp === 0) found = node;
		}
		if (found !== null) {
			found.data = node.data;
			p.set_child(p.right === node, node.get_child(node.left === null));
			this._root = head.right;
			this.size--;
			return true;
		} else return false;
	};
	module.exports = BinTree;
}));
// node_modules/bintrees/index.js
var require_bintrees = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	module.exports = {
		RBTree: require_rbtree(),
		BinTree: require_bintree()
	};
}));
// node_modules/tdigest/tdigest.js
var require_tdigest = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	var RBTree = require_bintrees().RBTree;
	function TDigest(delta, K, CX) {
		this.discrete = delta === false;
		this.delta = delta || .01;
		this.K = K === void 0 ? 25 : K;
		this.CX = CX === void 0 ? 1.1 : CX;
		this.centroids = new RBTree(compare_centroid_means);
		this.nreset = 0;
		this.reset();
	}
	TDigest.prototype.reset = function() {
		this.centroids.clear();
		this.n = 0;
		this.nreset += 1;
		this.last_cumulate = 0;
	};
	TDigest.prototype.size = function() {
		return this.centroids.size;
	};
	TDigest.prototype.toArray = function(everything) {
		var result = [];
		if (everything) {
			this._cumulate(true);
			this.centroids.each(function(c) {
				result.push(c);
			});
		} else this.centroids.each(function(c) {
			result.push({
				mean: c.mean,
				n: c.n
			});
		});
		return result;
	};
	TDigest.prototype.summary = function() {
		return [
			(this.discrete ? "exact " : "approximating ") + this.n + " samples using " + this.size() + " centroids",
			"min = " + this.percentile(0),
			"Q1  = " + this.percentile(.25),
			"Q2  = " + this.percentile(.5),
			"Q3  = " + this.percentile(.75),
			"max = " + this.percentile(1)
		].join("\n");
	};
	function compare_centroid_means(a, b) {
		return a.mean > b.mean ? 1 : a.mean < b.mean ? -1 : 0;
	}
	function compare_centroid_mean_cumns(a, b) {
		return a.mean_cumn - b.mean_cumn;
	}
	TDigest.prototype.push = function(x, n) {
		n = n || 1;
		x = Array.isArray(x) ? x : [x];
		for (var i = 0; i < x.length; i++) this._digest(x[i], n);
	};
	TDigest.prototype.push_centroid = function(c) {
		c = Array.isArray(c) ? c : [c];
		for (var i = 0; i < c.length; i++) this._digest(c[i].mean, c[i].n);
	};
	TDigest.prototype._cumulate = function(exact) {
		if (this.n === this.last_cumulate || !exact && this.CX && this.CX > this.n / this.last_cumulate) return;
		var cumn = 0;
		this.centroids.each(function(c) {
			c.mean_cumn = cumn + c.n / 2;
			cumn = c.cumn = cumn + c.n;
		});
		this.n = this.last_cumulate = cumn;
	};
	TDigest.prototype.find_nearest = function(x) {
		if (this.size() === 0) return null;
		var iter = this.centroids.lowerBound({ mean: x });
		var c = iter.data() === null ? iter.prev() : iter.data();
		if (c.mean === x || this.discrete) return c;
		var prev = iter.prev();
		if (prev && Math.abs(prev.mean - x) < Math.abs(c.mean - x)) return prev;
		else return c;
	};
	TDigest.prototype._new_centroid = function(x, n, cumn) {
		var c = {
			mean: x,
			n,
			cumn
		};
		this.centroids.insert(c);
		this.n += n;
		return c;
	};
	TDigest.prototype._addweight = function(nearest, x, n) {
		if (x !== nearest.mean) nearest.mean += n * (x - nearest.mean) / (nearest.n + n);
		nearest.cumn += n;
		nearest.mean_cumn += n / 2;
		nearest.n += n;
		this.n += n;
	};
	TDigest.prototype._digest = function(x, n) {
		var min = this.centroids.min();
		var max = this.centroids.max();
		var nearest = this.find_nearest(x);
		if (nearest && nearest.mean === x) this._addweight(nearest, x, n);
		else if (nearest === min) this._new_centroid(x, n, 0);
		else if (nearest === max) this._new_centroid(x, n, this.n);
		else if (this.discrete) this._new_centroid(x, n, nearest.cumn);
		else {
			var p = nearest.mean_cumn / this.n;
			if (Math.floor(4 * this.n * this.delta * p * (1 - p)) - nearest.n >= n) this._addweight(nearest, x, n);
			else this._new_centroid(x, n, nearest.cumn);
		}
		this._cumulate(false);
		if (!this.discrete && this.K && this.size() > this.K / this.delta) this.compress();
	};
	TDigest.prototype.bound_mean = function(x) {
		var iter = this.centroids.upperBound({ mean: x });
		var lower = iter.prev();
		return [lower, lower.mean === x ? lower : iter.next()];
	};
	TDigest.prototype.p_rank = function(x_or_xlist) {
		var ps = (Array.isArray(x_or_xlist) ? x_or_xlist : [x_or_xlist]).map(this._p_rank, this);
		return Array.isArray(x_or_xlist) ? ps : ps[0];
	};
	TDigest.prototype._p_rank = function(x) {
		if (this.size() === 0) return;
		else if (x < this.centroids.min().mean) return 0;
		else if (x > this.centroids.max().mean) return 1;
		this._cumulate(true);
		var bound = this.bound_mean(x);
		var lower = bound[0], upper = bound[1];
		if (this.discrete) return lower.cumn / this.n;
		else {
			var cumn = lower.mean_cumn;
			if (lower !== upper) cumn += (x - lower.mean) * (upper.mean_cumn - lower.mean_cumn) / (upper.mean - lower.mean);
			return cumn / this.n;
		}
	};
	TDigest.prototype.bound_mean_cumn = function(cumn) {
		this.centroids._comparator = compare_centroid_mean_cumns;
		var iter = this.centroids.upperBound({ mean_cumn: cumn });
		this.centroids._comparator = compare_centroid_means;
		var lower = iter.prev();
		return [lower, lower && lower.mean_cumn === cumn ? lower : iter.next()];
	};
	TDigest.prototype.percentile = function(p_or_plist) {
		var qs = (Array.isArray(p_or_plist) ? p_or_plist : [p_or_plist]).map(this._percentile, this);
		return Array.isArray(p_or_plist) ? qs : qs[0];
	};
	TDigest.prototype._percentile = function(p) {
		if (this.size() === 0) return;
		this._cumulate(true);
		var h = this.n * p;
		var bound = this.bound_mean_cumn(h);
		var lower = bound[0], upper = bound[1];
		if (upper === lower || lower === null || upper === null) return (lower || upper).mean;
		else if (!this.discrete) return lower.mean + (h - lower.mean_cumn) * (upper.mean - lower.mean) / (upper.mean_cumn - lower.mean_cumn);
		else if (h <= lower.cumn) return lower.mean;
		else return upper.mean;
	};
	function pop_random(choices) {
		var idx = Math.floor(Math.random() * choices.length);
		return choices.splice(idx, 1)[0];
	}
	TDigest.prototype.compress = function() {
		if (this.compressing) return;
		var points = this.toArray();
		this.reset();
		this.compressing = true;
		while (points.length > 0) this.push_centroid(pop_random(points));
		this._cumulate(true);
		this.compressing = false;
	};
	function Digest(config) {
		this.config = config || {};
		this.mode = this.config.mode || "auto";
		TDigest.call(this, this.mode === "cont" ? config.delta : false);
		this.digest_ratio = this.config.ratio || .9;
		this.digest_thresh = this.config.thresh || 1e3;
		this.n_unique = 0;
	}
	Digest.prototype = Object.create(TDigest.prototype);
	Digest.prototype.constructor = Digest;
	Digest.prototype.push = function(x_or_xlist) {
		TDigest.prototype.push.call(this, x_or_xlist);
		this.check_continuous();
	};
	Digest.prototype._new_centroid = function(x, n, cumn) {
		this.n_unique += 1;
		TDigest.prototype._new_centroid.call(this, x, n, cumn);
	};
	Digest.prototype._addweight = function(nearest, x, n) {
		if (nearest.n === 1) this.n_unique -= 1;
		TDigest.prototype._addweight.call(this, nearest, x, n);
	};
	Digest.prototype.check_continuous = function() {
		if (this.mode !== "auto" || this.size() < this.digest_thresh) return false;
		if (this.n_unique / this.size() > this.digest_ratio) {
			this.mode = "cont";
			this.discrete = false;
			this.delta = this.config.delta || .01;
			this.compress();
			return true;
		}
		return false;
	};
	module.exports = {
		"TDigest": TDigest,
		"Digest": Digest
	};
}));
// node_modules/prom-client/lib/timeWindowQuantiles.js
var require_timeWindowQuantiles = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const { TDigest } = require_tdigest();
	var TimeWindowQuantiles = class {
		constructor(maxAgeSeconds, ageBuckets) {
			this.maxAgeSeconds = maxAgeSeconds || 0;
			this.ageBuckets = ageBuckets || 0;
			this.shouldRotate = maxAgeSeconds && ageBuckets;
			this.ringBuffer = Array(ageBuckets).fill(new TDigest());
			this.currentBuffer = 0;
			this.lastRotateTimestampMillis = Date.now();
			this.durationBetweenRotatesMillis = maxAgeSeconds * 1e3 / ageBuckets || Infinity;
		}
		size() {
			return rotate.call(this).size();
		}
		percentile(quantile) {
			return rotate.call(this).percentile(quantile);
		}
		push(value) {
			rotate.call(this);
			this.ringBuffer.forEach((bucket) => {
				bucket.push(value);
			});
		}
		reset() {
			this.ringBuffer.forEach((bucket) => {
				bucket.reset();
			});
		}
		compress() {
			this.ringBuffer.forEach((bucket) => {
				bucket.compress();
			});
		}
	};
	function rotate() {
		let timeSinceLastRotateMillis = Date.now() - this.lastRotateTimestampMillis;
		while (timeSinceLastRotateMillis > this.durationBetweenRotatesMillis && this.shouldRotate) {
			this.ringBuffer[this.currentBuffer] = new TDigest();
			if (++this.currentBuffer >= this.ringBuffer.length) this.currentBuffer = 0;
			timeSinceLastRotateMillis -= this.durationBetweenRotatesMillis;
			this.lastRotateTimestampMillis += this.durationBetweenRotatesMillis;
		}
		return this.ringBuffer[this.currentBuffer];
	}
	module.exports = TimeWindowQuantiles;
}));
// node_modules/prom-client/lib/summary.js
/**
* Summary
*/
var require_summary = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const util = require("util");
	const { getLabels, hashObject, removeLabels } = require_util();
	const { validateLabel } = require_validation();
	const { Metric } = require_metric();
	const timeWindowQuantiles = require_timeWindowQuantiles();
	const DEFAULT_COMPRESS_COUNT = 1e3;
	var Summary = class extends Metric {
		constructor(config) {
			super(config, {
				percentiles: [
					.01,
					.05,
					.5,
					.9,
					.95,
					.99,
					.999
				],
				compressCount: DEFAULT_COMPRESS_COUNT,
				hashMap: {}
			});
			this.type = "summary";
			for (const label of this.labelNames) if (label === "quantile") throw new Error("quantile is a reserved label keyword");
			if (this.labelNames.length === 0) this.hashMap = { [hashObject({})]: {
				labels: {},
				td: new timeWindowQuantiles(this.maxAgeSeconds, this.ageBuckets),
				count: 0,
				sum: 0
			} };
		}
		/**
		* Observe a value
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @param {Number} value - Value to observe
		* @returns {void}
		*/
		observe(labels, value) {
			observe.call(this, labels === 0 ? 0 : labels || {})(value);
		}
		async get() {
			if (this.collect) {
				const v = this.collect();
				if (v instanceof Promise) await v;
			}
			const hashKeys = Object.keys(this.hashMap);
			const values = [];
			hashKeys.forEach((hashKey) => {
				const s = this.hashMap[hashKey];
				if (s) {
					if (this.pruneAgedBuckets && s.td.size() === 0) delete this.hashMap[hashKey];
					else {
						extractSummariesForExport(s, this.percentiles).forEach((v) => {
							values.push(v);
						});
						values.push(getSumForExport(s, this));
						values.push(getCountForExport(s, this));
					}
				}
			});
			return {
				name: this.name,
				help: this.help,
				type: this.type,
				values,
				aggregator: this.aggregator
			};
		}
		reset() {
			Object.values(this.hashMap).forEach((s) => {
				s.td.reset();
				s.count = 0;
				s.sum = 0;
			});
		}
		/**
		* Start a timer that could be used to logging durations
		* @param {object} labels - Object with labels where key is the label key and value is label value. Can only be one level deep
		* @returns {function} - Function to invoke when you want to stop the timer and observe the duration in seconds
		* @example
		* var end = summary.startTimer();
		* makeExpensiveXHRRequest(function(err, res) {
		*	end(); //Observe the duration of expensiveXHRRequest
		* });
		*/
		startTimer(labels) {
			return startTimer.call(this, labels)();
		}
		labels(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			return {
				observe: observe.call(this, labels),
				startTimer: startTimer.call(this, labels)
			};
		}
		remove(...args) {
			const labels = getLabels(this.labelNames, args);
			validateLabel(this.labelNames, labels);
			removeLabels.call(this, this.hashMap, labels, this.sortedLabelNames);
		}
	};
	function extractSummariesForExport(summaryOfLabels, percentiles) {
		summaryOfLabels.td.compress();
		return percentiles.map((percentile) => {
			const percentileValue = summaryOfLabels.td.percentile(percentile);
			return {
				labels: Object.assign({ quantile: percentile }, summaryOfLabels.labels),
				value: percentileValue ? percentileValue : 0
			};
		});
	}
	function getCountForExport(value, summary) {
		return {
			metricName: `${summary.name}_count`,
			labels: value.labels,
			value: value.count
		};
	}
	function getSumForExport(value, summary) {
		return {
			metricName: `${summary.name}_sum`,
			labels: value.labels,
			value: value.sum
		};
	}
	function startTimer(startLabels) {
		return () => {
			const start = process.hrtime();
			return (endLabels) => {
				const delta = process.hrtime(start);
				const value = delta[0] + delta[1] / 1e9;
				this.observe(Object.assign({}, startLabels, endLabels), value);
				return value;
			};
		};
	}
	function observe(labels) {
		return (value) => {
			const labelValuePair = convertLabelsAndValues(labels, value);
			validateLabel(this.labelNames, labels);
			if (!Number.isFinite(labelValuePair.value)) throw new TypeError(`Value is not a valid number: ${util.format(labelValuePair.value)}`);
			const hash = hashObject(labelValuePair.labels, this.sortedLabelNames);
			let summaryOfLabel = this.hashMap[hash];
			if (!summaryOfLabel) summaryOfLabel = {
				labels: labelValuePair.labels,
				td: new timeWindowQuantiles(this.maxAgeSeconds, this.ageBuckets),
				count: 0,
				sum: 0
			};
			summaryOfLabel.td.push(labelValuePair.value);
			summaryOfLabel.count++;
			if (summaryOfLabel.count % this.compressCount === 0) summaryOfLabel.td.compress();
			summaryOfLabel.sum += labelValuePair.value;
			this.hashMap[hash] = summaryOfLabel;
		};
	}
	function convertLabelsAndValues(labels, value) {
		if (value === void 0) return {
			value: labels,
			labels: {}
		};
		return {
			labels,
			value
		};
	}
	module.exports = Summary;
}));
// node_modules/prom-client/lib/pushgateway.js
var require_pushgateway = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const url = require("url");
	const http = require("http");
	const https = require("https");
	const { gzipSync } = require("zlib");
	const { globalRegistry } = require_registry();
	var Pushgateway = class {
		constructor(gatewayUrl, options, registry) {
			if (!registry) registry = globalRegistry;
			this.registry = registry;
			this.gatewayUrl = gatewayUrl;
			const { requireJobName, ...requestOptions } = {
				requireJobName: true,
				...options
			};
			this.requireJobName = requireJobName;
			this.requestOptions = requestOptions;
		}
		pushAdd(params = {}) {
			if (this.requireJobName && !params.jobName) throw new Error("Missing jobName parameter");
			return useGateway.call(this, "POST", params.jobName, params.groupings);
		}
		push(params = {}) {
			if (this.requireJobName && !params.jobName) throw new Error("Missing jobName parameter");
			return useGateway.call(this, "PUT", params.jobName, params.groupings);
		}
		delete(params = {}) {
			if (this.requireJobName && !params.jobName) throw new Error("Missing jobName parameter");
			return useGateway.call(this, "DELETE", params.jobName, params.groupings);
		}
	};
	async function useGateway(method, job, groupings) {
		const gatewayUrlParsed = url.parse(this.gatewayUrl);
		const path = `${gatewayUrlParsed.pathname && gatewayUrlParsed.pathname !== "/" ? gatewayUrlParsed.pathname : ""}/metrics${job ? `/job/${encodeURIComponent(job)}${generateGroupings(groupings)}` : ""}`;
		const target = url.resolve(this.gatewayUrl, path);
		const requestParams = url.parse(target);
		const httpModule = isHttps(requestParams.href) ? https : http;
		const options = Object.assign(requestParams, this.requestOptions, { method });
		return new Promise((resolve, reject) => {
			if (method === "DELETE" && options.headers) delete options.headers["Content-Encoding"];
			const req = httpModule.request(options, (resp) => {
				let body = "";
				resp.setEncoding("utf8");
				resp.on("data", (chunk) => {
					body += chunk;
				});
				resp.on("end", () => {
					if (resp.statusCode >= 400) reject(/* @__PURE__ */ new Error(`push failed with status ${resp.statusCode}, ${body}`));
					else resolve({
						resp,
						body
					});
				});
			});
			req.on("error", (err) => {
				reject(err);
			});
			req.on("timeout", () => {
				req.destroy(/* @__PURE__ */ new Error("Pushgateway request timed out"));
			});
			if (method !== "DELETE") this.registry.metrics().then((metrics) => {
				if (options.headers && options.headers["Content-Encoding"] === "gzip") metrics = gzipSync(metrics);
				req.write(metrics);
				req.end();
			}).catch((err) => {
				reject(err);
			});
			else req.end();
		});
	}
	function generateGroupings(groupings) {
		if (!groupings) return "";
		return Object.keys(groupings).map((key) => `/${encodeURIComponent(key)}/${encodeURIComponent(groupings[key])}`).join("");
	}
	function isHttps(href) {
		return href.search(/^https/) !== -1;
	}
	module.exports = Pushgateway;
}));
// node_modules/prom-client/lib/bucketGenerators.js
var require_bucketGenerators = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.linearBuckets = (start, width, count) => {
		if (count < 1) throw new Error("Linear buckets needs a positive count");
		const buckets = new Array(count);
		for (let i = 0; i < count; i++) buckets[i] = start + i * width;
		return buckets;
	};
	exports.exponentialBuckets = (start, factor, count) => {
		if (start <= 0) throw new Error("Exponential buckets needs a positive start");
		if (count < 1) throw new Error("Exponential buckets needs a positive count");
		if (factor <= 1) throw new Error("Exponential buckets needs a factor greater than 1");
		const buckets = new Array(count);
		for (let i = 0; i < count; i++) {
			buckets[i] = start;
			start *= factor;
		}
		return buckets;
	};
}));
// node_modules/@opentelemetry/api/dist/diag/types.cjs
var require_types$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.DiagLogLevel = /* @__PURE__ */ function(DiagLogLevel) {
		/** Diagnostic Logging level setting to disable all logging (except and forced logs) */
		DiagLogLevel[DiagLogLevel["NONE"] = 0] = "NONE";
		/** Identifies an error scenario */
		DiagLogLevel[DiagLogLevel["ERROR"] = 30] = "ERROR";
		/** Identifies a warning scenario */
		DiagLogLevel[DiagLogLevel["WARN"] = 50] = "WARN";
		/** General informational log message */
		DiagLogLevel[DiagLogLevel["INFO"] = 60] = "INFO";
		/** General debug log message */
		DiagLogLevel[DiagLogLevel["DEBUG"] = 70] = "DEBUG";
		/**
		* Detailed trace level logging should only be used for development, should only be set
		* in a development environment.
		*/
		DiagLogLevel[DiagLogLevel["VERBOSE"] = 80] = "VERBOSE";
		/** Used to set the logging level to include all logging */
		DiagLogLevel[DiagLogLevel["ALL"] = 9999] = "ALL";
		return DiagLogLevel;
	}({});
}));
// node_modules/@opentelemetry/api/dist/version.cjs
var require_version$2 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.VERSION = "1.10.0";
}));
// node_modules/@opentelemetry/api/dist/internal/semver.cjs
var require_semver$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_version = require_version$2();
	const re = /^(\d+)\.(\d+)\.(\d+)(-(.+))?$/;
	/**
	* Create a function to test an API version to see if it is compatible with the provided ownVersion.
	*
	* The returned function has the following semantics:
	* - Exact match is always compatible
	* - Major versions must match exactly
	*    - 1.x package cannot use global 2.x package
	*    - 2.x package cannot use global 1.x package
	* - The minor version of the API module requesting access to the global API must be less than or equal to the minor version of this API
	*    - 1.3 package may use 1.4 global because the later global contains all functions 1.3 expects
	*    - 1.4 package may NOT use 1.3 global because it may try to call functions which don't exist on 1.3
	* - If the major version is 0, the minor version is treated as the major and the patch is treated as the minor
	* - Patch and build tag differences are not considered at this time
	*
	* @param ownVersion version which should be checked against
	*/
	function _makeCompatibilityCheck(ownVersion) {
		const acceptedVersions = /* @__PURE__ */ new Set([ownVersion]);
		const rejectedVersions = /* @__PURE__ */ new Set();
		const myVersionMatch = ownVersion.match(re);
		if (!myVersionMatch) return () => false;
		const ownVersionParsed = {
			major: +myVersionMatch[1],
			minor: +myVersionMatch[2],
			patch: +myVersionMatch[3],
			prerelease: myVersionMatch[4]
		};
		if (ownVersionParsed.prerelease != null) return function isExactmatch(globalVersion) {
			return globalVersion === ownVersion;
		};
		function _reject(v) {
			rejectedVersions.add(v);
			return false;
		}
		function _accept(v) {
			acceptedVersions.add(v);
			return true;
		}
		return function isCompatible(globalVersion) {
			if (acceptedVersions.has(globalVersion)) return true;
			if (rejectedVersions.has(globalVersion)) return false;
			const globalVersionMatch = globalVersion.match(re);
			if (!globalVersionMatch) return _reject(globalVersion);
			const globalVersionParsed = {
				major: +globalVersionMatch[1],
				minor: +globalVersionMatch[2],
				patch: +globalVersionMatch[3],
				prerelease: globalVersionMatch[4]
			};
			if (globalVersionParsed.prerelease != null) return _reject(globalVersion);
			if (ownVersionParsed.major !== globalVersionParsed.major) return _reject(globalVersion);
			if (ownVersionParsed.major === 0) {
				if (ownVersionParsed.minor === globalVersionParsed.minor && ownVersionParsed.patch <= globalVersionParsed.patch) return _accept(globalVersion);
				return _reject(globalVersion);
			}
			if (ownVersionParsed.minor <= globalVersionParsed.minor) return _accept(globalVersion);
			return _reject(globalVersion);
		};
	}
	/**
	* Test an API version to see if it is compatible with this API.
	*
	* - Exact match is always compatible
	* - Major versions must match exactly
	*    - 1.x package cannot use global 2.x package
	*    - 2.x package cannot use global 1.x package
	* - The minor version of the API module requesting access to the global API must be less than or equal to the minor version of this API
	*    - 1.3 package may use 1.4 global because the later global contains all functions 1.3 expects
	*    - 1.4 package may NOT use 1.3 global because it may try to call functions which don't exist on 1.3
	* - If the major version is 0, the minor version is treated as the major and the patch is treated as the minor
	* - Patch and build tag differences are not considered at this time
	*
	* @param version version of the API requesting an instance of the global API
	*/
	const isCompatible = _makeCompatibilityCheck(require_version.VERSION);
	exports._makeCompatibilityCheck = _makeCompatibilityCheck;
	exports.isCompatible = isCompatible;
}));
// node_modules/@opentelemetry/api/dist/internal/global-utils.cjs
var require_global_utils$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_version = require_version$2();
	const require_semver = require_semver$1();
	const major = require_version.VERSION.split(".")[0];
	const GLOBAL_OPENTELEMETRY_API_KEY = Symbol.for(`opentelemetry.js.api.${major}`);
	const _global = typeof globalThis === "object" ? globalThis : typeof self === "object" ? self : typeof window === "object" ? window : typeof global === "object" ? global : {};
	function _makeGlobalApi() {
		return Object.defineProperty({}, "version", {
			value: require_version.VERSION,
			enumerable: true,
			writable: false,
			configurable: false
		});
	}
	function registerGlobal(type, instance, diag, allowOverride = false) {
		var _global$GLOBAL_OPENTE;
		const api = _global[GLOBAL_OPENTELEMETRY_API_KEY] = (_global$GLOBAL_OPENTE = _global[GLOBAL_OPENTELEMETRY_API_KEY]) !== null && _global$GLOBAL_OPENTE !== void 0 ? _global$GLOBAL_OPENTE : _makeGlobalApi();
		if (!allowOverride && api[type]) {
			const err = /* @__PURE__ */ new Error(`@opentelemetry/api: Attempted duplicate registration of API: ${type}`);
			diag.error(err.stack || err.message);
			return false;
		}
		if (api.version !== "1.10.0") {
			const err = /* @__PURE__ */ new Error(`@opentelemetry/api: Registration of version v${api.version} for ${type} does not match previously registered API v${require_version.VERSION}`);
			diag.error(err.stack || err.message);
			return false;
		}
		api[type] = instance;
		diag.debug(`@opentelemetry/api: Registered a global for ${type} v${require_version.VERSION}.`);
		return true;
	}
	let _compatibleGlobalApi;
	function getGlobal(type) {
		const api = _global[GLOBAL_OPENTELEMETRY_API_KEY];
		if (api == null) return;
		if (api !== _compatibleGlobalApi) {
			if (!api.version || !require_semver.isCompatible(api.version)) return;
			_compatibleGlobalApi = api;
		}
		return api[type];
	}
	function unregisterGlobal(type, diag) {
		diag.debug(`@opentelemetry/api: Unregistering a global for ${type} v${require_version.VERSION}.`);
		const api = _global[GLOBAL_OPENTELEMETRY_API_KEY];
		if (api) delete api[type];
	}
	exports.getGlobal = getGlobal;
	exports.registerGlobal = registerGlobal;
	exports.unregisterGlobal = unregisterGlobal;
}));
// node_modules/@opentelemetry/api/dist/diag/ComponentLogger.cjs
var require_ComponentLogger$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	/**
	* Component Logger which is meant to be used as part of any component which
	* will add automatically additional namespace in front of the log message.
	* It will then forward all message to global diag logger
	* @example
	* const cLogger = diag.createComponentLogger({ namespace: '@opentelemetry/instrumentation-http' });
	* cLogger.debug('test');
	* // @opentelemetry/instrumentation-http test
	*/
	var DiagComponentLogger = class {
		constructor(props) {
			this._namespace = props.namespace || "DiagComponentLogger";
		}
		debug(...args) {
			return logProxy("debug", this._namespace, args);
		}
		error(...args) {
			return logProxy("error", this._namespace, args);
		}
		info(...args) {
			return logProxy("info", this._namespace, args);
		}
		warn(...args) {
			return logProxy("warn", this._namespace, args);
		}
		verbose(...args) {
			return logProxy("verbose", this._namespace, args);
		}
	};
	function logProxy(funcName, namespace, args) {
		const logger = require_global_utils.getGlobal("diag");
		if (!logger) return;
		return logger[funcName](namespace, ...args);
	}
	exports.DiagComponentLogger = DiagComponentLogger;
}));
// node_modules/@opentelemetry/api/dist/diag/internal/logLevelLogger.cjs
var require_logLevelLogger$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	require_types$1();
	function createLogLevelDiagLogger(maxLevel, logger) {
		if (maxLevel < 0) maxLevel = 0;
		else if (maxLevel > 9999) maxLevel = 9999;
		logger = logger || {};
		function _filterFunc(funcName, theLevel) {
			const theFunc = logger[funcName];
			if (typeof theFunc === "function" && maxLevel >= theLevel) return theFunc.bind(logger);
			return function() {};
		}
		return {
			error: _filterFunc("error", 30),
			warn: _filterFunc("warn", 50),
			info: _filterFunc("info", 60),
			debug: _filterFunc("debug", 70),
			verbose: _filterFunc("verbose", 80)
		};
	}
	exports.createLogLevelDiagLogger = createLogLevelDiagLogger;
}));
// node_modules/@opentelemetry/api/dist/api/diag.cjs
var require_diag$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_ComponentLogger = require_ComponentLogger$1();
	require_types$1();
	const require_logLevelLogger = require_logLevelLogger$1();
	const API_NAME = "diag";
	exports.DiagAPI = class DiagAPI {
		/** Get the singleton instance of the DiagAPI API */
		static instance() {
			if (!this._instance) this._instance = new DiagAPI();
			return this._instance;
		}
		/**
		* Private internal constructor
		* @private
		*/
		constructor() {
			function _logProxy(funcName) {
				return function(...args) {
					const logger = require_global_utils.getGlobal("diag");
					if (!logger) return;
					return logger[funcName](...args);
				};
			}
			const self = this;
			const setLogger = (logger, optionsOrLogLevel = { logLevel: 60 }) => {
				var _optionsOrLogLevel$lo;
				if (logger === self) {
					var _err$stack;
					const err = /* @__PURE__ */ new Error("Cannot use diag as the logger for itself. Please use a DiagLogger implementation like ConsoleDiagLogger or a custom implementation");
					self.error((_err$stack = err.stack) !== null && _err$stack !== void 0 ? _err$stack : err.message);
					return false;
				}
				if (typeof optionsOrLogLevel === "number") optionsOrLogLevel = { logLevel: optionsOrLogLevel };
				const oldLogger = require_global_utils.getGlobal("diag");
				const newLogger = require_logLevelLogger.createLogLevelDiagLogger((_optionsOrLogLevel$lo = optionsOrLogLevel.logLevel) !== null && _optionsOrLogLevel$lo !== void 0 ? _optionsOrLogLevel$lo : 60, logger);
				if (oldLogger && !optionsOrLogLevel.suppressOverrideMessage) {
					var _Error$stack;
					const stack = (_Error$stack = (/* @__PURE__ */ new Error()).stack) !== null && _Error$stack !== void 0 ? _Error$stack : "<failed to generate stacktrace>";
					oldLogger.warn(`Current logger will be overwritten from ${stack}`);
					newLogger.warn(`Current logger will overwrite one already registered from ${stack}`);
				}
				return require_global_utils.registerGlobal("diag", newLogger, self, true);
			};
			self.setLogger = setLogger;
			self.disable = () => {
				require_global_utils.unregisterGlobal(API_NAME, self);
			};
			self.createComponentLogger = (options) => {
				return new require_ComponentLogger.DiagComponentLogger(options);
			};
			self.verbose = _logProxy("verbose");
			self.debug = _logProxy("debug");
			self.info = _logProxy("info");
			self.warn = _logProxy("warn");
			self.error = _logProxy("error");
		}
	};
}));
// node_modules/@opentelemetry/api/dist/baggage/internal/baggage-impl.cjs
var require_baggage_impl$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.BaggageImpl = class BaggageImpl {
		constructor(entries) {
			this._entries = entries ? new Map(entries) : /* @__PURE__ */ new Map();
		}
		getEntry(key) {
			const entry = this._entries.get(key);
			if (!entry) return;
			return Object.assign({}, entry);
		}
		getAllEntries() {
			return Array.from(this._entries.entries());
		}
		setEntry(key, entry) {
			const newBaggage = new BaggageImpl(this._entries);
			newBaggage._entries.set(key, entry);
			return newBaggage;
		}
		removeEntry(key) {
			const newBaggage = new BaggageImpl(this._entries);
			newBaggage._entries.delete(key);
			return newBaggage;
		}
		removeEntries(...keys) {
			const newBaggage = new BaggageImpl(this._entries);
			for (const key of keys) newBaggage._entries.delete(key);
			return newBaggage;
		}
		clear() {
			return new BaggageImpl();
		}
	};
}));
// node_modules/@opentelemetry/api/dist/baggage/internal/symbol.cjs
var require_symbol$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.baggageEntryMetadataSymbol = Symbol("BaggageEntryMetadata");
}));
// node_modules/@opentelemetry/api/dist/baggage/utils.cjs
var require_utils$3 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_diag = require_diag$1();
	const require_baggage_impl = require_baggage_impl$1();
	const require_symbol = require_symbol$1();
	const diag = require_diag.DiagAPI.instance();
	/**
	* Create a new Baggage with optional entries
	*
	* @param entries An array of baggage entries the new baggage should contain
	*/
	function createBaggage(entries = {}) {
		return new require_baggage_impl.BaggageImpl(new Map(Object.entries(entries)));
	}
	/**
	* Create a serializable BaggageEntryMetadata object from a string.
	*
	* @param str string metadata. Format is currently not defined by the spec and has no special meaning.
	*
	* @since 1.0.0
	*/
	function baggageEntryMetadataFromString(str) {
		if (typeof str !== "string") {
			diag.error(`Cannot create baggage metadata from unknown type: ${typeof str}`);
			str = "";
		}
		return {
			__TYPE__: require_symbol.baggageEntryMetadataSymbol,
			toString() {
				return str;
			}
		};
	}
	exports.baggageEntryMetadataFromString = baggageEntryMetadataFromString;
	exports.createBaggage = createBaggage;
}));
// node_modules/@opentelemetry/api/dist/context/context.cjs
var require_context$3 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	/**
	* Get a key to uniquely identify a context value
	*
	* @since 1.0.0
	*/
	function createContextKey(description) {
		return Symbol.for(description);
	}
	exports.ROOT_CONTEXT = new class BaseContext {
		/**
		* Construct a new context which inherits values from an optional parent context.
		*
		* @param parentContext a context from which to inherit values
		*/
		constructor(parentContext) {
			const self = this;
			self._currentContext = parentContext ? new Map(parentContext) : /* @__PURE__ */ new Map();
			self.getValue = (key) => self._currentContext.get(key);
			self.setValue = (key, value) => {
				const context = new BaseContext(self._currentContext);
				context._currentContext.set(key, value);
				return context;
			};
			self.deleteValue = (key) => {
				const context = new BaseContext(self._currentContext);
				context._currentContext.delete(key);
				return context;
			};
		}
	}();
	exports.createContextKey = createContextKey;
}));
// node_modules/@opentelemetry/api/dist/diag/consoleLogger.cjs
var require_consoleLogger$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const consoleMap = [
		{
			n: "error",
			c: "error"
		},
		{
			n: "warn",
			c: "warn"
		},
		{
			n: "info",
			c: "info"
		},
		{
			n: "debug",
			c: "debug"
		},
		{
			n: "verbose",
			c: "trace"
		}
	];
	const _originalConsoleMethods = {};
	if (typeof console !== "undefined") {
		for (const key of [
			"error",
			"warn",
			"info",
			"debug",
			"trace",
			"log"
		]) if (typeof console[key] === "function") _originalConsoleMethods[key] = console[key];
	}
	/**
	* A simple Immutable Console based diagnostic logger which will output any messages to the Console.
	* If you want to limit the amount of logging to a specific level or lower use the
	* {@link createLogLevelDiagLogger}
	*
	* @since 1.0.0
	*/
	var DiagConsoleLogger = class {
		constructor() {
			function _consoleFunc(funcName) {
				return function(...args) {
					let theFunc = _originalConsoleMethods[funcName];
					if (typeof theFunc !== "function") theFunc = _originalConsoleMethods["log"];
					if (typeof theFunc !== "function" && console) {
						theFunc = console[funcName];
						if (typeof theFunc !== "function") theFunc = console.log;
					}
					if (typeof theFunc === "function") return theFunc.apply(console, args);
				};
			}
			for (let i = 0; i < consoleMap.length; i++) this[consoleMap[i].n] = _consoleFunc(consoleMap[i].c);
		}
	};
	exports.DiagConsoleLogger = DiagConsoleLogger;
	exports._originalConsoleMethods = _originalConsoleMethods;
}));
// node_modules/@opentelemetry/api/dist/metrics/NoopMeter.cjs
var require_NoopMeter$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	/**
	* NoopMeter is a noop implementation of the {@link Meter} interface. It reuses
	* constant NoopMetrics for all of its methods.
	*/
	var NoopMeter = class {
		constructor() {}
		/**
		* @see {@link Meter.createGauge}
		*/
		createGauge(_name, _options) {
			return NOOP_GAUGE_METRIC;
		}
		/**
		* @see {@link Meter.createHistogram}
		*/
		createHistogram(_name, _options) {
			return NOOP_HISTOGRAM_METRIC;
		}
		/**
		* @see {@link Meter.createCounter}
		*/
		createCounter(_name, _options) {
			return NOOP_COUNTER_METRIC;
		}
		/**
		* @see {@link Meter.createUpDownCounter}
		*/
		createUpDownCounter(_name, _options) {
			return NOOP_UP_DOWN_COUNTER_METRIC;
		}
		/**
		* @see {@link Meter.createObservableGauge}
		*/
		createObservableGauge(_name, _options) {
			return NOOP_OBSERVABLE_GAUGE_METRIC;
		}
		/**
		* @see {@link Meter.createObservableCounter}
		*/
		createObservableCounter(_name, _options) {
			return NOOP_OBSERVABLE_COUNTER_METRIC;
		}
		/**
		* @see {@link Meter.createObservableUpDownCounter}
		*/
		createObservableUpDownCounter(_name, _options) {
			return NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC;
		}
		/**
		* @see {@link Meter.addBatchObservableCallback}
		*/
		addBatchObservableCallback(_callback, _observables) {}
		/**
		* @see {@link Meter.removeBatchObservableCallback}
		*/
		removeBatchObservableCallback(_callback) {}
	};
	var NoopMetric = class {};
	var NoopCounterMetric = class extends NoopMetric {
		add(_value, _attributes) {}
	};
	var NoopUpDownCounterMetric = class extends NoopMetric {
		add(_value, _attributes) {}
	};
	var NoopGaugeMetric = class extends NoopMetric {
		record(_value, _attributes) {}
	};
	var NoopHistogramMetric = class extends NoopMetric {
		record(_value, _attributes) {}
	};
	var NoopObservableMetric = class {
		addCallback(_callback) {}
		removeCallback(_callback) {}
	};
	var NoopObservableCounterMetric = class extends NoopObservableMetric {};
	var NoopObservableGaugeMetric = class extends NoopObservableMetric {};
	var NoopObservableUpDownCounterMetric = class extends NoopObservableMetric {};
	const NOOP_METER = new NoopMeter();
	const NOOP_COUNTER_METRIC = new NoopCounterMetric();
	const NOOP_GAUGE_METRIC = new NoopGaugeMetric();
	const NOOP_HISTOGRAM_METRIC = new NoopHistogramMetric();
	const NOOP_UP_DOWN_COUNTER_METRIC = new NoopUpDownCounterMetric();
	const NOOP_OBSERVABLE_COUNTER_METRIC = new NoopObservableCounterMetric();
	const NOOP_OBSERVABLE_GAUGE_METRIC = new NoopObservableGaugeMetric();
	const NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC = new NoopObservableUpDownCounterMetric();
	/**
	* Create a no-op Meter
	*
	* @since 1.3.0
	*/
	function createNoopMeter() {
		return NOOP_METER;
	}
	exports.NOOP_COUNTER_METRIC = NOOP_COUNTER_METRIC;
	exports.NOOP_GAUGE_METRIC = NOOP_GAUGE_METRIC;
	exports.NOOP_HISTOGRAM_METRIC = NOOP_HISTOGRAM_METRIC;
	exports.NOOP_METER = NOOP_METER;
	exports.NOOP_OBSERVABLE_COUNTER_METRIC = NOOP_OBSERVABLE_COUNTER_METRIC;
	exports.NOOP_OBSERVABLE_GAUGE_METRIC = NOOP_OBSERVABLE_GAUGE_METRIC;
	exports.NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC = NOOP_OBSERVABLE_UP_DOWN_COUNTER_METRIC;
	exports.NOOP_UP_DOWN_COUNTER_METRIC = NOOP_UP_DOWN_COUNTER_METRIC;
	exports.NoopCounterMetric = NoopCounterMetric;
	exports.NoopGaugeMetric = NoopGaugeMetric;
	exports.NoopHistogramMetric = NoopHistogramMetric;
	exports.NoopMeter = NoopMeter;
	exports.NoopMetric = NoopMetric;
	exports.NoopObservableCounterMetric = NoopObservableCounterMetric;
	exports.NoopObservableGaugeMetric = NoopObservableGaugeMetric;
	exports.NoopObservableMetric = NoopObservableMetric;
	exports.NoopObservableUpDownCounterMetric = NoopObservableUpDownCounterMetric;
	exports.NoopUpDownCounterMetric = NoopUpDownCounterMetric;
	exports.createNoopMeter = createNoopMeter;
}));
// node_modules/@opentelemetry/api/dist/metrics/Metric.cjs
var require_Metric$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.ValueType = /* @__PURE__ */ function(ValueType) {
		ValueType[ValueType["INT"] = 0] = "INT";
		ValueType[ValueType["DOUBLE"] = 1] = "DOUBLE";
		return ValueType;
	}({});
}));
// node_modules/@opentelemetry/api/dist/logs/NoopLogger.cjs
var require_NoopLogger$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	var NoopLogger = class {
		emit(_logRecord) {}
		enabled() {
			return false;
		}
	};
	const NOOP_LOGGER = new NoopLogger();
	/**
	* Create a no-op Logger
	*/
	function createNoopLogger() {
		return NOOP_LOGGER;
	}
	exports.NOOP_LOGGER = NOOP_LOGGER;
	exports.NoopLogger = NoopLogger;
	exports.createNoopLogger = createNoopLogger;
}));
// node_modules/@opentelemetry/api/dist/logs/LogRecord.cjs
var require_LogRecord$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.SeverityNumber = /* @__PURE__ */ function(SeverityNumber) {
		SeverityNumber[SeverityNumber["UNSPECIFIED"] = 0] = "UNSPECIFIED";
		SeverityNumber[SeverityNumber["TRACE"] = 1] = "TRACE";
		SeverityNumber[SeverityNumber["TRACE2"] = 2] = "TRACE2";
		SeverityNumber[SeverityNumber["TRACE3"] = 3] = "TRACE3";
		SeverityNumber[SeverityNumber["TRACE4"] = 4] = "TRACE4";
		SeverityNumber[SeverityNumber["DEBUG"] = 5] = "DEBUG";
		SeverityNumber[SeverityNumber["DEBUG2"] = 6] = "DEBUG2";
		SeverityNumber[SeverityNumber["DEBUG3"] = 7] = "DEBUG3";
		SeverityNumber[SeverityNumber["DEBUG4"] = 8] = "DEBUG4";
		SeverityNumber[SeverityNumber["INFO"] = 9] = "INFO";
		SeverityNumber[SeverityNumber["INFO2"] = 10] = "INFO2";
		SeverityNumber[SeverityNumber["INFO3"] = 11] = "INFO3";
		SeverityNumber[SeverityNumber["INFO4"] = 12] = "INFO4";
		SeverityNumber[SeverityNumber["WARN"] = 13] = "WARN";
		SeverityNumber[SeverityNumber["WARN2"] = 14] = "WARN2";
		SeverityNumber[SeverityNumber["WARN3"] = 15] = "WARN3";
		SeverityNumber[SeverityNumber["WARN4"] = 16] = "WARN4";
		SeverityNumber[SeverityNumber["ERROR"] = 17] = "ERROR";
		SeverityNumber[SeverityNumber["ERROR2"] = 18] = "ERROR2";
		SeverityNumber[SeverityNumber["ERROR3"] = 19] = "ERROR3";
		SeverityNumber[SeverityNumber["ERROR4"] = 20] = "ERROR4";
		SeverityNumber[SeverityNumber["FATAL"] = 21] = "FATAL";
		SeverityNumber[SeverityNumber["FATAL2"] = 22] = "FATAL2";
		SeverityNumber[SeverityNumber["FATAL3"] = 23] = "FATAL3";
		SeverityNumber[SeverityNumber["FATAL4"] = 24] = "FATAL4";
		return SeverityNumber;
	}({});
}));
// node_modules/@opentelemetry/api/dist/propagation/TextMapPropagator.cjs
var require_TextMapPropagator$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	/**
	* @since 1.0.0
	*/
	const defaultTextMapGetter = {
		get(carrier, key) {
			if (carrier == null) return;
			return carrier[key];
		},
		keys(carrier) {
			if (carrier == null) return [];
			return Object.keys(carrier);
		}
	};
	/**
	* @since 1.0.0
	*/
	const defaultTextMapSetter = { set(carrier, key, value) {
		if (carrier == null) return;
		carrier[key] = value;
	} };
	exports.defaultTextMapGetter = defaultTextMapGetter;
	exports.defaultTextMapSetter = defaultTextMapSetter;
}));
// node_modules/@opentelemetry/api/dist/trace/trace_flags.cjs
var require_trace_flags$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.TraceFlags = /* @__PURE__ */ function(TraceFlags) {
		/** Represents no flag set. */
		TraceFlags[TraceFlags["NONE"] = 0] = "NONE";
		/** Bit to represent whether trace is sampled in trace flags. */
		TraceFlags[TraceFlags["SAMPLED"] = 1] = "SAMPLED";
		return TraceFlags;
	}({});
}));
// node_modules/@opentelemetry/api/dist/trace/invalid-span-constants.cjs
var require_invalid_span_constants$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	require_trace_flags$1();
	/**
	* @since 1.0.0
	*/
	const INVALID_SPANID = "0000000000000000";
	/**
	* @since 1.0.0
	*/
	const INVALID_TRACEID = "00000000000000000000000000000000";
	/**
	* @since 1.0.0
	*/
	const INVALID_SPAN_CONTEXT = {
		traceId: INVALID_TRACEID,
		spanId: INVALID_SPANID,
		traceFlags: 0
	};
	exports.INVALID_SPANID = INVALID_SPANID;
	exports.INVALID_SPAN_CONTEXT = INVALID_SPAN_CONTEXT;
	exports.INVALID_TRACEID = INVALID_TRACEID;
}));
// node_modules/@opentelemetry/api/dist/trace/NonRecordingSpan.cjs
var require_NonRecordingSpan$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_invalid_span_constants = require_invalid_span_constants$1();
	/**
	* The NonRecordingSpan is the default {@link Span} that is used when no Span
	* implementation is available. All operations are no-op including context
	* propagation.
	*/
	var NonRecordingSpan = class {
		constructor(spanContext = require_invalid_span_constants.INVALID_SPAN_CONTEXT) {
			this._spanContext = spanContext;
		}
		spanContext() {
			return this._spanContext;
		}
		setAttribute(_key, _value) {
			return this;
		}
		setAttributes(_attributes) {
			return this;
		}
		addEvent(_name, _attributes) {
			return this;
		}
		addLink(_link) {
			return this;
		}
		addLinks(_links) {
			return this;
		}
		setStatus(_status) {
			return this;
		}
		updateName(_name) {
			return this;
		}
		end(_endTime) {}
		isRecording() {
			return false;
		}
		recordException(_exception, _time) {}
	};
	exports.NonRecordingSpan = NonRecordingSpan;
}));
// node_modules/@opentelemetry/api/dist/trace/spancontext-utils.cjs
var require_spancontext_utils$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	require_invalid_span_constants$1();
	const require_NonRecordingSpan = require_NonRecordingSpan$1();
	const isHex = new Uint8Array([
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		1,
		1,
		1,
		1,
		1,
		1,
		1,
		1,
		1,
		1,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		1,
		1,
		1,
		1,
		1,
		1,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		1,
		1,
		1,
		1,
		1,
		1
	]);
	function isValidHex(id, length) {
		if (typeof id !== "string" || id.length !== length) return false;
		let r = 0;
		for (let i = 0; i < id.length; i += 4) r += (isHex[id.charCodeAt(i)] | 0) + (isHex[id.charCodeAt(i + 1)] | 0) + (isHex[id.charCodeAt(i + 2)] | 0) + (isHex[id.charCodeAt(i + 3)] | 0);
		return r === length;
	}
	/**
	* @since 1.0.0
	*/
	function isValidTraceId(traceId) {
		return isValidHex(traceId, 32) && traceId !== "00000000000000000000000000000000";
	}
	/**
	* @since 1.0.0
	*/
	function isValidSpanId(spanId) {
		return isValidHex(spanId, 16) && spanId !== "0000000000000000";
	}
	/**
	* Returns true if this {@link SpanContext} is valid.
	* @return true if this {@link SpanContext} is valid.
	*
	* @since 1.0.0
	*/
	function isSpanContextValid(spanContext) {
		return isValidTraceId(spanContext.traceId) && isValidSpanId(spanContext.spanId);
	}
	/**
	* Wrap the given {@link SpanContext} in a new non-recording {@link Span}
	*
	* @param spanContext span context to be wrapped
	* @returns a new non-recording {@link Span} with the provided context
	*/
	function wrapSpanContext(spanContext) {
		return new require_NonRecordingSpan.NonRecordingSpan(spanContext);
	}
	exports.isSpanContextValid = isSpanContextValid;
	exports.isValidSpanId = isValidSpanId;
	exports.isValidTraceId = isValidTraceId;
	exports.wrapSpanContext = wrapSpanContext;
}));
// node_modules/@opentelemetry/api/dist/context/NoopContextManager.cjs
var require_NoopContextManager$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_context = require_context$3();
	var NoopContextManager = class {
		active() {
			return require_context.ROOT_CONTEXT;
		}
		with(_context, fn, thisArg, ...args) {
			return fn.call(thisArg, ...args);
		}
		bind(_context, target) {
			return target;
		}
		enable() {
			return this;
		}
		disable() {
			return this;
		}
		/** @experimental This API is experimental and may change in minor releases without prior notice. */
		attach(_context) {
			return { dispose() {} };
		}
	};
	exports.NoopContextManager = NoopContextManager;
}));
// node_modules/@opentelemetry/api/dist/api/context.cjs
var require_context$2 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_diag = require_diag$1();
	const require_NoopContextManager = require_NoopContextManager$1();
	const API_NAME = "context";
	const NOOP_CONTEXT_MANAGER = new require_NoopContextManager.NoopContextManager();
	const NOOP_TOKEN = Object.freeze({ dispose: () => {} });
	exports.ContextAPI = class ContextAPI {
		/** Empty private constructor prevents end users from constructing a new instance of the API */
		constructor() {
			this._attachUnsupportedWarned = false;
		}
		/** Get the singleton instance of the Context API */
		static getInstance() {
			if (!this._instance) this._instance = new ContextAPI();
			return this._instance;
		}
		/**
		* Set the current context manager.
		*
		* @returns true if the context manager was successfully registered, else false
		*/
		setGlobalContextManager(contextManager) {
			return require_global_utils.registerGlobal(API_NAME, contextManager, require_diag.DiagAPI.instance());
		}
		/**
		* Get the currently active context
		*/
		active() {
			return this._getContextManager().active();
		}
		/**
		* Execute a function with an active context
		*
		* @param context context to be active during function execution
		* @param fn function to execute in a context
		* @param thisArg optional receiver to be used for calling fn
		* @param args optional arguments forwarded to fn
		*/
		with(context, fn, thisArg, ...args) {
			return this._getContextManager().with(context, fn, thisArg, ...args);
		}
		/**
		* Bind a context to a target function or event emitter
		*
		* @param context context to bind to the event emitter or function. Defaults to the currently active context
		* @param target function or event emitter to bind
		*/
		bind(context, target) {
			return this._getContextManager().bind(context, target);
		}
		/**
		* Imperatively sets `context` as active, returning a {@link ContextManagementToken} whose
		* {@link ContextManagementToken.dispose} restores the previous context.
		*
		* This is a delicate, low-level API - prefer {@link with}/{@link bind}, which
		* restore context automatically. Use `attach` only to bridge callback
		* boundaries that `with` cannot wrap. Call `token.dispose()` when the
		* operation is done.
		*
		* **Caveat for async functions:** If called inside an async function before
		* the first `await`, the context change may leak into the caller's context
		* and remain active there. Prefer {@link with} for async code.
		*
		* Support is best-effort and varies by the active ContextManager (see
		* {@link ContextManager.attach}); if it does not implement `attach`, this logs
		* a warning and returns a no-op token.
		*
		* @param context The Context to attach
		* @returns A {@link ContextManagementToken} whose dispose() restores the previous Context
		* @since 1.10.0
		* @experimental This API is experimental and may change in minor releases without prior notice.
		*/
		attach(context) {
			const contextManager = this._getContextManager();
			if (contextManager.attach) return contextManager.attach(context);
			if (!this._attachUnsupportedWarned) {
				this._attachUnsupportedWarned = true;
				require_diag.DiagAPI.instance().warn("The current ContextManager does not implement attach(). The context will not be attached. Use a ContextManager that supports attach() (e.g. AsyncLocalStorageContextManager) or use with()/bind() instead.");
			}
			return NOOP_TOKEN;
		}
		_getContextManager() {
			return require_global_utils.getGlobal(API_NAME) || NOOP_CONTEXT_MANAGER;
		}
		/** Disable and remove the global context manager */
		disable() {
			this._getContextManager().disable();
			require_global_utils.unregisterGlobal(API_NAME, require_diag.DiagAPI.instance());
		}
	};
}));
// node_modules/@opentelemetry/api/dist/trace/context-utils.cjs
var require_context_utils$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_context = require_context$3();
	const require_context$1 = require_context$2();
	const require_NonRecordingSpan = require_NonRecordingSpan$1();
	/**
	* span key
	*/
	const SPAN_KEY = require_context.createContextKey("OpenTelemetry Context Key SPAN");
	/**
	* Return the span if one exists
	*
	* @param context context to get span from
	*/
	function getSpan(context) {
		return context.getValue(SPAN_KEY) || void 0;
	}
	/**
	* Gets the span from the current context, if one exists.
	*/
	function getActiveSpan() {
		return getSpan(require_context$1.ContextAPI.getInstance().active());
	}
	/**
	* Set the span on a context
	*
	* @param context context to use as parent
	* @param span span to set active
	*/
	function setSpan(context, span) {
		return context.setValue(SPAN_KEY, span);
	}
	/**
	* Remove current span stored in the context
	*
	* @param context context to delete span from
	*/
	function deleteSpan(context) {
		return context.deleteValue(SPAN_KEY);
	}
	/**
	* Wrap span context in a NoopSpan and set as span in a new
	* context
	*
	* @param context context to set active span on
	* @param spanContext span context to be wrapped
	*/
	function setSpanContext(context, spanContext) {
		return setSpan(context, new require_NonRecordingSpan.NonRecordingSpan(spanContext));
	}
	/**
	* Get the span context of the span if it exists.
	*
	* @param context context to get values from
	*/
	function getSpanContext(context) {
		var _getSpan;
		return (_getSpan = getSpan(context)) === null || _getSpan === void 0 ? void 0 : _getSpan.spanContext();
	}
	exports.deleteSpan = deleteSpan;
	exports.getActiveSpan = getActiveSpan;
	exports.getSpan = getSpan;
	exports.getSpanContext = getSpanContext;
	exports.setSpan = setSpan;
	exports.setSpanContext = setSpanContext;
}));
// node_modules/@opentelemetry/api/dist/trace/NoopTracer.cjs
var require_NoopTracer$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_context = require_context$2();
	const require_NonRecordingSpan = require_NonRecordingSpan$1();
	const require_context_utils = require_context_utils$1();
	const require_spancontext_utils = require_spancontext_utils$1();
	const contextApi = require_context.ContextAPI.getInstance();
	/**
	* No-op implementations of {@link Tracer}.
	*/
	var NoopTracer = class {
		startSpan(name, options, context = contextApi.active()) {
			if (Boolean(options === null || options === void 0 ? void 0 : options.root)) return new require_NonRecordingSpan.NonRecordingSpan();
			const parentFromContext = context && require_context_utils.getSpanContext(context);
			if (isSpanContext(parentFromContext) && require_spancontext_utils.isSpanContextValid(parentFromContext)) return new require_NonRecordingSpan.NonRecordingSpan(parentFromContext);
			else return new require_NonRecordingSpan.NonRecordingSpan();
		}
		startActiveSpan(name, arg2, arg3, arg4) {
			var _ctx;
			let opts;
			let ctx;
			let fn;
			if (arguments.length < 2) return;
			else if (arguments.length === 2) fn = arg2;
			else if (arguments.length === 3) {
				opts = arg2;
				fn = arg3;
			} else {
				opts = arg2;
				ctx = arg3;
				fn = arg4;
			}
			const parentContext = (_ctx = ctx) !== null && _ctx !== void 0 ? _ctx : contextApi.active();
			const span = this.startSpan(name, opts, parentContext);
			const contextWithSpanSet = require_context_utils.setSpan(parentContext, span);
			return contextApi.with(contextWithSpanSet, fn, void 0, span);
		}
	};
	function isSpanContext(spanContext) {
		return spanContext !== null && typeof spanContext === "object" && "spanId" in spanContext && typeof spanContext["spanId"] === "string" && "traceId" in spanContext && typeof spanContext["traceId"] === "string" && "traceFlags" in spanContext && typeof spanContext["traceFlags"] === "number";
	}
	exports.NoopTracer = NoopTracer;
}));
// node_modules/@opentelemetry/api/dist/trace/ProxyTracer.cjs
var require_ProxyTracer$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const NOOP_TRACER = new (require_NoopTracer$1()).NoopTracer();
	/**
	* Proxy tracer provided by the proxy tracer provider
	*
	* @since 1.0.0
	*/
	var ProxyTracer = class {
		constructor(provider, name, version, options) {
			this._provider = provider;
			this.name = name;
			this.version = version;
			this.options = options;
		}
		startSpan(name, options, context) {
			return this._getTracer().startSpan(name, options, context);
		}
		startActiveSpan(_name, _options, _context, _fn) {
			const tracer = this._getTracer();
			return Reflect.apply(tracer.startActiveSpan, tracer, arguments);
		}
		/**
		* Try to get a tracer from the proxy tracer provider.
		* If the proxy tracer provider has no delegate, return a noop tracer.
		*/
		_getTracer() {
			if (this._delegate) return this._delegate;
			const tracer = this._provider.getDelegateTracer(this.name, this.version, this.options);
			if (!tracer) return NOOP_TRACER;
			this._delegate = tracer;
			return this._delegate;
		}
	};
	exports.ProxyTracer = ProxyTracer;
}));
// node_modules/@opentelemetry/api/dist/trace/span_kind.cjs
var require_span_kind$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.SpanKind = /* @__PURE__ */ function(SpanKind) {
		/** Default value. Indicates that the span is used internally. */
		SpanKind[SpanKind["INTERNAL"] = 0] = "INTERNAL";
		/**
		* Indicates that the span covers server-side handling of an RPC or other
		* remote request.
		*/
		SpanKind[SpanKind["SERVER"] = 1] = "SERVER";
		/**
		* Indicates that the span covers the client-side wrapper around an RPC or
		* other remote request.
		*/
		SpanKind[SpanKind["CLIENT"] = 2] = "CLIENT";
		/**
		* Indicates that the span describes producer sending a message to a
		* broker. Unlike client and server, there is no direct critical path latency
		* relationship between producer and consumer spans.
		*/
		SpanKind[SpanKind["PRODUCER"] = 3] = "PRODUCER";
		/**
		* Indicates that the span describes consumer receiving a message from a
		* broker. Unlike client and server, there is no direct critical path latency
		* relationship between producer and consumer spans.
		*/
		SpanKind[SpanKind["CONSUMER"] = 4] = "CONSUMER";
		return SpanKind;
	}({});
}));
// node_modules/@opentelemetry/api/dist/trace/status.cjs
var require_status$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.SpanStatusCode = /* @__PURE__ */ function(SpanStatusCode) {
		/**
		* The default status.
		*/
		SpanStatusCode[SpanStatusCode["UNSET"] = 0] = "UNSET";
		/**
		* The operation has been validated by an Application developer or
		* Operator to have completed successfully.
		*/
		SpanStatusCode[SpanStatusCode["OK"] = 1] = "OK";
		/**
		* The operation contains an error.
		*/
		SpanStatusCode[SpanStatusCode["ERROR"] = 2] = "ERROR";
		return SpanStatusCode;
	}({});
}));
// node_modules/@opentelemetry/api/dist/trace/internal/tracestate-validators.cjs
var require_tracestate_validators$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const VALID_KEY_CHAR_RANGE = "[_0-9a-z-*/]";
	const VALID_KEY_REGEX = new RegExp(`^(?:${`[a-z]${VALID_KEY_CHAR_RANGE}{0,255}`}|${`[a-z0-9]${VALID_KEY_CHAR_RANGE}{0,240}@[a-z]${VALID_KEY_CHAR_RANGE}{0,13}`})$`);
	const VALID_VALUE_BASE_REGEX = /^[ -~]{0,255}[!-~]$/;
	const INVALID_VALUE_COMMA_EQUAL_REGEX = /,|=/;
	/**
	* Key is opaque string up to 256 characters printable. It MUST begin with a
	* lowercase letter, and can only contain lowercase letters a-z, digits 0-9,
	* underscores _, dashes -, asterisks *, and forward slashes /.
	* For multi-tenant vendor scenarios, an at sign (@) can be used to prefix the
	* vendor name. Vendors SHOULD set the tenant ID at the beginning of the key.
	* see https://www.w3.org/TR/trace-context/#key
	*/
	function validateKey(key) {
		return VALID_KEY_REGEX.test(key);
	}
	/**
	* Value is opaque string up to 256 characters printable ASCII RFC0020
	* characters (i.e., the range 0x20 to 0x7E) except comma , and =.
	*/
	function validateValue(value) {
		return VALID_VALUE_BASE_REGEX.test(value) && !INVALID_VALUE_COMMA_EQUAL_REGEX.test(value);
	}
	exports.validateKey = validateKey;
	exports.validateValue = validateValue;
}));
// node_modules/@opentelemetry/api/dist/trace/internal/tracestate-impl.cjs
var require_tracestate_impl$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_tracestate_validators = require_tracestate_validators$1();
	const MAX_TRACE_STATE_ITEMS = 32;
	const MAX_TRACE_STATE_LEN = 512;
	const LIST_MEMBERS_SEPARATOR = ",";
	const LIST_MEMBER_KEY_VALUE_SPLITTER = "=";
	exports.TraceStateImpl = class TraceStateImpl {
		constructor(rawTraceState) {
			this._internalState = /* @__PURE__ */ new Map();
			if (rawTraceState) this._parse(rawTraceState);
		}
		set(key, value) {
			const currValue = this._internalState.get(key);
			let newLength = this.serialize().length;
			if (typeof currValue === "string") newLength += value.length - currValue.length;
			else {
				if (this._internalState.size >= MAX_TRACE_STATE_ITEMS) return this;
				newLength += key.length + value.length + (this._internalState.size > 0 ? 2 : 1);
			}
			if (newLength > MAX_TRACE_STATE_LEN) return this;
			const traceState = this._clone();
			if (traceState._internalState.has(key)) traceState._internalState.delete(key);
			traceState._internalState.set(key, value);
			return traceState;
		}
		unset(key) {
			const traceState = this._clone();
			traceState._internalState.delete(key);
			return traceState;
		}
		get(key) {
			return this._internalState.get(key);
		}
		serialize() {
			return Array.from(this._internalState.keys()).reduceRight((agg, key) => {
				agg.push(key + LIST_MEMBER_KEY_VALUE_SPLITTER + this.get(key));
				return agg;
			}, []).join(LIST_MEMBERS_SEPARATOR);
		}
		_parse(rawTraceState) {
			if (rawTraceState.length > MAX_TRACE_STATE_LEN) return;
			this._internalState = rawTraceState.split(LIST_MEMBERS_SEPARATOR).reduceRight((agg, part) => {
				const listMember = part.trim();
				const i = listMember.indexOf(LIST_MEMBER_KEY_VALUE_SPLITTER);
				if (i !== -1) {
					const key = listMember.slice(0, i);
					const value = listMember.slice(i + 1, part.length);
					if (require_tracestate_validators.validateKey(key) && require_tracestate_validators.validateValue(value)) agg.set(key, value);
				}
				return agg;
			}, /* @__PURE__ */ new Map());
			if (this._internalState.size > MAX_TRACE_STATE_ITEMS) this._internalState = new Map(Array.from(this._internalState.entries()).reverse().slice(0, MAX_TRACE_STATE_ITEMS));
		}
		_keys() {
			return Array.from(this._internalState.keys()).reverse();
		}
		_clone() {
			const traceState = new TraceStateImpl();
			traceState._internalState = new Map(this._internalState);
			return traceState;
		}
	};
}));
// node_modules/@opentelemetry/api/dist/trace/internal/utils.cjs
var require_utils$2 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_tracestate_impl = require_tracestate_impl$1();
	/**
	* @deprecated Use TraceState from "@opentelemetry/core". This will be removed in the next major version.
	* @since 1.1.0
	*/
	function createTraceState(rawTraceState) {
		return new require_tracestate_impl.TraceStateImpl(rawTraceState);
	}
	exports.createTraceState = createTraceState;
}));
// node_modules/@opentelemetry/api/dist/trace/NoopTracerProvider.cjs
var require_NoopTracerProvider = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_NoopTracer = require_NoopTracer$1();
	/**
	* An implementation of the {@link TracerProvider} which returns an impotent
	* Tracer for all calls to `getTracer`.
	*
	* All operations are no-op.
	*/
	var NoopTracerProvider = class {
		getTracer(_name, _version, _options) {
			return new require_NoopTracer.NoopTracer();
		}
	};
	exports.NoopTracerProvider = NoopTracerProvider;
}));
// node_modules/@opentelemetry/api/dist/trace/ProxyTracerProvider.cjs
var require_ProxyTracerProvider$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_ProxyTracer = require_ProxyTracer$1();
	const NOOP_TRACER_PROVIDER = new (require_NoopTracerProvider()).NoopTracerProvider();
	/**
	* Tracer provider which provides {@link ProxyTracer}s.
	*
	* Before a delegate is set, tracers provided are NoOp.
	*   When a delegate is set, traces are provided from the delegate.
	*   When a delegate is set after tracers have already been provided,
	*   all tracers already provided will use the provided delegate implementation.
	*
	* @deprecated This will be removed in the next major version.
	* @since 1.0.0
	*/
	var ProxyTracerProvider = class {
		/**
		* Get a {@link ProxyTracer}
		*/
		getTracer(name, version, options) {
			var _this$getDelegateTrac;
			return (_this$getDelegateTrac = this.getDelegateTracer(name, version, options)) !== null && _this$getDelegateTrac !== void 0 ? _this$getDelegateTrac : new require_ProxyTracer.ProxyTracer(this, name, version, options);
		}
		getDelegate() {
			var _this$_delegate;
			return (_this$_delegate = this._delegate) !== null && _this$_delegate !== void 0 ? _this$_delegate : NOOP_TRACER_PROVIDER;
		}
		/**
		* Set the delegate tracer provider
		*/
		setDelegate(delegate) {
			this._delegate = delegate;
		}
		getDelegateTracer(name, version, options) {
			var _this$_delegate2;
			return (_this$_delegate2 = this._delegate) === null || _this$_delegate2 === void 0 ? void 0 : _this$_delegate2.getTracer(name, version, options);
		}
	};
	exports.ProxyTracerProvider = ProxyTracerProvider;
}));
// node_modules/@opentelemetry/api/dist/trace/SamplingResult.cjs
var require_SamplingResult$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.SamplingDecision = /* @__PURE__ */ function(SamplingDecision) {
		/**
		* `Span.isRecording() === false`, span will not be recorded and all events
		* and attributes will be dropped.
		*/
		SamplingDecision[SamplingDecision["NOT_RECORD"] = 0] = "NOT_RECORD";
		/**
		* `Span.isRecording() === true`, but `Sampled` flag in {@link TraceFlags}
		* MUST NOT be set.
		*/
		SamplingDecision[SamplingDecision["RECORD"] = 1] = "RECORD";
		/**
		* `Span.isRecording() === true` AND `Sampled` flag in {@link TraceFlags}
		* MUST be set.
		*/
		SamplingDecision[SamplingDecision["RECORD_AND_SAMPLED"] = 2] = "RECORD_AND_SAMPLED";
		return SamplingDecision;
	}({});
}));
// node_modules/@opentelemetry/api/dist/context-api.cjs
var require_context_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.context = require_context$2().ContextAPI.getInstance();
}));
// node_modules/@opentelemetry/api/dist/diag-api.cjs
var require_diag_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.diag = require_diag$1().DiagAPI.instance();
}));
// node_modules/@opentelemetry/api/dist/logs/NoopLoggerProvider.cjs
var require_NoopLoggerProvider$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_NoopLogger = require_NoopLogger$1();
	var NoopLoggerProvider = class {
		getLogger(_name, _version, _options) {
			return new require_NoopLogger.NoopLogger();
		}
	};
	exports.NOOP_LOGGER_PROVIDER = new NoopLoggerProvider();
	exports.NoopLoggerProvider = NoopLoggerProvider;
}));
// node_modules/@opentelemetry/api/dist/logs/ProxyLogger.cjs
var require_ProxyLogger$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_NoopLogger = require_NoopLogger$1();
	var ProxyLogger = class {
		constructor(provider, name, version, options) {
			this._provider = provider;
			this.name = name;
			this.version = version;
			this.options = options;
		}
		/**
		* Emit a log record. This method should only be used by log appenders.
		*
		* @param logRecord
		*/
		emit(logRecord) {
			this._getLogger().emit(logRecord);
		}
		enabled(options) {
			return this._getLogger().enabled(options);
		}
		/**
		* Try to get a logger from the proxy logger provider.
		* If the proxy logger provider has no delegate, return a noop logger.
		*/
		_getLogger() {
			if (this._delegate) return this._delegate;
			const logger = this._provider._getDelegateLogger(this.name, this.version, this.options);
			if (!logger) return require_NoopLogger.NOOP_LOGGER;
			this._delegate = logger;
			return this._delegate;
		}
	};
	exports.ProxyLogger = ProxyLogger;
}));
// node_modules/@opentelemetry/api/dist/logs/ProxyLoggerProvider.cjs
var require_ProxyLoggerProvider$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_NoopLoggerProvider = require_NoopLoggerProvider$1();
	const require_ProxyLogger = require_ProxyLogger$1();
	var ProxyLoggerProvider = class {
		getLogger(name, version, options) {
			var _this$_getDelegateLog;
			return (_this$_getDelegateLog = this._getDelegateLogger(name, version, options)) !== null && _this$_getDelegateLog !== void 0 ? _this$_getDelegateLog : new require_ProxyLogger.ProxyLogger(this, name, version, options);
		}
		/**
		* Get the delegate logger provider.
		* Used by tests only.
		* @internal
		*/
		_getDelegate() {
			var _this$_delegate;
			return (_this$_delegate = this._delegate) !== null && _this$_delegate !== void 0 ? _this$_delegate : require_NoopLoggerProvider.NOOP_LOGGER_PROVIDER;
		}
		/**
		* Set the delegate logger provider
		* @internal
		*/
		_setDelegate(delegate) {
			this._delegate = delegate;
		}
		/**
		* @internal
		*/
		_getDelegateLogger(name, version, options) {
			var _this$_delegate2;
			return (_this$_delegate2 = this._delegate) === null || _this$_delegate2 === void 0 ? void 0 : _this$_delegate2.getLogger(name, version, options);
		}
	};
	exports.ProxyLoggerProvider = ProxyLoggerProvider;
}));
// node_modules/@opentelemetry/api/dist/api/logs.cjs
var require_logs = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_diag = require_diag$1();
	const require_ProxyLoggerProvider = require_ProxyLoggerProvider$1();
	const API_NAME = "logs";
	exports.LogsAPI = class LogsAPI {
		/** Empty private constructor prevents end users from constructing a new instance of the API */
		constructor() {
			this._proxyLoggerProvider = new require_ProxyLoggerProvider.ProxyLoggerProvider();
		}
		/** Get the singleton instance of the Logs API */
		static getInstance() {
			if (!this._instance) this._instance = new LogsAPI();
			return this._instance;
		}
		setGlobalLoggerProvider(provider) {
			const success = require_global_utils.registerGlobal(API_NAME, provider, require_diag.DiagAPI.instance());
			if (success) this._proxyLoggerProvider._setDelegate(provider);
			return success;
		}
		/**
		* Returns the global logger provider.
		*
		* @returns LoggerProvider
		*/
		getLoggerProvider() {
			return require_global_utils.getGlobal(API_NAME) || this._proxyLoggerProvider;
		}
		/**
		* Returns a Logger, creating one if one with the given name, version,
		* schemaUrl, and attributes is not already created.
		*
		* Getting a Logger may be expensive, especially when `attributes` are
		* provided. Reuse Logger instances where possible instead of calling
		* `getLogger()` on hot paths.
		*
		* @param name The name of the logger or instrumentation library.
		* @param version The version of the logger or instrumentation library.
		* @param options The options of the logger or instrumentation library.
		* @returns {@link Logger}
		*/
		getLogger(name, version, options) {
			return this.getLoggerProvider().getLogger(name, version, options);
		}
		/** Remove the global logger provider */
		disable() {
			require_global_utils.unregisterGlobal(API_NAME, require_diag.DiagAPI.instance());
			this._proxyLoggerProvider = new require_ProxyLoggerProvider.ProxyLoggerProvider();
		}
	};
}));
// node_modules/@opentelemetry/api/dist/logs-api.cjs
var require_logs_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.logs = require_logs().LogsAPI.getInstance();
}));
// node_modules/@opentelemetry/api/dist/metrics/NoopMeterProvider.cjs
var require_NoopMeterProvider$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_NoopMeter = require_NoopMeter$1();
	/**
	* An implementation of the {@link MeterProvider} which returns an impotent Meter
	* for all calls to `getMeter`
	*/
	var NoopMeterProvider = class {
		getMeter(_name, _version, _options) {
			return require_NoopMeter.NOOP_METER;
		}
	};
	exports.NOOP_METER_PROVIDER = new NoopMeterProvider();
	exports.NoopMeterProvider = NoopMeterProvider;
}));
// node_modules/@opentelemetry/api/dist/api/metrics.cjs
var require_metrics = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_diag = require_diag$1();
	const require_NoopMeterProvider = require_NoopMeterProvider$1();
	const API_NAME = "metrics";
	exports.MetricsAPI = class MetricsAPI {
		/** Empty private constructor prevents end users from constructing a new instance of the API */
		constructor() {}
		/** Get the singleton instance of the Metrics API */
		static getInstance() {
			if (!this._instance) this._instance = new MetricsAPI();
			return this._instance;
		}
		/**
		* Set the current global meter provider.
		* Returns true if the meter provider was successfully registered, else false.
		*/
		setGlobalMeterProvider(provider) {
			return require_global_utils.registerGlobal(API_NAME, provider, require_diag.DiagAPI.instance());
		}
		/**
		* Returns the global meter provider.
		*/
		getMeterProvider() {
			return require_global_utils.getGlobal(API_NAME) || require_NoopMeterProvider.NOOP_METER_PROVIDER;
		}
		/**
		* Returns a meter from the global meter provider.
		*/
		getMeter(name, version, options) {
			return this.getMeterProvider().getMeter(name, version, options);
		}
		/** Remove the global meter provider */
		disable() {
			require_global_utils.unregisterGlobal(API_NAME, require_diag.DiagAPI.instance());
		}
	};
}));
// node_modules/@opentelemetry/api/dist/metrics-api.cjs
var require_metrics_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.metrics = require_metrics().MetricsAPI.getInstance();
}));
// node_modules/@opentelemetry/api/dist/propagation/NoopTextMapPropagator.cjs
var require_NoopTextMapPropagator$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	/**
	* No-op implementations of {@link TextMapPropagator}.
	*/
	var NoopTextMapPropagator = class {
		/** Noop inject function does nothing */
		inject(_context, _carrier) {}
		/** Noop extract function does nothing and returns the input context */
		extract(context, _carrier) {
			return context;
		}
		fields() {
			return [];
		}
	};
	exports.NoopTextMapPropagator = NoopTextMapPropagator;
}));
// node_modules/@opentelemetry/api/dist/baggage/context-helpers.cjs
var require_context_helpers$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_context = require_context$3();
	const require_context$1 = require_context$2();
	/**
	* Baggage key
	*/
	const BAGGAGE_KEY = require_context.createContextKey("OpenTelemetry Baggage Key");
	/**
	* Retrieve the current baggage from the given context
	*
	* @param {Context} Context that manage all context values
	* @returns {Baggage} Extracted baggage from the context
	*/
	function getBaggage(context) {
		return context.getValue(BAGGAGE_KEY) || void 0;
	}
	/**
	* Retrieve the current baggage from the active/current context
	*
	* @returns {Baggage} Extracted baggage from the context
	*/
	function getActiveBaggage() {
		return getBaggage(require_context$1.ContextAPI.getInstance().active());
	}
	/**
	* Store a baggage in the given context
	*
	* @param {Context} Context that manage all context values
	* @param {Baggage} baggage that will be set in the actual context
	*/
	function setBaggage(context, baggage) {
		return context.setValue(BAGGAGE_KEY, baggage);
	}
	/**
	* Delete the baggage stored in the given context
	*
	* @param {Context} Context that manage all context values
	*/
	function deleteBaggage(context) {
		return context.deleteValue(BAGGAGE_KEY);
	}
	exports.deleteBaggage = deleteBaggage;
	exports.getActiveBaggage = getActiveBaggage;
	exports.getBaggage = getBaggage;
	exports.setBaggage = setBaggage;
}));
// node_modules/@opentelemetry/api/dist/api/propagation.cjs
var require_propagation = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_diag = require_diag$1();
	const require_utils = require_utils$3();
	const require_TextMapPropagator = require_TextMapPropagator$1();
	const require_NoopTextMapPropagator = require_NoopTextMapPropagator$1();
	const require_context_helpers = require_context_helpers$1();
	const API_NAME = "propagation";
	const NOOP_TEXT_MAP_PROPAGATOR = new require_NoopTextMapPropagator.NoopTextMapPropagator();
	exports.PropagationAPI = class PropagationAPI {
		/** Empty private constructor prevents end users from constructing a new instance of the API */
		constructor() {
			this.createBaggage = require_utils.createBaggage;
			this.getBaggage = require_context_helpers.getBaggage;
			this.getActiveBaggage = require_context_helpers.getActiveBaggage;
			this.setBaggage = require_context_helpers.setBaggage;
			this.deleteBaggage = require_context_helpers.deleteBaggage;
		}
		/** Get the singleton instance of the Propagator API */
		static getInstance() {
			if (!this._instance) this._instance = new PropagationAPI();
			return this._instance;
		}
		/**
		* Set the current propagator.
		*
		* @returns true if the propagator was successfully registered, else false
		*/
		setGlobalPropagator(propagator) {
			return require_global_utils.registerGlobal(API_NAME, propagator, require_diag.DiagAPI.instance());
		}
		/**
		* Inject context into a carrier to be propagated inter-process
		*
		* @param context Context carrying tracing data to inject
		* @param carrier carrier to inject context into
		* @param setter Function used to set values on the carrier
		*/
		inject(context, carrier, setter = require_TextMapPropagator.defaultTextMapSetter) {
			return this._getGlobalPropagator().inject(context, carrier, setter);
		}
		/**
		* Extract context from a carrier
		*
		* @param context Context which the newly created context will inherit from
		* @param carrier Carrier to extract context from
		* @param getter Function used to extract keys from a carrier
		*/
		extract(context, carrier, getter = require_TextMapPropagator.defaultTextMapGetter) {
			return this._getGlobalPropagator().extract(context, carrier, getter);
		}
		/**
		* Return a list of all fields which may be used by the propagator.
		*/
		fields() {
			return this._getGlobalPropagator().fields();
		}
		/** Remove the global propagator */
		disable() {
			require_global_utils.unregisterGlobal(API_NAME, require_diag.DiagAPI.instance());
		}
		_getGlobalPropagator() {
			return require_global_utils.getGlobal(API_NAME) || NOOP_TEXT_MAP_PROPAGATOR;
		}
	};
}));
// node_modules/@opentelemetry/api/dist/propagation-api.cjs
var require_propagation_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.propagation = require_propagation().PropagationAPI.getInstance();
}));
// node_modules/@opentelemetry/api/dist/api/trace.cjs
var require_trace = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const require_global_utils = require_global_utils$1();
	const require_diag = require_diag$1();
	const require_context_utils = require_context_utils$1();
	const require_spancontext_utils = require_spancontext_utils$1();
	const require_ProxyTracerProvider = require_ProxyTracerProvider$1();
	const API_NAME = "trace";
	exports.TraceAPI = class TraceAPI {
		/** Empty private constructor prevents end users from constructing a new instance of the API */
		constructor() {
			this._proxyTracerProvider = new require_ProxyTracerProvider.ProxyTracerProvider();
			this.wrapSpanContext = require_spancontext_utils.wrapSpanContext;
			this.isSpanContextValid = require_spancontext_utils.isSpanContextValid;
			this.deleteSpan = require_context_utils.deleteSpan;
			this.getSpan = require_context_utils.getSpan;
			this.getActiveSpan = require_context_utils.getActiveSpan;
			this.getSpanContext = require_context_utils.getSpanContext;
			this.setSpan = require_context_utils.setSpan;
			this.setSpanContext = require_context_utils.setSpanContext;
		}
		/** Get the singleton instance of the Trace API */
		static getInstance() {
			if (!this._instance) this._instance = new TraceAPI();
			return this._instance;
		}
		/**
		* Set the current global tracer.
		*
		* @returns true if the tracer provider was successfully registered, else false
		*/
		setGlobalTracerProvider(provider) {
			const success = require_global_utils.registerGlobal(API_NAME, this._proxyTracerProvider, require_diag.DiagAPI.instance());
			if (success) this._proxyTracerProvider.setDelegate(provider);
			return success;
		}
		/**
		* Returns the global tracer provider.
		*/
		getTracerProvider() {
			return require_global_utils.getGlobal(API_NAME) || this._proxyTracerProvider;
		}
		/**
		* Returns a tracer from the global tracer provider.
		*/
		getTracer(name, version) {
			return this.getTracerProvider().getTracer(name, version);
		}
		/** Remove the global tracer provider */
		disable() {
			require_global_utils.unregisterGlobal(API_NAME, require_diag.DiagAPI.instance());
			this._proxyTracerProvider = new require_ProxyTracerProvider.ProxyTracerProvider();
		}
	};
}));
// node_modules/@opentelemetry/api/dist/trace-api.cjs
var require_trace_api$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.trace = require_trace().TraceAPI.getInstance();
}));
// node_modules/@opentelemetry/api/dist/index.cjs
var require_dist = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	Object.defineProperties(exports, {
		__esModule: { value: true },
		[Symbol.toStringTag]: { value: "Module" }
	});
	const require_types = require_types$1();
	const require_utils = require_utils$3();
	const require_context = require_context$3();
	const require_consoleLogger = require_consoleLogger$1();
	const require_NoopMeter = require_NoopMeter$1();
	const require_Metric = require_Metric$1();
	const require_NoopLogger = require_NoopLogger$1();
	const require_LogRecord = require_LogRecord$1();
	const require_TextMapPropagator = require_TextMapPropagator$1();
	const require_trace_flags = require_trace_flags$1();
	const require_invalid_span_constants = require_invalid_span_constants$1();
	const require_spancontext_utils = require_spancontext_utils$1();
	const require_ProxyTracer = require_ProxyTracer$1();
	const require_span_kind = require_span_kind$1();
	const require_status = require_status$1();
	const require_utils$1 = require_utils$2();
	const require_ProxyTracerProvider = require_ProxyTracerProvider$1();
	const require_SamplingResult = require_SamplingResult$1();
	const require_context_api = require_context_api$1();
	const require_diag_api = require_diag_api$1();
	const require_logs_api = require_logs_api$1();
	const require_metrics_api = require_metrics_api$1();
	const require_propagation_api = require_propagation_api$1();
	const require_trace_api = require_trace_api$1();
	var src_default = {
		context: require_context_api.context,
		diag: require_diag_api.diag,
		logs: require_logs_api.logs,
		metrics: require_metrics_api.metrics,
		propagation: require_propagation_api.propagation,
		trace: require_trace_api.trace
	};
	exports.DiagConsoleLogger = require_consoleLogger.DiagConsoleLogger;
	exports.DiagLogLevel = require_types.DiagLogLevel;
	exports.INVALID_SPANID = require_invalid_span_constants.INVALID_SPANID;
	exports.INVALID_SPAN_CONTEXT = require_invalid_span_constants.INVALID_SPAN_CONTEXT;
	exports.INVALID_TRACEID = require_invalid_span_constants.INVALID_TRACEID;
	exports.ProxyTracer = require_ProxyTracer.ProxyTracer;
	exports.ProxyTracerProvider = require_ProxyTracerProvider.ProxyTracerProvider;
	exports.ROOT_CONTEXT = require_context.ROOT_CONTEXT;
	exports.SamplingDecision = require_SamplingResult.SamplingDecision;
	exports.SeverityNumber = require_LogRecord.SeverityNumber;
	exports.SpanKind = require_span_kind.SpanKind;
	exports.SpanStatusCode = require_status.SpanStatusCode;
	exports.TraceFlags = require_trace_flags.TraceFlags;
	exports.ValueType = require_Metric.ValueType;
	exports.baggageEntryMetadataFromString = require_utils.baggageEntryMetadataFromString;
	exports.context = require_context_api.context;
	exports.createContextKey = require_context.createContextKey;
	exports.createNoopLogger = require_NoopLogger.createNoopLogger;
	exports.createNoopMeter = require_NoopMeter.createNoopMeter;
	exports.createTraceState = require_utils$1.createTraceState;
	exports.default = src_default;
	exports.defaultTextMapGetter = require_TextMapPropagator.defaultTextMapGetter;
	exports.defaultTextMapSetter = require_TextMapPropagator.defaultTextMapSetter;
	exports.diag = require_diag_api.diag;
	exports.isSpanContextValid = require_spancontext_utils.isSpanContextValid;
	exports.isValidSpanId = require_spancontext_utils.isValidSpanId;
	exports.isValidTraceId = require_spancontext_utils.isValidTraceId;
	exports.logs = require_logs_api.logs;
	exports.metrics = require_metrics_api.metrics;
	exports.propagation = require_propagation_api.propagation;
	exports.trace = require_trace_api.trace;
}));
// node_modules/prom-client/lib/metrics/processCpuTotal.js
var require_processCpuTotal = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const OtelApi = require_dist();
	const Counter = require_counter();
	const PROCESS_CPU_USER_SECONDS = "process_cpu_user_seconds_total";
	const PROCESS_CPU_SYSTEM_SECONDS = "process_cpu_system_seconds_total";
	const PROCESS_CPU_SECONDS = "process_cpu_seconds_total";
	module.exports = (registry, config = {}) => {
		const registers = registry ? [registry] : void 0;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const exemplars = config.enableExemplars ? config.enableExemplars : false;
		const labelNames = Object.keys(labels);
		let lastCpuUsage = process.cpuUsage();
		const cpuUserUsageCounter = new Counter({
			name: namePrefix + PROCESS_CPU_USER_SECONDS,
			help: "Total user CPU time spent in seconds.",
			enableExemplars: exemplars,
			registers,
			labelNames,
			collect() {
				const cpuUsage = process.cpuUsage();
				const userUsageMicros = cpuUsage.user - lastCpuUsage.user;
				const systemUsageMicros = cpuUsage.system - lastCpuUsage.system;
				lastCpuUsage = cpuUsage;
				if (this.enableExemplars) {
					let exemplarLabels = {};
					const currentSpan = OtelApi.trace.getSpan(OtelApi.context.active());
					if (currentSpan) exemplarLabels = {
						traceId: currentSpan.spanContext().traceId,
						spanId: currentSpan.spanContext().spanId
					};
					cpuUserUsageCounter.inc({
						labels,
						value: userUsageMicros / 1e6,
						exemplarLabels
					});
					cpuSystemUsageCounter.inc({
						labels,
						value: systemUsageMicros / 1e6,
						exemplarLabels
					});
					cpuUsageCounter.inc({
						labels,
						value: (userUsageMicros + systemUsageMicros) / 1e6,
						exemplarLabels
					});
				} else {
					cpuUserUsageCounter.inc(labels, userUsageMicros / 1e6);
					cpuSystemUsageCounter.inc(labels, systemUsageMicros / 1e6);
					cpuUsageCounter.inc(labels, (userUsageMicros + systemUsageMicros) / 1e6);
				}
			}
		});
		const cpuSystemUsageCounter = new Counter({
			name: namePrefix + PROCESS_CPU_SYSTEM_SECONDS,
			help: "Total system CPU time spent in seconds.",
			enableExemplars: exemplars,
			registers,
			labelNames
		});
		const cpuUsageCounter = new Counter({
			name: namePrefix + PROCESS_CPU_SECONDS,
			help: "Total user and system CPU time spent in seconds.",
			enableExemplars: exemplars,
			registers,
			labelNames
		});
	};
	module.exports.metricNames = [
		PROCESS_CPU_USER_SECONDS,
		PROCESS_CPU_SYSTEM_SECONDS,
		PROCESS_CPU_SECONDS
	];
}));
// node_modules/prom-client/lib/metrics/processStartTime.js
var require_processStartTime = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const startInSeconds = Math.round(Date.now() / 1e3 - process.uptime());
	const PROCESS_START_TIME = "process_start_time_seconds";
	module.exports = (registry, config = {}) => {
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + PROCESS_START_TIME,
			help: "Start time of the process since unix epoch in seconds.",
			registers: registry ? [registry] : void 0,
			labelNames,
			aggregator: "omit",
			collect() {
				this.set(labels, startInSeconds);
			}
		});
	};
	module.exports.metricNames = [PROCESS_START_TIME];
}));
// node_modules/prom-client/lib/metrics/osMemoryHeapLinux.js
var require_osMemoryHeapLinux = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const fs = require("fs");
	const values = [
		"VmSize",
		"VmRSS",
		"VmData"
	];
	const PROCESS_RESIDENT_MEMORY = "process_resident_memory_bytes";
	const PROCESS_VIRTUAL_MEMORY = "process_virtual_memory_bytes";
	const PROCESS_HEAP = "process_heap_bytes";
	function structureOutput(input) {
		return input.split("\n").reduce((acc, string) => {
			if (!values.some((value) => string.startsWith(value))) return acc;
			const split = string.split(":");
			let value = split[1].trim();
			value = value.substr(0, value.length - 3);
			value = Number(value) * 1024;
			acc[split[0]] = value;
			return acc;
		}, {});
	}
	module.exports = (registry, config = {}) => {
		const registers = registry ? [registry] : void 0;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		const residentMemGauge = new Gauge({
			name: namePrefix + PROCESS_RESIDENT_MEMORY,
			help: "Resident memory size in bytes.",
			registers,
			labelNames,
			collect() {
				try {
					const structuredOutput = structureOutput(fs.readFileSync("/proc/self/status", "utf8"));
					residentMemGauge.set(labels, structuredOutput.VmRSS);
					virtualMemGauge.set(labels, structuredOutput.VmSize);
					heapSizeMemGauge.set(labels, structuredOutput.VmData);
				} catch {}
			}
		});
		const virtualMemGauge = new Gauge({
			name: namePrefix + PROCESS_VIRTUAL_MEMORY,
			help: "Virtual memory size in bytes.",
			registers,
			labelNames
		});
		const heapSizeMemGauge = new Gauge({
			name: namePrefix + PROCESS_HEAP,
			help: "Process heap size in bytes.",
			registers,
			labelNames
		});
	};
	module.exports.metricNames = [
		PROCESS_RESIDENT_MEMORY,
		PROCESS_VIRTUAL_MEMORY,
		PROCESS_HEAP
	];
}));
// node_modules/prom-client/lib/metrics/helpers/safeMemoryUsage.js
var require_safeMemoryUsage = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	function safeMemoryUsage() {
		try {
			return process.memoryUsage();
		} catch {
			return;
		}
	}
	module.exports = safeMemoryUsage;
}));
// node_modules/prom-client/lib/metrics/osMemoryHeap.js
var require_osMemoryHeap = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const linuxVariant = require_osMemoryHeapLinux();
	const safeMemoryUsage = require_safeMemoryUsage();
	const PROCESS_RESIDENT_MEMORY = "process_resident_memory_bytes";
	function notLinuxVariant(registry, config = {}) {
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + PROCESS_RESIDENT_MEMORY,
			help: "Resident memory size in bytes.",
			registers: registry ? [registry] : void 0,
			labelNames,
			collect() {
				const memUsage = safeMemoryUsage();
				if (memUsage) this.set(labels, memUsage.rss);
			}
		});
	}
	module.exports = (registry, config) => process.platform === "linux" ? linuxVariant(registry, config) : notLinuxVariant(registry, config);
	module.exports.metricNames = process.platform === "linux" ? linuxVariant.metricNames : [PROCESS_RESIDENT_MEMORY];
}));
// node_modules/prom-client/lib/metrics/processOpenFileDescriptors.js
var require_processOpenFileDescriptors = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const fs = require("fs");
	const process = require("process");
	const PROCESS_OPEN_FDS = "process_open_fds";
	module.exports = (registry, config = {}) => {
		if (process.platform !== "linux") return;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + PROCESS_OPEN_FDS,
			help: "Number of open file descriptors.",
			registers: registry ? [registry] : void 0,
			labelNames,
			collect() {
				try {
					const fds = fs.readdirSync("/proc/self/fd");
					this.set(labels, fds.length - 1);
				} catch {}
			}
		});
	};
	module.exports.metricNames = [PROCESS_OPEN_FDS];
}));
// node_modules/prom-client/lib/metrics/processMaxFileDescriptors.js
var require_processMaxFileDescriptors = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const fs = require("fs");
	const PROCESS_MAX_FDS = "process_max_fds";
	let maxFds;
	module.exports = (registry, config = {}) => {
		if (maxFds === void 0) try {
			const lines = fs.readFileSync("/proc/self/limits", "utf8").split("\n");
			for (const line of lines) if (line.startsWith("Max open files")) {
				const parts = line.split(/  +/);
				maxFds = Number(parts[1]);
				break;
			}
		} catch {
			return;
		}
		if (maxFds === void 0) return;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + PROCESS_MAX_FDS,
			help: "Maximum number of open file descriptors.",
			registers: registry ? [registry] : void 0,
			labelNames,
			collect() {
				if (maxFds !== void 0) this.set(labels, maxFds);
			}
		});
	};
	module.exports.metricNames = [PROCESS_MAX_FDS];
}));
// node_modules/prom-client/lib/metrics/eventLoopLag.js
var require_eventLoopLag = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	let perf_hooks;
	try {
		perf_hooks = require("perf_hooks");
	} catch {}
	const NODEJS_EVENTLOOP_LAG = "nodejs_eventloop_lag_seconds";
	const NODEJS_EVENTLOOP_LAG_MIN = "nodejs_eventloop_lag_min_seconds";
	const NODEJS_EVENTLOOP_LAG_MAX = "nodejs_eventloop_lag_max_seconds";
	const NODEJS_EVENTLOOP_LAG_MEAN = "nodejs_eventloop_lag_mean_seconds";
	const NODEJS_EVENTLOOP_LAG_STDDEV = "nodejs_eventloop_lag_stddev_seconds";
	const NODEJS_EVENTLOOP_LAG_P50 = "nodejs_eventloop_lag_p50_seconds";
	const NODEJS_EVENTLOOP_LAG_P90 = "nodejs_eventloop_lag_p90_seconds";
	const NODEJS_EVENTLOOP_LAG_P99 = "nodejs_eventloop_lag_p99_seconds";
	function reportEventloopLag(start, gauge, labels) {
		const delta = process.hrtime(start);
		const seconds = (delta[0] * 1e9 + delta[1]) / 1e9;
		gauge.set(labels, seconds);
	}
	module.exports = (registry, config = {}) => {
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		const registers = registry ? [registry] : void 0;
		let collect = () => {
			const start = process.hrtime();
			setImmediate(reportEventloopLag, start, lag, labels);
		};
		if (perf_hooks && perf_hooks.monitorEventLoopDelay) try {
			const histogram = perf_hooks.monitorEventLoopDelay({ resolution: config.eventLoopMonitoringPrecision });
			histogram.enable();
			collect = () => {
				const start = process.hrtime();
				setImmediate(reportEventloopLag, start, lag, labels);
				lagMin.set(labels, histogram.min / 1e9);
				lagMax.set(labels, histogram.max / 1e9);
				lagMean.set(labels, histogram.mean / 1e9);
				lagStddev.set(labels, histogram.stddev / 1e9);
				lagP50.set(labels, histogram.percentile(50) / 1e9);
				lagP90.set(labels, histogram.percentile(90) / 1e9);
				lagP99.set(labels, histogram.percentile(99) / 1e9);
				histogram.reset();
			};
		} catch (e) {
			if (e.code === "ERR_NOT_IMPLEMENTED") return;
			throw e;
		}
		const lag = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG,
			help: "Lag of event loop in seconds.",
			registers,
			labelNames,
			aggregator: "average",
			collect
		});
		const lagMin = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_MIN,
			help: "The minimum recorded event loop delay.",
			registers,
			labelNames,
			aggregator: "min"
		});
		const lagMax = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_MAX,
			help: "The maximum recorded event loop delay.",
			registers,
			labelNames,
			aggregator: "max"
		});
		const lagMean = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_MEAN,
			help: "The mean of the recorded event loop delays.",
			registers,
			labelNames,
			aggregator: "average"
		});
		const lagStddev = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_STDDEV,
			help: "The standard deviation of the recorded event loop delays.",
			registers,
			labelNames,
			aggregator: "average"
		});
		const lagP50 = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_P50,
			help: "The 50th percentile of the recorded event loop delays.",
			registers,
			labelNames,
			aggregator: "average"
		});
		const lagP90 = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_P90,
			help: "The 90th percentile of the recorded event loop delays.",
			registers,
			labelNames,
			aggregator: "average"
		});
		const lagP99 = new Gauge({
			name: namePrefix + NODEJS_EVENTLOOP_LAG_P99,
			help: "The 99th percentile of the recorded event loop delays.",
			registers,
			labelNames,
			aggregator: "average"
		});
	};
	module.exports.metricNames = [
		NODEJS_EVENTLOOP_LAG,
		NODEJS_EVENTLOOP_LAG_MIN,
		NODEJS_EVENTLOOP_LAG_MAX,
		NODEJS_EVENTLOOP_LAG_MEAN,
		NODEJS_EVENTLOOP_LAG_STDDEV,
		NODEJS_EVENTLOOP_LAG_P50,
		NODEJS_EVENTLOOP_LAG_P90,
		NODEJS_EVENTLOOP_LAG_P99
	];
}));
// node_modules/prom-client/lib/metrics/helpers/processMetricsHelpers.js
var require_processMetricsHelpers = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	function aggregateByObjectName(list) {
		const data = {};
		for (let i = 0; i < list.length; i++) {
			const listElement = list[i];
			if (!listElement || typeof listElement.constructor === "undefined") continue;
			if (Object.hasOwnProperty.call(data, listElement.constructor.name)) data[listElement.constructor.name] += 1;
			else data[listElement.constructor.name] = 1;
		}
		return data;
	}
	function updateMetrics(gauge, data, labels) {
		gauge.reset();
		for (const key in data) gauge.set(Object.assign({ type: key }, labels || {}), data[key]);
	}
	module.exports = {
		aggregateByObjectName,
		updateMetrics
	};
}));
// node_modules/prom-client/lib/metrics/processHandles.js
var require_processHandles = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const { aggregateByObjectName } = require_processMetricsHelpers();
	const { updateMetrics } = require_processMetricsHelpers();
	const Gauge = require_gauge();
	const NODEJS_ACTIVE_HANDLES = "nodejs_active_handles";
	const NODEJS_ACTIVE_HANDLES_TOTAL = "nodejs_active_handles_total";
	module.exports = (registry, config = {}) => {
		if (typeof process._getActiveHandles !== "function") return;
		const registers = registry ? [registry] : void 0;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_HANDLES,
			help: "Number of active libuv handles grouped by handle type. Every handle type is C++ class name.",
			labelNames: ["type", ...labelNames],
			registers,
			collect() {
				const handles = process._getActiveHandles();
				updateMetrics(this, aggregateByObjectName(handles), labels);
			}
		});
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_HANDLES_TOTAL,
			help: "Total number of active handles.",
			registers,
			labelNames,
			collect() {
				const handles = process._getActiveHandles();
				this.set(labels, handles.length);
			}
		});
	};
	module.exports.metricNames = [NODEJS_ACTIVE_HANDLES, NODEJS_ACTIVE_HANDLES_TOTAL];
}));
// node_modules/prom-client/lib/metrics/processRequests.js
var require_processRequests = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const { aggregateByObjectName } = require_processMetricsHelpers();
	const { updateMetrics } = require_processMetricsHelpers();
	const NODEJS_ACTIVE_REQUESTS = "nodejs_active_requests";
	const NODEJS_ACTIVE_REQUESTS_TOTAL = "nodejs_active_requests_total";
	module.exports = (registry, config = {}) => {
		if (typeof process._getActiveRequests !== "function") return;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_REQUESTS,
			help: "Number of active libuv requests grouped by request type. Every request type is C++ class name.",
			labelNames: ["type", ...labelNames],
			registers: registry ? [registry] : void 0,
			collect() {
				const requests = process._getActiveRequests();
				updateMetrics(this, aggregateByObjectName(requests), labels);
			}
		});
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_REQUESTS_TOTAL,
			help: "Total number of active requests.",
			registers: registry ? [registry] : void 0,
			labelNames,
			collect() {
				const requests = process._getActiveRequests();
				this.set(labels, requests.length);
			}
		});
	};
	module.exports.metricNames = [NODEJS_ACTIVE_REQUESTS, NODEJS_ACTIVE_REQUESTS_TOTAL];
}));
// node_modules/prom-client/lib/metrics/processResources.js
var require_processResources = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const { updateMetrics } = require_processMetricsHelpers();
	const NODEJS_ACTIVE_RESOURCES = "nodejs_active_resources";
	const NODEJS_ACTIVE_RESOURCES_TOTAL = "nodejs_active_resources_total";
	module.exports = (registry, config = {}) => {
		if (typeof process.getActiveResourcesInfo !== "function") return;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_RESOURCES,
			help: "Number of active resources that are currently keeping the event loop alive, grouped by async resource type.",
			labelNames: ["type", ...labelNames],
			registers: registry ? [registry] : void 0,
			collect() {
				const resources = process.getActiveResourcesInfo();
				const data = {};
				for (let i = 0; i < resources.length; i++) {
					const resource = resources[i];
					if (Object.hasOwn(data, resource)) data[resource] += 1;
					else data[resource] = 1;
				}
				updateMetrics(this, data, labels);
			}
		});
		new Gauge({
			name: namePrefix + NODEJS_ACTIVE_RESOURCES_TOTAL,
			help: "Total number of active resources.",
			registers: registry ? [registry] : void 0,
			labelNames,
			collect() {
				const resources = process.getActiveResourcesInfo();
				this.set(labels, resources.length);
			}
		});
	};
	module.exports.metricNames = [NODEJS_ACTIVE_RESOURCES, NODEJS_ACTIVE_RESOURCES_TOTAL];
}));
// node_modules/prom-client/lib/metrics/heapSizeAndUsed.js
var require_heapSizeAndUsed = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const safeMemoryUsage = require_safeMemoryUsage();
	const NODEJS_HEAP_SIZE_TOTAL = "nodejs_heap_size_total_bytes";
	const NODEJS_HEAP_SIZE_USED = "nodejs_heap_size_used_bytes";
	const NODEJS_EXTERNAL_MEMORY = "nodejs_external_memory_bytes";
	module.exports = (registry, config = {}) => {
		if (typeof process.memoryUsage !== "function") return;
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		const registers = registry ? [registry] : void 0;
		const namePrefix = config.prefix ? config.prefix : "";
		const collect = () => {
			const memUsage = safeMemoryUsage();
			if (memUsage) {
				heapSizeTotal.set(labels, memUsage.heapTotal);
				heapSizeUsed.set(labels, memUsage.heapUsed);
				if (memUsage.external !== void 0) externalMemUsed.set(labels, memUsage.external);
			}
		};
		const heapSizeTotal = new Gauge({
			name: namePrefix + NODEJS_HEAP_SIZE_TOTAL,
			help: "Process heap size from Node.js in bytes.",
			registers,
			labelNames,
			collect
		});
		const heapSizeUsed = new Gauge({
			name: namePrefix + NODEJS_HEAP_SIZE_USED,
			help: "Process heap size used from Node.js in bytes.",
			registers,
			labelNames
		});
		const externalMemUsed = new Gauge({
			name: namePrefix + NODEJS_EXTERNAL_MEMORY,
			help: "Node.js external memory size in bytes.",
			registers,
			labelNames
		});
	};
	module.exports.metricNames = [
		NODEJS_HEAP_SIZE_TOTAL,
		NODEJS_HEAP_SIZE_USED,
		NODEJS_EXTERNAL_MEMORY
	];
}));
// node_modules/prom-client/lib/metrics/heapSpacesSizeAndUsed.js
var require_heapSpacesSizeAndUsed = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const v8 = require("v8");
	const METRICS = [
		"total",
		"used",
		"available"
	];
	const NODEJS_HEAP_SIZE = {};
	METRICS.forEach((metricType) => {
		NODEJS_HEAP_SIZE[metricType] = `nodejs_heap_space_size_${metricType}_bytes`;
	});
	module.exports = (registry, config = {}) => {
		try {
			v8.getHeapSpaceStatistics();
		} catch (e) {
			if (e.code === "ERR_NOT_IMPLEMENTED") return;
			throw e;
		}
		const registers = registry ? [registry] : void 0;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = ["space", ...Object.keys(labels)];
		const gauges = {};
		METRICS.forEach((metricType) => {
			gauges[metricType] = new Gauge({
				name: namePrefix + NODEJS_HEAP_SIZE[metricType],
				help: `Process heap space size ${metricType} from Node.js in bytes.`,
				labelNames,
				registers
			});
		});
		gauges.total.collect = () => {
			for (const space of v8.getHeapSpaceStatistics()) {
				const spaceName = space.space_name.substr(0, space.space_name.indexOf("_space"));
				gauges.total.set({
					space: spaceName,
					...labels
				}, space.space_size);
				gauges.used.set({
					space: spaceName,
					...labels
				}, space.space_used_size);
				gauges.available.set({
					space: spaceName,
					...labels
				}, space.space_available_size);
			}
		};
	};
	module.exports.metricNames = Object.values(NODEJS_HEAP_SIZE);
}));
// node_modules/prom-client/lib/metrics/version.js
var require_version$1 = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Gauge = require_gauge();
	const version = process.version;
	const versionSegments = version.slice(1).split(".").map(Number);
	const NODE_VERSION_INFO = "nodejs_version_info";
	module.exports = (registry, config = {}) => {
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		new Gauge({
			name: namePrefix + NODE_VERSION_INFO,
			help: "Node.js version info.",
			labelNames: [
				"version",
				"major",
				"minor",
				"patch",
				...labelNames
			],
			registers: registry ? [registry] : void 0,
			aggregator: "first",
			collect() {
				this.labels(version, versionSegments[0], versionSegments[1], versionSegments[2], ...Object.values(labels)).set(1);
			}
		});
	};
	module.exports.metricNames = [NODE_VERSION_INFO];
}));
// node_modules/prom-client/lib/metrics/gc.js
var require_gc = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const Histogram = require_histogram();
	let perf_hooks;
	try {
		perf_hooks = require("perf_hooks");
	} catch {}
	const NODEJS_GC_DURATION_SECONDS = "nodejs_gc_duration_seconds";
	const DEFAULT_GC_DURATION_BUCKETS = [
		.001,
		.01,
		.1,
		1,
		2,
		5
	];
	const kinds = [];
	if (perf_hooks && perf_hooks.constants) {
		kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR] = "major";
		kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_MINOR] = "minor";
		kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_INCREMENTAL] = "incremental";
		kinds[perf_hooks.constants.NODE_PERFORMANCE_GC_WEAKCB] = "weakcb";
	}
	module.exports = (registry, config = {}) => {
		if (!perf_hooks) return;
		const namePrefix = config.prefix ? config.prefix : "";
		const labels = config.labels ? config.labels : {};
		const labelNames = Object.keys(labels);
		const buckets = config.gcDurationBuckets ? config.gcDurationBuckets : DEFAULT_GC_DURATION_BUCKETS;
		const gcHistogram = new Histogram({
			name: namePrefix + NODEJS_GC_DURATION_SECONDS,
			help: "Garbage collection duration by kind, one of major, minor, incremental or weakcb.",
			labelNames: ["kind", ...labelNames],
			enableExemplars: false,
			buckets,
			registers: registry ? [registry] : void 0
		});
		new perf_hooks.PerformanceObserver((list) => {
			const entry = list.getEntries()[0];
			const kind = entry.detail ? kinds[entry.detail.kind] : kinds[entry.kind];
			gcHistogram.observe(Object.assign({ kind }, labels), entry.duration / 1e3);
		}).observe({ entryTypes: ["gc"] });
	};
	module.exports.metricNames = [NODEJS_GC_DURATION_SECONDS];
}));
// node_modules/prom-client/lib/defaultMetrics.js
var require_defaultMetrics = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	const { isObject } = require_util();
	const processCpuTotal = require_processCpuTotal();
	const processStartTime = require_processStartTime();
	const osMemoryHeap = require_osMemoryHeap();
	const processOpenFileDescriptors = require_processOpenFileDescriptors();
	const processMaxFileDescriptors = require_processMaxFileDescriptors();
	const eventLoopLag = require_eventLoopLag();
	const processHandles = require_processHandles();
	const processRequests = require_processRequests();
	const processResources = require_processResources();
	const heapSizeAndUsed = require_heapSizeAndUsed();
	const heapSpacesSizeAndUsed = require_heapSpacesSizeAndUsed();
	const version = require_version$1();
	const gc = require_gc();
	const metrics = {
		processCpuTotal,
		processStartTime,
		osMemoryHeap,
		processOpenFileDescriptors,
		processMaxFileDescriptors,
		eventLoopLag,
		...typeof process.getActiveResourcesInfo === "function" ? { processResources } : {},
		processHandles,
		processRequests,
		heapSizeAndUsed,
		heapSpacesSizeAndUsed,
		version,
		gc
	};
	const metricsList = Object.keys(metrics);
	module.exports = function collectDefaultMetrics(config) {
		if (config !== null && config !== void 0 && !isObject(config)) throw new TypeError("config must be null, undefined, or an object");
		config = {
			eventLoopMonitoringPrecision: 10,
			...config
		};
		for (const metric of Object.values(metrics)) metric(config.register, config);
	};
	module.exports.metricsList = metricsList;
}));
// node_modules/prom-client/lib/metricAggregators.js
var require_metricAggregators = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	const { Grouper, hashObject } = require_util();
	/**
	* Returns a new function that applies the `aggregatorFn` to the values.
	* @param {Function} aggregatorFn function to apply to values.
	* @return {Function} aggregator function
	*/
	function AggregatorFactory(aggregatorFn) {
		return (metrics) => {
			if (metrics.length === 0) return;
			const result = {
				help: metrics[0].help,
				name: metrics[0].name,
				type: metrics[0].type,
				values: [],
				aggregator: metrics[0].aggregator
			};
			const byLabels = new Grouper();
			metrics.forEach((metric) => {
				metric.values.forEach((value) => {
					const key = hashObject(value.labels);
					byLabels.add(`${value.metricName}_${key}`, value);
				});
			});
			byLabels.forEach((values) => {
				if (values.length === 0) return;
				const valObj = {
					value: aggregatorFn(values),
					labels: values[0].labels
				};
				if (values[0].metricName) valObj.metricName = values[0].metricName;
				result.values.push(valObj);
			});
			return result;
		};
	}
	exports.AggregatorFactory = AggregatorFactory;
	/**
	* Functions that can be used to aggregate metrics from multiple registries.
	*/
	exports.aggregators = {
		/**
		* @return The sum of values.
		*/
		sum: AggregatorFactory((v) => v.reduce((p, c) => p + c.value, 0)),
		/**
		* @return The first value.
		*/
		first: AggregatorFactory((v) => v[0].value),
		/**
		* @return {undefined} Undefined; omits the metric.
		*/
		omit: () => {},
		/**
		* @return The arithmetic mean of the values.
		*/
		average: AggregatorFactory((v) => v.reduce((p, c) => p + c.value, 0) / v.length),
		/**
		* @return The minimum of the values.
		*/
		min: AggregatorFactory((v) => v.reduce((p, c) => Math.min(p, c.value), Infinity)),
		/**
		* @return The maximum of the values.
		*/
		max: AggregatorFactory((v) => v.reduce((p, c) => Math.max(p, c.value), -Infinity))
	};
}));
// node_modules/prom-client/lib/cluster.js
var require_cluster = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports, module) => {
	/**
	* Extends the Registry class with a `clusterMetrics` method that returns
	* aggregated metrics for all workers.
	*
	* In cluster workers, listens for and responds to requests for metrics by the
	* cluster master.
	*/
	const Registry = require_registry();
	const { Grouper } = require_util();
	const { aggregators } = require_metricAggregators();
	let cluster = () => {
		const data = require("cluster");
		cluster = () => data;
		return data;
	};
	const GET_METRICS_REQ = "prom-client:getMetricsReq";
	const GET_METRICS_RES = "prom-client:getMetricsRes";
	let registries = [Registry.globalRegistry];
	let requestCtr = 0;
	let listenersAdded = false;
	const requests = /* @__PURE__ */ new Map();
	var AggregatorRegistry = class extends Registry {
		constructor(regContentType = Registry.PROMETHEUS_CONTENT_TYPE) {
			super(regContentType);
			addListeners();
		}
		/**
		* Gets aggregated metrics for all workers. The optional callback and
		* returned Promise resolve with the same value; either may be used.
		* @return {Promise<string>} Promise that resolves with the aggregated
		*   metrics.
		*/
		clusterMetrics() {
			const requestId = requestCtr++;
			return new Promise((resolve, reject) => {
				let settled = false;
				function done(err, result) {
					if (settled) return;
					settled = true;
					if (err) reject(err);
					else resolve(result);
				}
				const request = {
					responses: [],
					pending: 0,
					done,
					errorTimeout: setTimeout(() => {
						const err = /* @__PURE__ */ new Error("Operation timed out.");
						request.done(err);
					}, 5e3)
				};
				requests.set(requestId, request);
				const message = {
					type: GET_METRICS_REQ,
					requestId
				};
				for (const id in cluster().workers) if (cluster().workers[id].isConnected()) {
					cluster().workers[id].send(message);
					request.pending++;
				}
				if (request.pending === 0) {
					clearTimeout(request.errorTimeout);
					process.nextTick(() => done(null, ""));
				}
			});
		}
		get contentType() {
			return super.contentType;
		}
		/**
		* Creates a new Registry instance from an array of metrics that were
		* created by `registry.getMetricsAsJSON()`. Metrics are aggregated using
		* the method specified by their `aggregator` property, or by summation if
		* `aggregator` is undefined.
		* @param {Array} metricsArr Array of metrics, each of which created by
		*   `registry.getMetricsAsJSON()`.
		* @param {string} registryType content type of the new registry. Defaults
		* to PROMETHEUS_CONTENT_TYPE.
		* @return {Registry} aggregated registry.
		*/
		static aggregate(metricsArr, registryType = Registry.PROMETHEUS_CONTENT_TYPE) {
			const aggregatedRegistry = new Registry();
			const metricsByName = new Grouper();
			aggregatedRegistry.setContentType(registryType);
			metricsArr.forEach((metrics) => {
				metrics.forEach((metric) => {
					metricsByName.add(metric.name, metric);
				});
			});
			metricsByName.forEach((metrics) => {
				const aggregatorName = metrics[0].aggregator;
				const aggregatorFn = aggregators[aggregatorName];
				if (typeof aggregatorFn !== "function") throw new Error(`'${aggregatorName}' is not a defined aggregator.`);
				const aggregatedMetric = aggregatorFn(metrics);
				if (aggregatedMetric) {
					const aggregatedMetricWrapper = Object.assign({ get: () => aggregatedMetric }, aggregatedMetric);
					aggregatedRegistry.registerMetric(aggregatedMetricWrapper);
				}
			});
			return aggregatedRegistry;
		}
		/**
		* Sets the registry or registries to be aggregated. Call from workers to
		* use a registry/registries other than the default global registry.
		* @param {Array<Registry>|Registry} regs Registry or registries to be
		*   aggregated.
		* @return {void}
		*/
		static setRegistries(regs) {
			if (!Array.isArray(regs)) regs = [regs];
			regs.forEach((reg) => {
				if (!(reg instanceof Registry)) throw new TypeError(`Expected Registry, got ${typeof reg}`);
			});
			registries = regs;
		}
	};
	/**
	* Adds event listeners for cluster aggregation. Idempotent (safe to call more
	* than once).
	* @return {void}
	*/
	function addListeners() {
		if (listenersAdded) return;
		listenersAdded = true;
		if (cluster().isMaster) cluster().on("message", (worker, message) => {
			if (message.type === GET_METRICS_RES) {
				const request = requests.get(message.requestId);
				if (message.error) {
					request.done(new Error(message.error));
					return;
				}
				message.metrics.forEach((registry) => request.responses.push(registry));
				request.pending--;
				if (request.pending === 0) {
					requests.delete(message.requestId);
					clearTimeout(request.errorTimeout);
					const promString = AggregatorRegistry.aggregate(request.responses).metrics();
					request.done(null, promString);
				}
			}
		});
		if (cluster().isWorker) process.on("message", (message) => {
			if (message.type === GET_METRICS_REQ) Promise.all(registries.map((r) => r.getMetricsAsJSON())).then((metrics) => {
				process.send({
					type: GET_METRICS_RES,
					requestId: message.requestId,
					metrics
				});
			}).catch((error) => {
				process.send({
					type: GET_METRICS_RES,
					requestId: message.requestId,
					error: error.message
				});
			});
		});
	}
	module.exports = AggregatorRegistry;
}));
// node_modules/prom-client/index.js
/**
* Prometheus client
* @module Prometheus client
*/
var require_prom_client = /* @__PURE__ */ require_rolldown_runtime.__commonJSMin(((exports) => {
	exports.register = require_registry().globalRegistry;
	exports.Registry = require_registry();
	Object.defineProperty(exports, "contentType", {
		configurable: false,
		enumerable: true,
		get() {
			return exports.register.contentType;
		},
		set(value) {
			exports.register.setContentType(value);
		}
	});
	exports.prometheusContentType = exports.Registry.PROMETHEUS_CONTENT_TYPE;
	exports.openMetricsContentType = exports.Registry.OPENMETRICS_CONTENT_TYPE;
	exports.validateMetricName = require_validation().validateMetricName;
	exports.Counter = require_counter();
	exports.Gauge = require_gauge();
	exports.Histogram = require_histogram();
	exports.Summary = require_summary();
	exports.Pushgateway = require_pushgateway();
	exports.linearBuckets = require_bucketGenerators().linearBuckets;
	exports.exponentialBuckets = require_bucketGenerators().exponentialBuckets;
	exports.collectDefaultMetrics = require_defaultMetrics();
	exports.aggregators = require_metricAggregators().aggregators;
	exports.AggregatorRegistry = require_cluster();
}));
// src/metrics/render.ts
var import_prom_client = require_prom_client();
/** Whether an Accept header prefers OpenMetrics (any q above 0). */
function wantsOpenMetrics(accept) {
	if (!accept) return false;
	return accept.split(",").some((part) => {
		const [type, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
		if (type !== "application/openmetrics-text") return false;
		const q = params.find((p) => p.startsWith("q="));
		return q === void 0 || Number(q.slice(2)) > 0;
	});
}
/**
* Renders `registry` in either format. prom-client renames a counter in place when it
* writes OpenMetrics (`x_total` \u2192 `x`) and the next Prometheus-format scrape would lose the
* suffix: each render here runs alone and puts the names back.
*/
var MetricsRenderer = class {
	registry;
	open = new import_prom_client.Registry();
	shared = /* @__PURE__ */ new WeakSet();
	queue = Promise.resolve();
	constructor(registry) {
		this.registry = registry;
		this.open.setContentType(import_prom_client.Registry.OPENMETRICS_CONTENT_TYPE);
	}
	/** `begin` runs first, once the renders before this one are done (a scrape's fresh look). */
	render(accept, begin) {
		const next = this.queue.then(() => {
			begin?.();
			return this.renderNow(wantsOpenMetrics(accept));
		});
		this.queue = next.catch(() => void 0);
		return next;
	}
	async renderNow(openMetrics) {
		if (!openMetrics) return {
			contentType: this.registry.contentType,
			text: await this.registry.metrics()
		};
		const metrics = this.registry.getMetricsAsArray();
		const names = metrics.map((m) => m.name);
		for (const metric of metrics) {
			if (this.shared.has(metric)) continue;
			this.open.registerMetric(metric);
			this.shared.add(metric);
		}
		try {
			return {
				contentType: this.open.contentType,
				text: await this.open.metrics()
			};
		} finally {
			metrics.forEach((m, i) => m.name = names[i] ?? m.name);
		}
	}
};
/**
* The kernel's keys from the environment, each refused (one line, never the key) when
* it would not be the boundary it stands for: an admin or approver key that is the key
* every job holds, or beyond loopback (the listen address or a --public-url) a key
* short enough to guess. On loopback a short key still serves tests and the demo.
*/
function kernelKeysOf(env, host, publicUrls) {
	const key = env.LEASE_GATE_KERNEL_KEY || void 0;
	const adminKey = env.LEASE_GATE_ADMIN_KEY || void 0;
	if (adminKey !== void 0 && adminKey === key) throw new require_cli.UsageError("LEASE_GATE_ADMIN_KEY is the kernel key every job holds, so every job could revoke, freeze and break glass: give the admin key a value of its own.");
	const approverKey = approverKeyOf(env);
	const metricsKey = env.LEASE_GATE_METRICS_KEY || void 0;
	if (metricsKey !== void 0 && metricsKey === key) throw new require_cli.UsageError("LEASE_GATE_METRICS_KEY is the kernel key every job holds: give the metrics key a value of its own.");
	const beyond = [host, ...publicUrls.map((url) => url.hostname)].find((h) => !require_cli.isLoopbackHost(h));
	if (beyond !== void 0) {
		const given = {
			LEASE_GATE_KERNEL_KEY: key,
			LEASE_GATE_ADMIN_KEY: adminKey,
			LEASE_GATE_APPROVER_KEY: approverKey,
			LEASE_GATE_METRICS_KEY: metricsKey
		};
		for (const [name, value] of Object.entries(given)) if (value !== void 0 && value.length < 16) throw new require_cli.UsageError(`${name} is shorter than 16 characters, too easy to guess for a kernel reachable at ${beyond}: use a long random key (openssl rand -hex 32), or keep --host on loopback.`);
	}
	return {
		key,
		adminKey,
		approverKey,
		metricsKey
	};
}
/**
* LEASE_GATE_APPROVER_KEY: a second operator's key. With it, a break-glass opened with the
* admin key is used only once approved with this one, so one key cannot do both halves.
*/
function approverKeyOf(env) {
	const approverKey = env.LEASE_GATE_APPROVER_KEY || void 0;
	if (approverKey === void 0) return void 0;
	if (!env.LEASE_GATE_ADMIN_KEY) throw new require_cli.UsageError("LEASE_GATE_APPROVER_KEY approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.");
	if (approverKey === env.LEASE_GATE_ADMIN_KEY) throw new require_cli.UsageError("LEASE_GATE_APPROVER_KEY is the admin key: a second approver needs a key of its own.");
	if (approverKey === env.LEASE_GATE_KERNEL_KEY) throw new require_cli.UsageError("LEASE_GATE_APPROVER_KEY is the kernel key every job holds: a second approver needs a key of its own.");
	return approverKey;
}
// src/log/logger.ts
/**
* The kernel's and the App's one way to say something: a line of text for people (as it has
* always been written), or a JSON line for a log store (`--log-format json`). Every line, in
* either form, is masked (secret values, URL credentials, secret query values) and escaped
* (logLine: no CR, LF or terminal control gets through) before it is written.
*
* Hand-written rather than pino: the kernel writes a few lines per lease event, and pino's
* require alone costs ~50 ms at start (median of 21 runs, Node 24) and ~59 KB minified in
* the bundle, for redaction by field path where ours must be by value (docs/logs.md).
*/
const LOG_FORMATS = ["text", "json"];
const LOG_FORMAT_FORM = "'text' (lines for people, the default) or 'json' (one JSON object a line)";
/** `--log-format` or LEASE_GATE_LOG_FORMAT, else text; undefined: neither form. */
function parseLogFormat(raw) {
	if (raw === void 0 || raw === "") return "text";
	return LOG_FORMATS.includes(raw) ? raw : void 0;
}
function createLogger(options) {
	const secrets = [...new Set(options.secrets ?? [])].filter((s) => typeof s === "string" && s.length >= 8).sort((a, b) => b.length - a.length);
	const clean = (text) => require_cli.logLine(maskSecrets(text, secrets));
	const log = (level, msg, fields) => {
		if (options.format === "text") return options.write(clean(msg));
		const line = {
			level,
			time: new Date(options.now()).toISOString(),
			msg: clean(msg)
		};
		for (const [name, value] of Object.entries({
			...options.base,
			...fields
		})) {
			if (value === void 0 || name in line) continue;
			line[name] = typeof value === "string" ? clean(value) : value;
		}
		options.write(JSON.stringify(line));
	};
	return {
		log,
		info: (msg, fields) => log("info", msg, fields),
		warn: (msg, fields) => log("warn", msg, fields),
		error: (msg, fields) => log("error", msg, fields)
	};
}
/** Query parameters whose value is a credential by its name (`?access_token=\u2026`, `&sig=\u2026`). */
const SECRET_PARAM = /([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|pwd|sig|signature|auth|code|credential)[\w.-]*)=)[^&#\s"']+/gi;
/** A URL's userinfo: `scheme://user:password@`, or `scheme://token@` (no colon). */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"':]*)(:[^\s/?#@"']*)?@/gi;
/** The password as ***, the user kept; a user alone is masked when it is long enough to be a token. */
const maskUserinfo = (_, scheme, user, password) => password !== void 0 ? `${scheme}${user}:***@` : `${scheme}${user.length >= 16 ? "***" : user}@`;
/**
* Every given secret, every URL's userinfo and every credential-named query value as ***.
* A second fence behind the call sites' own care (urlForDisplay, redactUrl, withoutUrl): a
* line someone adds later that quotes an error with a URL in it still leaks nothing.
*/
function maskSecrets(text, secrets = []) {
	let masked = text;
	for (const secret of secrets) masked = masked.split(secret).join("***");
	return masked.replace(URL_USERINFO, maskUserinfo).replace(SECRET_PARAM, "$1***");
}
/** The level a line written to stderr is logged at: a failure's words say error, else warn. */
function stderrLevel(line) {
	return /\b(failed|fails|could not|cannot|gave up|broke|lost|refus\w*|error)\b/i.test(line) ? "error" : "warn";
}
// src/cli/log-format-flag.ts
/** The flag over the environment; either one naming neither form is refused, naming itself. */
function logFormatOf(flag, env) {
	const [raw, from] = flag !== void 0 ? [flag, "--log-format"] : [env.LEASE_GATE_LOG_FORMAT, "LEASE_GATE_LOG_FORMAT"];
	const format = parseLogFormat(raw);
	if (!format) throw new require_cli.UsageError(`Invalid ${from} '${require_cli.untrusted(raw ?? "", 40)}'. Expected ${LOG_FORMAT_FORM}.`);
	return format;
}
// src/cli/log-output.ts
function loggedOutput(io, settings, now = Date.now) {
	const common = {
		format: settings.format,
		now,
		secrets: settings.secrets,
		base: settings.base ?? {}
	};
	const out = createLogger({
		...common,
		write: (line) => io.out(line)
	});
	const err = createLogger({
		...common,
		write: (line) => io.err(line)
	});
	return {
		out: (line) => out.info(line),
		err: (line) => err.log(stderrLevel(line), line),
		outWith: (line, fields) => out.info(line, fields),
		errWith: (line, fields, level) => err.log(level ?? stderrLevel(line), line, fields),
		...io.write && { write: io.write }
	};
}
/** A connection string's password, to be masked wherever a line might quote it. */
function urlPassword(url) {
	if (!url) return void 0;
	try {
		return decodeURIComponent(new URL(url).password) || void 0;
	} catch {
		return;
	}
}
/**
* A command that could not start, said as main() says it (text: rethrown for main()), or
* with --log-format json as a JSON line a log store reads: exit 2 for a setting, 1 else.
*/
function refusedToStart(error, log, logged, command) {
	if (log.format === "text") throw error;
	if (error instanceof require_cli.UsageError) {
		logged.errWith(require_cli.untrusted(error.message, 1e3), { refused: "usage" }, "error");
		return require_cli.EXIT.usage;
	}
	logged.err(`lease-gate ${command}: could not start: ${require_cli.untrusted(require_cli.errorMessage(error), 1e3)}`);
	return require_cli.EXIT.refused;
}
Object.defineProperty(exports, "GitHubError", {
	enumerable: true,
	get: function() {
		return GitHubError;
	}
});
Object.defineProperty(exports, "MetricsRenderer", {
	enumerable: true,
	get: function() {
		return MetricsRenderer;
	}
});
Object.defineProperty(exports, "answerMessage", {
	enumerable: true,
	get: function() {
		return answerMessage;
	}
});
Object.defineProperty(exports, "headerOf", {
	enumerable: true,
	get: function() {
		return headerOf;
	}
});
Object.defineProperty(exports, "kernelKeysOf", {
	enumerable: true,
	get: function() {
		return kernelKeysOf;
	}
});
Object.defineProperty(exports, "logFormatOf", {
	enumerable: true,
	get: function() {
		return logFormatOf;
	}
});
Object.defineProperty(exports, "loggedOutput", {
	enumerable: true,
	get: function() {
		return loggedOutput;
	}
});
Object.defineProperty(exports, "parseJson", {
	enumerable: true,
	get: function() {
		return parseJson;
	}
});
Object.defineProperty(exports, "printable", {
	enumerable: true,
	get: function() {
		return printable;
	}
});
Object.defineProperty(exports, "refusedToStart", {
	enumerable: true,
	get: function() {
		return refusedToStart;
	}
});
Object.defineProperty(exports, "require_prom_client", {
	enumerable: true,
	get: function() {
		return require_prom_client;
	}
});
Object.defineProperty(exports, "restHeaders", {
	enumerable: true,
	get: function() {
		return restHeaders;
	}
});
Object.defineProperty(exports, "retryWait", {
	enumerable: true,
	get: function() {
		return retryWait;
	}
});
Object.defineProperty(exports, "urlPassword", {
	enumerable: true,
	get: function() {
		return urlPassword;
	}
});

//# sourceMappingURL=log-output-Ds3jN6an.js.map