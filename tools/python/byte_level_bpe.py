"""Byte-level BPE as GPT-2 defines it and Hugging Face's `tokenizers` runs it (model BPE under a
ByteLevel pre-tokenizer with its split regex): the byte <-> character map, the pre-tokenizer,
a merge learner and an encoder that applies merges by rank. Standard library only.

Pre-tokenization is GPT-2's regex, which `tokenizers` applies when ByteLevel has use_regex true:

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

Python's `re` has no \\p{L} / \\p{N}, so this module applies it to ASCII text only, where \\p{L}
is [A-Za-z], \\p{N} is [0-9] and \\s is [\\t\\n\\v\\f\\r ]; other text is refused (ValueError).
The bundled model's text, the King James Bible, is ASCII. (The tokenizer.json written from
the merges serves any text: `tokenizers` and attnrt run the full Unicode regex.)

Learning: every pre-tokenized word becomes its byte characters; the most frequent adjacent
pair over all words (weighted by word count) is merged, ties going to the pair whose
(left, right) strings sort first, until the wanted number of merges or no pair occurs twice.
The result depends only on the word counts: deterministic."""
import heapq
import re

SPLIT_REGEX = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")
_ASCII_SPLIT = re.compile(
    r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\t\n\v\f\r A-Za-z0-9]+"
    r"|[\t\n\v\f\r ]+(?![^\t\n\v\f\r ])|[\t\n\v\f\r ]+")


def byte_chars():
    """GPT-2's map of the 256 byte values to printable characters: the bytes that are
    printable Latin-1 characters other than space and the soft hyphen (0x21-0x7E, 0xA1-0xAC,
    0xAE-0xFF) stand for themselves; the other 68, in byte order, become U+0100, U+0101, ..."""
    printable = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    table, spare = [], 0x100
    for b in range(256):
        if b in printable:
            table.append(chr(b))
        else:
            table.append(chr(spare))
            spare += 1
    return table


_BYTE_CHARS = byte_chars()


def pretokenize(text):
    """The regex's pieces of ASCII text, each as its byte characters (a space becomes 'Ġ')."""
    if not text.isascii():
        raise ValueError("byte_level_bpe pre-tokenizes ASCII text only")
    return ["".join(_BYTE_CHARS[b] for b in piece.encode("ascii"))
            for piece in _ASCII_SPLIT.findall(text)]


class _Pairs:
    """Counts of adjacent symbol pairs over the words, the words each pair occurs in, and a
    heap of (-count, pair) entries checked against the counts when popped."""

    def __init__(self, words, counts):
        self.count, self.where, self.heap = {}, {}, []
        for index, word in enumerate(words):
            self.add(word, counts[index], index)
        for pair, n in self.count.items():
            self.heap.append((-n, pair))
        heapq.heapify(self.heap)

    def add(self, word, n, index):
        for pair in zip(word, word[1:]):
            self.count[pair] = self.count.get(pair, 0) + n
            self.where.setdefault(pair, set()).add(index)

    def remove(self, word, n):
        for pair in zip(word, word[1:]):
            self.count[pair] -= n

    def push(self, pairs):
        """New heap entries for pairs whose counts changed (the old entries go stale)."""
        for pair in sorted(pairs):
            if self.count[pair] > 0:
                heapq.heappush(self.heap, (-self.count[pair], pair))

    def best(self):
        while self.heap:
            negative, pair = self.heap[0]
            if self.count.get(pair, 0) == -negative and -negative > 0:
                return pair, -negative
            heapq.heappop(self.heap)
        return None, 0


def _merged(word, pair, symbol):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(symbol)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def learn_merges(word_counts, new_tokens):
    """Merges [(left, right)] learned from {byte-character word: count} until they make
    `new_tokens` distinct tokens (two merges may make the same string) or no pair occurs twice."""
    ordered = sorted(word_counts)
    words = [tuple(w) for w in ordered]
    counts = [word_counts[w] for w in ordered]
    pairs = _Pairs(words, counts)
    learned, made = [], set()
    while len(made) < new_tokens:
        pair, n = pairs.best()
        if pair is None or n < 2:
            break
        learned.append(pair)
        symbol = pair[0] + pair[1]
        made.add(symbol)
        touched = set()
        for index in sorted(pairs.where.pop(pair)):
            word = words[index]
            new = _merged(word, pair, symbol)
            if new == word:
                continue
            pairs.remove(word, counts[index])
            pairs.add(new, counts[index], index)
            touched.update(zip(word, word[1:]), zip(new, new[1:]))
            words[index] = new
        pairs.push(touched)
    return learned


class Encoder:
    """Ids of text under a vocabulary {token: id} and merges [(left, right)], as the BPE model
    of `tokenizers` gives them: in each pre-tokenized word the adjacent pair of lowest merge rank
    is merged first, repeatedly (ignore_merges false, no dropout)."""

    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.rank = {pair: r for r, pair in enumerate(merges)}
        self.cache = {}

    def word_ids(self, word):
        ids = self.cache.get(word)
        if ids is None:
            symbols = list(word)
            while len(symbols) > 1:
                ranked = [(self.rank.get(p, len(self.rank)), i)
                          for i, p in enumerate(zip(symbols, symbols[1:]))]
                r, i = min(ranked)
                if r == len(self.rank):
                    break
                symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
            ids = [self.vocab[s] for s in symbols]
            self.cache[word] = ids
        return ids

    def encode(self, text):
        return [i for word in pretokenize(text) for i in self.word_ids(word)]

    def decode(self, ids):
        """Bytes of ids that are all ordinary (non-added) tokens."""
        inverse = getattr(self, "_inverse", None)
        if inverse is None:
            byte_of = {c: b for b, c in enumerate(_BYTE_CHARS)}
            inverse = self._inverse = {i: bytes(byte_of[c] for c in t)
                                       for t, i in self.vocab.items() if all(c in byte_of for c in t)}
        return b"".join(inverse[i] for i in ids)


def encoder_of(tokenizer_json):
    """The Encoder of a tokenizer.json object whose model is BPE with "a b" merge strings."""
    model = tokenizer_json["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    return Encoder(model["vocab"], merges)
