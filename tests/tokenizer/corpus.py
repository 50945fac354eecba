"""The texts the tokenizer exactness test encodes with every tokenizer (tokenizer_exactness_test.py).

Written to find where a tokenizer implementation can go wrong: every script and emoji sequence we
could think of, whitespace of every kind, digits, code, special-token strings inside text,
characters that no vocabulary has, text that Unicode normalization changes, long inputs and
seeded random mixtures. texts() returns them all.
"""
import random

SCRIPTS = [
    # Latin with and without diacritics, composed and decomposed (NFC changes the latter).
    "The quick brown fox jumps over the lazy dog.",
    "Ça va? Déjà vu, naïve café, façade, coöperate, Ångström, Øresund, Łódź, Śląsk, İstanbul, ß ẞ",
    "e\u0301 a\u0300 o\u0308 n\u0303 A\u030a \u212b \u2126 K\u0301 \u1e9b\u0323",
    "Tiếng Việt có dấu: Người ta nói rằng thế giới rất rộng lớn.",
    # Cyrillic, Greek (monotonic and polytonic), Armenian, Georgian.
    "Съешь же ещё этих мягких французских булок, да выпей чаю. Ёё Її Ґґ Ђђ",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. ἐν ἀρχῇ ἦν ὁ λόγος, ΆΈΉΊΌΎΏ",
    "Բարեւ աշխարհ։ გამარჯობა მსოფლიო",
    # CJK: Chinese, Japanese kana and kanji, Korean (composed and as conjoining jamo).
    "我能吞下玻璃而不伤身体。你好，世界！「引号」『双引号』《书名》",
    "いろはにほへと ちりぬるを カタカナ ｶﾀｶﾅ 漢字とひらがな、日本語の文章です。",
    "다람쥐 헌 쳇바퀴에 타고파. 한국어 \u1112\u1161\u11ab\u1100\u1173\u11af",
    "𠀀𠀁𪜀 𫝀 \U00031350 鿿 \uf900\uf901 ⺀ ㊀ ㍻",
    # Right to left: Arabic (with harakat, Persian, Urdu), Hebrew (with niqqud), Syriac.
    "مرحبا بالعالم! اَلْعَرَبِيَّةُ لُغَةٌ جَمِيلَةٌ. فارسی: سلام دنیا. اردو: ہیلو",
    "שָׁלוֹם עוֹלָם! עברית בלי ניקוד. ״מירכאות״ ׳גרש׳",
    "ܫܠܡܐ ܥܠܡܐ",
    # Indic and Southeast Asian scripts.
    "नमस्ते दुनिया! हिन्दी में क्षत्रिय, ज्ञान, श्री। संस्कृतम्",
    "ওহে বিশ্ব। தமிழ் வணக்கம் உலகம். తెలుగు ಕನ್ನಡ മലയാളം ગુજરાતી ਪੰਜਾਬੀ ଓଡ଼ିଆ",
    "สวัสดีชาวโลก ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ ๑๒๓",
    "ສະບາຍດີ ជំរាបសួរ မင်္ဂလာပါ ආයුබෝවන් བཀྲ་ཤིས་བདེ་ལེགས།",
    # Other scripts: Ethiopic, Cherokee, Mongolian, Tifinagh, Canadian syllabics, N'Ko, Vai.
    "ሰላም ዓለም ᏣᎳᎩ ᠮᠣᠩᠭᠣᠯ ⵜⴰⵎⴰⵣⵉⵖⵜ ᐊᐃᓐᖓᐅᔭᖅ ߒߞߏ ꕙꔤ",
    # Historic and rare (outside the BMP, some only in recent Unicode versions).
    "𐌰𐌱𐌲 𓀀𓀁𓂀 𒀀𒀁 𐎀𐎁 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐁𝐨𝐥𝐝 \U00011f00\U00011f01 \U0001e4d0",
]

EMOJI = [
    "😀😃😄😁 👍 👍🏻👍🏼👍🏽👍🏾👍🏿",
    "👨‍👩‍👧‍👦 👩‍❤️‍💋‍👨 🧑🏿‍🚀 🏳️‍🌈 🏴‍☠️ 👁️‍🗨️",
    "🇯🇵🇺🇸🇩🇪🇫🇷🇧🇷 🇺🇳 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "1️⃣ #️⃣ *️⃣ ❤️ ❤ ☺️ ✌🏽 ⌚ ©️ ®️ ™️",
    "\U0001fae8 \U0001fa77 \U0001fabf 🫠 🥹 \u200d \u200d\u200d 😀\u200d",
    "I ❤️ 🍕 and 🍣! 🎉🎉🎉 ... 🤷‍♂️🤷‍♀️",
]

WHITESPACE = [
    "", " ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n", "\n\n\n\n\n", " \n ", "\t\t\t\t",
    "   leading spaces", "trailing spaces   ", "a  b   c    d     e", " \t \n \r\n mixed ",
    "nbsp\u00a0here\u2003em\u3000ideographic\u2009thin\u202fnarrow",
    "zero\u200bwidth\ufeffbom\u180emongolian\u0085nel\u2028line\u2029para\u001cfs\u000bvt\u000cff",
    "line one\nline two\n\nline four\r\nwindows\rold mac",
    "    indented\n        more\n\tand tab\n",
    " " * 100, "\n" * 40, "\t" * 33, " \n" * 25,
]

DIGITS = [
    "0", "7", "42", "123", "1234", "12345", "1234567890", "3.14159265358979", "1,000,000.00",
    "-42 +17 1e10 0x1F 0b1010 0o17 1_000_000", "2024-02-29T23:59:59Z", "192.168.0.1:8080",
    "٠١٢٣٤٥٦٧٨٩ ۰۱۲۳ १२३४ ০১২৩ ๑๒๓ ０１２３", "①②③ ⅠⅡⅢⅻ ½ ¾ ² ³ ¹ ⁰ ₀ ₁",
    "9" * 200, "12 345 6789 0 00 000 0000",
]

ENGLISH = [
    "I'm sure it's fine, isn't it? We've got what they're selling; you'll see, he'd say.",
    "I'M SURE IT'S FINE. WE'VE GOT IT. YOU'LL SEE. HE'D SAY. THEY'RE HERE.",
    "don't won't can't shouldn't 's 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D",
    "'ſ 'K 'ﬅ O'Neil rock'n'roll '' ''' 'quoted' \"double\" “curly” ‘single’",
    "Hello world! Hello, world. Hello   world? HELLO WORLD hello_world helloWorld",
    "Mr. Smith went to Washington , D.C. . He said : \" hi ! \" and left ?",
    "the the the the the the the the the the the the the the the the",
    "Supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic",
]

CODE = [
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
    "#include <cstdio>\nint main() { std::printf(\"%d\\n\", 42); return 0; }\n",
    "for (let i = 0; i < 10; ++i) { console.log(`i=${i}`); } // comment\n/* block */",
    '{"key": [1, 2.5, true, null], "nested": {"a": "b\\n"}}',
    "<html><body class=\"x\"><p>Paragraph &amp; entity &#x27;</p></body></html>",
    "SELECT * FROM users WHERE id = 1 AND name LIKE '%bob%';",
    "$ ls -la | grep -E '^d' && echo \"done\" >> /tmp/log 2>&1",
    "regex: ^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+)@\\w+\\.\\w{2,}$",
    "x=>{return x**2}; a->b; a::b; a<<=b; a!==b; a ?? b; a?.b; @decorator",
    "    \t\tmixed\tindentation\n\t    here",
    "\\n \\t \\\\ \\u00e9 %s %d {} {0} $1 ${HOME}",
]

SPECIAL_STRINGS = [
    "<s>", "</s>", "<unk>", "<pad>", "<s>Hello</s>", "Hello <s> world </s> end", "<s><s></s></s>",
    "text<s>text", " <s> ", "<s> ", " <s>", "<s>\n</s>\n", "< s>", "<s", "s>", "<<s>>",
    "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|endoftext|",
    "<|begin_of_text|>Hello<|eot_id|>", "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n",
    "<think>\nreasoning\n</think>\n\nanswer", "<tool_call>{\"a\":1}</tool_call>",
    "<|im_start", "im_start|>", "<|im_end|>x", " <|im_end|> ",
    "<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n", "<eos>", "<mask>",
    "<unused0> <unused99> <unused6241>", "[multimodal]", "<start_of_image>", "<image_soft_token>",
    "\n\n\n", "\n\n\n\n\n\n\n\n\n\n", "\t\t\t\t\t\t", "▁▁▁ ▁hello ▁", "▁", "▁▁",
    "Ġhello Ċ ĠĠ ġ", "<0x0A> <0xFF> <0xE4><0xBD><0xA0>",
    # For the variants' added tokens (lstrip, rstrip, single_word, normalized) and splits.
    "hello world", "say hello world now", "hello  world", "hello World",
    "ПРИВЕТ", "ПРИВЕТ мир", "xПРИВЕТ", "ПРИВЕТx", " ПРИВЕТ ", "ПРИВЕТ_",
    "zz9 zz9zz9", "1234567 12 123456 1234", "a <think> b </think> c", "a  <think>  b",
    "x<tool_call>y <tool_call> z", "<tool_call>", " <|im_end|>  \n<|im_end|>\n",
    "Hello.World,Foo;BAR-baz 12-34 ABC.def... --x-- ;;", "UPPER lower MiXeD CASE",
]

MISSING = [
    "\x00", "\x01\x02\x03", "\x7f", "control\x00inside\x1b[31mred\x1b[0m",
    "\ue000\uf8ff private use \U000f0000", "\u0378 unassigned \U000e0001 tag", "\ufffd replacement",
    "\ufffe\uffff nonchar", "꙰꙳ ꧁꧂ ᚠᛇᚻ ⠓⠑⠇⠇⠕", "𝕬𝖑𝖕𝖍𝖆 ﬁ ﬂ ﬀ ﬃ Ⅷ ㌀ ㍿ ℡ ™ ㈱",
    "ｆｕｌｌｗｉｄｔｈ　ＡＢＣ　！？", "ǅ ǈ ǋ ǲ ſt ß İ ı",
]


def long_texts():
    lorem = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
             "incididunt ut labore et dolore magna aliqua. ")
    mixed = "".join(SCRIPTS + EMOJI + ENGLISH + CODE)
    return [
        lorem * 60,
        mixed * 3,
        "a" * 20000,
        "ab" * 5000,
        " " * 3000,
        "😀" * 500,
        "你" * 2000,
        "word " * 3000,
        "".join(chr(c) for c in range(0x20, 0x7f)) * 20,
        "".join(chr(c) for c in range(0xa0, 0x250)),
        "".join(chr(c) for c in range(0x370, 0x530) if c not in range(0x378, 0x37a)),
    ]


# Pools the random mixtures draw from: ASCII heavy, with marks, joiners and the characters
# tokenizers treat specially.
POOL = (list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 ") * 4 +
        list(" \t\n\r.,;:!?'\"()[]{}<>|/\\-_=+*&^%$#@~`") +
        ["\u0301", "\u0308", "\u200d", "\ufe0f", "\u00a0", "\u3000", "é", "ß", "ñ", "Ω", "Ж",
         "中", "文", "あ", "ア", "한", "ا", "ש", "क", "्", "ि", "ก", "ั", "😀", "👍", "🏽", "🇺",
         "🇸", "▁", "Ġ", "<s>", "</s>", "<|endoftext|>", "<|im_end|>", "<unk>", "<bos>", "'s",
         "'LL", "\U0001f9d1", "\U00020000", "\x00", "\x0b", "\u2028", "\u0085", "\ufeff"])


def random_texts(count=150, seed=31):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.choice([1, 2, 3, 5, 8, 13, 30, 80])
        out.append("".join(rng.choice(POOL) for _ in range(n)))
    # And arbitrary code points (no surrogates), which no vocabulary covers.
    for _ in range(40):
        chars = []
        for _ in range(rng.randint(1, 12)):
            plane = rng.choice([0, 0, 0, 1, 2, 14])
            c = rng.randrange(0x20, 0x10000) + plane * 0x10000
            if 0xd800 <= c < 0xe000:
                c = 0x41
            chars.append(chr(c))
        out.append("".join(chars))
    return out


def texts():
    return (SCRIPTS + EMOJI + WHITESPACE + DIGITS + ENGLISH + CODE + SPECIAL_STRINGS + MISSING +
            long_texts() + random_texts())
