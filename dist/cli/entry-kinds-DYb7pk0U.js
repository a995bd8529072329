// src/plane/entry-kinds.ts
/**
* The ledger's entry kinds, once: the ledger's schema (ledger/entry.ts), the kernel's events
* (kernel/rules/event.ts), its notifications and the console page all read this list. Plain
* data with no imports, so the page bundles it.
*/
const ENTRY_KINDS = [
	"grant",
	"renew",
	"release",
	"lapse",
	"revoke",
	"freeze",
	"unfreeze",
	"break_glass",
	"break_glass_withdrawn"
];
/** The kinds that name no lease (empty id, fence 0): an operator's freezes and break-glasses. */
const NO_LEASE = [
	"freeze",
	"unfreeze",
	"break_glass",
	"break_glass_withdrawn"
];
/** Whether an entry of this kind names no lease (and is no holder's grant, renewal or end). */
const namesNoLease = (kind) => NO_LEASE.includes(kind);
Object.defineProperty(exports, "ENTRY_KINDS", {
	enumerable: true,
	get: function() {
		return ENTRY_KINDS;
	}
});
Object.defineProperty(exports, "namesNoLease", {
	enumerable: true,
	get: function() {
		return namesNoLease;
	}
});

//# sourceMappingURL=entry-kinds-DYb7pk0U.js.map