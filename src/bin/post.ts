import { run } from '../action/post.js';

await run();
