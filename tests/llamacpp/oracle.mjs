// llama.cpp as a test oracle: evaluates token sequences on a GGUF file with
// node-llama-cpp's prebuilt CPU build and prints what llama.cpp computed, as JSON.
//
//   node oracle.mjs NODE_MODULES_DIR REQUEST.json
// REQUEST: {"model": path, "vocab": n, "context": n, "runs": [{"tokens": [...], "generate": n}]}
// Output:  {"runs": [{"logits": [[vocab floats] per input token], "greedy": [ids],
//                      "greedyLogits": [[vocab floats] each greedy token was chosen from]}]}
// Each run is a fresh sequence: every input token's next-token logits (llama.cpp's raw
// logits, no sampling), then `generate` greedy tokens, each the argmax of llama.cpp's
// logits fed back one at a time. The context runs with an F32 KV cache, flash
// attention off and 2 threads, so what differs from attnrt is arithmetic, not storage.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modulesDir, requestPath] = process.argv.slice(2);
const request = JSON.parse(fs.readFileSync(requestPath, "utf8"));
const entry = path.join(modulesDir, "node-llama-cpp", "dist", "index.js");
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(entry).href);

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: request.model, gpuLayers: 0 });

function denseLogits(map, n) {
  const out = new Array(n).fill(null);
  for (const [token, logit] of map) out[token] = logit;
  return out;
}

function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; ++i) if (row[i] > row[best]) best = i;
  return best;
}

const nVocab = request.vocab;
const results = [];
for (const run of request.runs) {
  const context = await model.createContext({
    contextSize: request.context, batchSize: request.context, sequences: 1, threads: 2,
    flashAttention: false, experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32",
  });
  const sequence = context.getSequence();
  const items = run.tokens.map((t) => [t, { generateNext: { logits: true } }]);
  const evaluated = await sequence.controlledEvaluate(items);
  const logits = evaluated.map((e) => denseLogits(e.next.logits, nVocab));
  const greedy = [], greedyLogits = [];
  let last = logits[logits.length - 1];
  for (let i = 0; i < (run.generate || 0); ++i) {
    const token = argmax(last);
    greedy.push(token);
    greedyLogits.push(last);
    const [next] = await sequence.controlledEvaluate([[token, { generateNext: { logits: true } }]]);
    last = denseLogits(next.next.logits, nVocab);
  }
  results.push({ logits, greedy, greedyLogits });
  await context.dispose();
}
await model.dispose();
process.stdout.write(JSON.stringify({ runs: results }));
