#!/usr/bin/env node
// `npm run demo`: placeholder until the provider lands (see README).
console.log("The demo is not ready yet: it arrives with the provider (issue 5).");
