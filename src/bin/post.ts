import { run } from '../action/post.js';

await run();
// Exit as soon as the work is done: undici parses HTTP with WebAssembly, and V8's background
// tier-up of that module would otherwise keep every step alive ~250 ms longer.
process.exit();
