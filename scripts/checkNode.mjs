#!/usr/bin/env node
// Exits 1 with a one-sentence message when this Node is older than package.json's engines.node.
import { exitIfNodeTooOld } from './nodeVersion.mjs';

exitIfNodeTooOld();
