// llama.cpp's tokenizer as a test oracle: tokenizes texts with a GGUF file's vocabulary
// (node-llama-cpp's prebuilt CPU build, the vocabulary only) and prints what it gave, as JSON.
//
//   node tokenize.mjs NODE_MODULES_DIR REQUEST.json
// REQUEST: {"model": path, "texts": [...]}
// Output:  {"ids": [[...] per text], "text": [detokenized ids per text], "bos": id|null,
//           "eos": id|null, "addBos": bool, "addEos": bool}
// ids are llama_tokenize with special tokens parsed and none added (model.tokenize(text,
// true)); text is llama_detokenize of those ids with special tokens not rendered
// (model.detokenize(ids, false)).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modulesDir, requestPath] = process.argv.slice(2);
const request = JSON.parse(fs.readFileSync(requestPath, "utf8"));
const entry = path.join(modulesDir, "node-llama-cpp", "dist", "index.js");
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(entry).href);

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: request.model, gpuLayers: 0, vocabOnly: true });
const ids = request.texts.map((t) => Array.from(model.tokenize(t, true)));
const text = ids.map((t) => model.detokenize(t, false));
const tokens = model.tokens;
process.stdout.write(JSON.stringify({
  ids, text, bos: tokens.bos ?? null, eos: tokens.eos ?? null,
  addBos: tokens.shouldPrependBosToken, addEos: tokens.shouldAppendEosToken,
}));
await model.dispose();
