#!/usr/bin/env node
// A complete Mazziere bot for node: plays a uniformly random legal action.
//
// Subprocess protocol: one JSON message per line on stdin; answer each "act" with one line
// {"action": ...} on stdout. Debug output goes to stderr. Run in the arena with
//   python -m bots.arena sette_e_mezzo random "subprocess:node examples/bots/random_bot.js" random
"use strict";
const readline = require("readline");

// A small seeded generator (mulberry32), so a match can be replayed with the same choices.
let state = 1;
function random() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    for (const ch of String(message.seed)) state = (Math.imul(state, 31) + ch.charCodeAt(0)) | 0;
    console.error(`seat ${message.seat} at ${message.game}`);
  } else if (message.type === "act") {
    const legal = message.view.legal_actions;
    const action = legal[Math.floor(random() * legal.length)];
    process.stdout.write(JSON.stringify({ action }) + "\n");
  } else if (message.type === "finish") {
    input.close();
  }
});
