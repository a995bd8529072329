#!/usr/bin/env node
import { runCli } from '../cli/entry.js';

await runCli();
