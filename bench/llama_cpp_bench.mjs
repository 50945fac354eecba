// llama.cpp's decode speed on a GGUF model (bench/gguf_writer.py), through node-llama-cpp's
// prebuilt CPU binary, loaded offline (getLlama({gpu: false, build: "never"})): the peer of
// `attnrt generate` in bench/run_load_report.py. Greedy decoding from a 16-token prompt; one
// JSON line on stdout: {"decode_ms_per_token", "prefill_ms", "tokens", "threads"}.
//
//   node bench/llama_cpp_bench.mjs --modules build/test-deps/llamacpp/node_modules --model m.gguf \
//       [--tokens 200] [--seconds 20] [--threads N]   (0 or absent: node-llama-cpp's default)
// Decoding stops after --tokens tokens or --seconds of decoding, whichever comes first.
//   node bench/llama_cpp_bench.mjs --modules DIR --probe   (prints the version; fails without it)
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
  const args = { tokens: 200, seconds: 20, threads: 0, probe: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === "--probe") args.probe = true;
    else if (a === "--model") args.model = argv[++i];
    else if (a === "--modules") args.modules = argv[++i];
    else if (a === "--tokens") args.tokens = Number(argv[++i]);
    else if (a === "--threads") args.threads = Number(argv[++i]);
    else if (a === "--seconds") args.seconds = Number(argv[++i]);
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
