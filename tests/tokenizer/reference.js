#!/usr/bin/env node
// The reference side of the tokenizer exactness test: Hugging Face's Rust `tokenizers`
// (through the @anush008/tokenizers Node binding) plus transformers' tokenizer_config.json
// rules that sit on top of it in Python:
//   - LlamaTokenizerFast / GemmaTokenizerFast / CodeLlamaTokenizerFast replace the
//     post-processor with a template from add_bos_token (default true) / add_eos_token
//     (default false);
//   - decode applies clean_up_tokenization_spaces (default false) after the Rust decode;
//   - truncation and padding are off for a plain tokenizer(text).
//
//   node reference.js run JOB.json OUT.json
//     JOB: {"node_modules": DIR, "tokenizer": PATH, "config": PATH|null,
//           "texts": [...], "id_lists": [[...], ...]}
//     OUT: {"with_special": [[ids]...], "without_special": [[ids]...],
//           "decode": [text...], "decode_skip": [text...]} (decodes of id_lists)
//   node reference.js bench NODE_MODULES TOKENIZER TEXT_FILE REPEATS
//     prints {"seconds": best of REPEATS for encoding the whole file, "ids": count}
'use strict';
const fs = require('fs');
const path = require('path');

const LLAMA_CLASSES = new Set(['LlamaTokenizer', 'LlamaTokenizerFast', 'CodeLlamaTokenizer',
  'CodeLlamaTokenizerFast', 'GemmaTokenizer', 'GemmaTokenizerFast']);

function tokenContent(v) { return typeof v === 'string' ? v : v && v.content; }

function loadReference(nodeModules, tokenizerPath, configPath) {
  const { Tokenizer } = require(path.join(nodeModules, '@anush008/tokenizers'));
  const tj = JSON.parse(fs.readFileSync(tokenizerPath, 'utf8'));
  const config = configPath ? JSON.parse(fs.readFileSync(configPath, 'utf8')) : {};
  tj.truncation = null;
  tj.padding = null;
  if (LLAMA_CLASSES.has(config.tokenizer_class)) {
    const vocab = tj.model.vocab;
    const idOf = (t) => {
      const added = (tj.added_tokens || []).find((a) => a.content === t);
      return added ? added.id : vocab[t];
    };
    const addBos = config.add_bos_token === undefined || config.add_bos_token === null ? true : config.add_bos_token;
    const addEos = config.add_eos_token === undefined || config.add_eos_token === null ? false : config.add_eos_token;
    const bos = tokenContent(config.bos_token), eos = tokenContent(config.eos_token);
    const single = [], pair = [], special = {};
    const sp = (t, type) => ({ SpecialToken: { id: t, type_id: type } });
    const seq = (s, type) => ({ Sequence: { id: s, type_id: type } });
    if (addBos) { single.push(sp(bos, 0)); special[bos] = { id: bos, ids: [idOf(bos)], tokens: [bos] }; }
    single.push(seq('A', 0));
    if (addEos) { single.push(sp(eos, 0)); special[eos] = { id: eos, ids: [idOf(eos)], tokens: [eos] }; }
    pair.push(...single);
    if (addBos) pair.push(sp(bos, 1));
    pair.push(seq('B', 1));
    if (addEos) pair.push(sp(eos, 1));
    tj.post_processor = { type: 'TemplateProcessing', single, pair, special_tokens: special };
  }
  const tok = Tokenizer.fromString(JSON.stringify(tj));
  const cleanUp = config.clean_up_tokenization_spaces === true;
  return { tok, cleanUp };
}

// transformers' clean_up_tokenization.
function cleanUpSpaces(s) {
  const pairs = [[' .', '.'], [' ?', '?'], [' !', '!'], [' ,', ','], [" ' ", "'"], [" n't", "n't"],
    [" 'm", "'m"], [" 's", "'s"], [" 've", "'ve"], [" 're", "'re"]];
  for (const [a, b] of pairs) s = s.split(a).join(b);
  return s;
}

async function run(jobPath, outPath) {
  const job = JSON.parse(fs.readFileSync(jobPath, 'utf8'));
  const { tok, cleanUp } = loadReference(job.node_modules, job.tokenizer, job.config);
  const out = { with_special: [], without_special: [], decode: [], decode_skip: [] };
  for (const text of job.texts) {
    out.with_special.push(Array.from((await tok.encode(text, null, { addSpecialTokens: true })).getIds()));
    out.without_special.push(Array.from((await tok.encode(text, null, { addSpecialTokens: false })).getIds()));
  }
  for (const ids of job.id_lists) {
    for (const [key, skip] of [['decode', false], ['decode_skip', true]]) {
      let text = await tok.decode(ids, skip);
      if (cleanUp) text = cleanUpSpaces(text);
      out[key].push(text);
    }
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
}

async function bench(nodeModules, tokenizerPath, textPath, repeats) {
  const { tok } = loadReference(nodeModules, tokenizerPath, null);
  const text = fs.readFileSync(textPath, 'utf8');
  let best = Infinity, count = 0;
  for (let r = 0; r < repeats; ++r) {
    const t0 = process.hrtime.bigint();
    const e = await tok.encode(text, null, { addSpecialTokens: false });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    count = e.getIds().length;
    best = Math.min(best, seconds);
  }
  console.log(JSON.stringify({ seconds: best, ids: count }));
}

const [mode, ...args] = process.argv.slice(2);
const done = mode === 'run' ? run(args[0], args[1])
  : mode === 'bench' ? bench(args[0], args[1], args[2], Number(args[3] || 3))
    : Promise.reject(new Error('usage: reference.js run JOB OUT | bench NODE_MODULES TOKENIZER TEXT REPEATS'));
done.catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
