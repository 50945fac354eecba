// llama.cpp's decode speed on a GGUF model (bench/gguf_writer.py), through node-llama-cpp's
// prebuilt CPU binary, loaded offline (getLlama({gpu: false, build: "never"})): the peer of
// `attnrt generate` in bench/run_load_report.py. Greedy decoding from a 16-token prompt; one
// JSON line on stdout: {"decode_ms_per_token", "prefill_ms", "tokens", "threads"}.
//
//   node bench/llama_cpp_bench.mjs --modules build/test-deps/llamacpp/node_modules --model m.gguf \
//       [--tokens 200] [--seconds 20] [--threads N]   (0 or absent: node-llama-cpp's default)
// Decoding stops after --tokens tokens or --seconds of decoding, whichever comes first.
//   node bench/llama_cpp_bench.mjs --modules DIR --probe   (prints the version; fails without it)
//
// With --prompt-len N (the peer of `attnrt bench lm`, for bench/run_llamacpp_report.py) the
// prompt is N token ids instead, and --prefill 64,256 times the prefill of prompts of those
// lengths: each evaluated on an emptied sequence until its first token is sampled, one warm-up
// then runs for --prefill-seconds (at least 3), median. Then the N-token prompt is evaluated and
// --tokens greedy tokens decoded (end-of-generation tokens do not stop it), each step timed
// alone: decode_ms_per_token is then the median step (decode_mean_ms_per_token the mean), at
// context N+1..N+tokens-1. --kv-type F16|F32 (llama.cpp's default F16) and --flash-attention
// set the context as named; the output adds "prefill": {"64": ms, ...}, "system_info" and
// "llama_cpp_release".
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
  const args = { tokens: 200, seconds: 20, threads: 0, probe: false, promptLen: 0, prefill: [],
                 prefillSeconds: 1, kvType: "", flashAttention: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === "--probe") args.probe = true;
    else if (a === "--model") args.model = argv[++i];
    else if (a === "--modules") args.modules = argv[++i];
    else if (a === "--tokens") args.tokens = Number(argv[++i]);
    else if (a === "--threads") args.threads = Number(argv[++i]);
    else if (a === "--seconds") args.seconds = Number(argv[++i]);
    else if (a === "--prompt-len") args.promptLen = Number(argv[++i]);
    else if (a === "--prefill") args.prefill = argv[++i].split(",").map(Number);
    else if (a === "--prefill-seconds") args.prefillSeconds = Number(argv[++i]);
    else if (a === "--kv-type") args.kvType = argv[++i];
    else if (a === "--flash-attention") args.flashAttention = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.modules) throw new Error("--modules DIR (the node_modules holding node-llama-cpp) is required");
  return args;
}

const args = parseArgs(process.argv.slice(2));
const pkgDir = path.join(path.resolve(args.modules), "node-llama-cpp");
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(path.join(pkgDir, "dist", "index.js")).href);
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
if (args.probe) {
  console.log(`${version}, CPU build, up to ${llama.cpuMathCores} math cores`);
  process.exit(0);
}
const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 });
if (args.promptLen > 0) {
  await benchLengths();
  process.exit(0);
}
const options = { contextSize: Math.min(model.trainContextSize, 16 + args.tokens + 8), sequences: 1 };
if (args.threads > 0) options.threads = args.threads;
const context = await model.createContext(options);
const sequence = context.getSequence();
// "In the beginning" as bytes: the bundled byte-level model's prompt; ids < 256 suit any vocab.
const prompt = Array.from(Buffer.from("In the beginning"));
const start = performance.now();
let first = 0, last = 0, count = 0;
for await (const token of sequence.evaluate(prompt, { temperature: 0 })) {
  void token;
  const now = performance.now();
  if (++count === 1) first = now;
  last = now;
  if (count >= args.tokens || (count > 1 && now - first > 1000 * args.seconds)) break;
}
const threads = context.currentThreads ?? options.threads ?? llama.cpuMathCores;
const result = {
  decode_ms_per_token: count > 1 ? (last - first) / (count - 1) : 0,
  prefill_ms: first - start,
  tokens: count,
  threads,
  version,
};
console.error(`llama.cpp ${version}: ${count} tokens, decode ${result.decode_ms_per_token.toFixed(3)} ms/token, ` +
              `${threads} thread(s)${args.threads > 0 ? "" : " (node-llama-cpp's default)"}`);
console.log(JSON.stringify(result));
await context.dispose();
await model.dispose();
await llama.dispose();

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// n token ids from a fixed sequence over 3..258: byte tokens in bench/gguf_writer.py's vocabulary
// (tools/python/llama_gguf.py; any vocabulary of 259 or more), never its bos/eos, the same
// prompt in every run.
function promptIds(n) {
  return Array.from({ length: n }, (_, i) => 3 + ((i * 97 + 13) % 256));
}

// --prompt-len mode: prefill of each --prefill length, then decode steps timed one by one.
async function benchLengths() {
  const longest = Math.max(args.promptLen + args.tokens, ...args.prefill);
  if (longest > model.trainContextSize) {
    throw new Error(`prompt + tokens / prefill ${longest} exceed the model's context ${model.trainContextSize}`);
  }
  const options = { contextSize: longest, batchSize: longest, sequences: 1,
                    flashAttention: args.flashAttention };
  // {ideal, min}: the count asked for is the count used (a bare number is only a hint).
  if (args.threads > 0) options.threads = { ideal: args.threads, min: args.threads };
  if (args.kvType) {
    options.experimentalKvCacheKeyType = args.kvType;
    options.experimentalKvCacheValueType = args.kvType;
  }
  const context = await model.createContext(options);
  const sequence = context.getSequence();
  // Evaluates `tokens` on an emptied sequence up to the first sampled token: ms.
  const prefillOnce = async (tokens) => {
    await sequence.clearHistory();
    const start = performance.now();
    for await (const token of sequence.evaluate(tokens, { temperature: 0, yieldEogToken: true })) {
      void token;
      break;
    }
    return performance.now() - start;
  };
  const prefill = {}, prefillRuns = {};
  for (const n of args.prefill) {
    const ids = promptIds(n);
    await prefillOnce(ids);  // warm-up: first-touch of the weights and the cache
    const times = [];
    const begin = performance.now();
    while (times.length < 3 || performance.now() - begin < 1000 * args.prefillSeconds) {
      times.push(await prefillOnce(ids));
    }
    prefill[n] = median(times);
    prefillRuns[n] = times.length;
  }
  await sequence.clearHistory();
  const steps = [];
  let last = performance.now(), count = 0;
  const decodeStart = last;
  for await (const token of sequence.evaluate(promptIds(args.promptLen),
                                               { temperature: 0, yieldEogToken: true })) {
    void token;
    const now = performance.now();
    if (count++ > 0) steps.push(now - last);  // the first token ends the prompt's evaluation
    last = now;
    if (count >= args.tokens || now - decodeStart > 1000 * args.seconds) break;
  }
  const threads = context.currentThreads;
  const release = llama.llamaCppRelease;
  const result = {
    decode_ms_per_token: steps.length ? median(steps) : 0,
    decode_mean_ms_per_token: steps.length ? steps.reduce((a, b) => a + b, 0) / steps.length : 0,
    decode_steps: steps.length,
    decode_context: [args.promptLen + 1, args.promptLen + steps.length],
    prefill,
    prefill_runs: prefillRuns,
    threads,
    kv_type: args.kvType || "default (F16)",
    flash_attention: args.flashAttention,
    version,
    llama_cpp_release: `${release.repo} ${release.release}`,
    system_info: llama.systemInfo,
  };
  console.error(`llama.cpp ${version}: decode ${result.decode_ms_per_token.toFixed(3)} ms/token ` +
                `(${steps.length} steps), prefill ` +
                Object.entries(prefill).map(([n, ms]) => `${n}: ${ms.toFixed(2)} ms`).join(", ") +
                `, ${threads} thread(s)`);
  console.log(JSON.stringify(result));
  await context.dispose();
  await model.dispose();
  await llama.dispose();
}
