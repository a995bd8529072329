import { run } from '../action/main.js';

void run();
