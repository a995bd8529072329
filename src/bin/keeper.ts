import { withoutHttp2 } from '../http/no-http2.js';

// The keeper's own entry (dist/keeper/): the action's main step spawns it to renew the lease
// for the whole job. Only what renewing needs is bundled, and the hook goes in before any of
// it loads (docs/performance.md, keeper).
withoutHttp2();
const { runKeeper } = await import('../cli/keeper-main.js');
await runKeeper(process.argv.slice(2));
