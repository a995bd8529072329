#!/usr/bin/env node
import { runCli } from '../cli/entry.js';

void runCli();
