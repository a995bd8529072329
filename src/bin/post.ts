import { run } from '../action/post.js';

void run();
