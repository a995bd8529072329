import { runKeeper } from '../cli/keeper-main.js';

// The keeper's own entry (dist/keeper/): the action's main step spawns it to renew the lease
// for the whole job. Only what renewing needs is bundled (docs/performance.md, keeper).
await runKeeper(process.argv.slice(2));
