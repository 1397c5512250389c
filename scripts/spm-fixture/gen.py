#!/usr/bin/python3
"""Deterministic multilingual corpus generator for the spm parity fixtures.

Usage: gen.py OUTDIR
Writes OUTDIR/train.txt (training corpus), OUTDIR/sentences.txt (test set,
valid UTF-8) and OUTDIR/sentences_bad.txt (lines with invalid UTF-8 and
control bytes). Everything is derived from a fixed seed, so the files are the
same on every run.
"""
import os
import random
import sys

R = random.Random(20261129)

EN = ("the of and to in is was for on that with as by it from at he his an be "
      "memory fact agent graph search vector model store query edge entity time "
      "remember forget learn cause effect because after before during while "
      "quick brown fox jumps over lazy dog hello world data science system user "
      "language sentence token embedding retrieval holographic reduced representation "
      "running walked talking cities houses children knowledge yesterday tomorrow").split()
RU = ("и в не на я что он с как это по но они мы память граф поиск вектор модель "
      "агент факт время причина следствие потому после перед когда привет мир "
      "знание город дома дети вчера завтра язык предложение слово хранилище").split()
DE = ("der die das und ist nicht ein eine mit für auf Gedächtnis Wissen Straße "
      "Mädchen über schön grüßen Fuß Größe Bäume Häuser Kinder gestern morgen "
      "Sprache Satz Wort Speicher Abfrage weil nachdem bevor während").split()
UK = ("і в не на що він з як це але вони ми пам'ять граф пошук вектор модель "
      "агент факт час причина наслідок тому після перед коли привіт світ ґанок "
      "їжак єнот знання місто").split()
FR = ("le la les et est pas un une avec pour sur mémoire connaissance être "
      "garçon français où déjà très façon noël naïve cœur œuvre hôtel").split()
ES = ("el la los y es no un una con para año niño señor canción corazón "
      "mañana está qué cómo pingüino").split()
ZH = list("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书")
JA = ("これ それ あれ 私 記憶 検索 ベクトル モデル エージェント 事実 時間 原因 "
      "結果 こんにちは 世界 東京 日本語 カタカナ ひらがな です ます した する "
      "ありがとう ございます テスト データ").split()
EMOJI = ["😀", "😂", "❤️", "👍", "👍🏽", "👩‍💻", "🇺🇦", "🇩🇪", "🎉", "🚀", "✨", "🔥",
         "👨‍👩‍👧‍👦", "🙏🏿", "☕", "🧠"]
CODE = ["func main() { fmt.Println(\"hi\") }", "x := map[string]int{}", "if err != nil { return err }",
        "for i := 0; i < n; i++ {", "SELECT id, body FROM facts WHERE ns = ?;",
        "def f(x): return x ** 2", "let v = vec![1, 2, 3];", "<div class=\"hit\">{{.Score}}</div>",
        "a && b || !c", "arr[i] += 0x1F;", "#include <stdio.h>", "λx.x y", "git commit -m \"fix\""]
ACCENT = ("café naïve résumé São Paulo Zürich Ångström Øresund Łódź Dvořák Ærø "
          "piñata façade coöperate Málaga İstanbul ıi Straße").split()
FULLWIDTH = ["ＡＢＣ", "ｈｅｌｌｏ", "１２３", "（テスト）", "！？", "ｶﾀｶﾅ", "＄１００"]
LIGATURES = ["ﬁle", "ﬂow", "oﬃce", "ﬀ", "ﬆ", "Ⅻ", "Ⅳ", "①②③", "½", "™", "㎏", "㍻", "ℌ", "ℯ"]
SPACES = [" ", "  ", "\t", "\u00a0", "\u3000", "\u2002", "\u2009", "   ", "\u200b"]
ODD = ["\u0301", "\u0308", "e\u0301", "a\u030a", "\u200d", "\u200c", "\u00a0", "\t",
       "\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627", "\u200f", "\u200e",
       "\ud7ff", "\ue000", "\ufffd", "\ufeff", "\U0001f3fb", "\U00010348", "\U0001d54f",
       "\uff21\uff42\uff43", "ﬁ", "Ⅻ", "⑳", "㉑", "👋🏾", "👩🏻‍🔬", "🏳️‍🌈", "\u2028",
       "\u0085", "\u00ad", "\u2060", "ǅ", "ẞ", "ﷺ", "\u0e01\u0e32\u0e23", "한국어", "ㄱ",
       "\u1100\u1161", "\u0915\u094d\u0937", "…", "—", "«»", "„“", "\u00b5", "K", "Å",
       "\U0010fffd", "\ufdd0", "\u0000"[0:0], "\x7f", "\x01", "\x1b[0m", "\u2126", "ℵ"]

# Pseudo-words widen the training vocabulary deterministically.
LAT_SYL = "ka ri to mo ne sa lu vi de or an el is un pra ste gro bli fu zen qua rox tal mer".split()
CYR_SYL = "ка ри то мо не са лу ви де ор ан ел ис ун пра сте гро бли фу зен жа щи ць ї".split()
KANA = list("かきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん")


def pseudo(syl, lo=1, hi=4):
    return "".join(R.choice(syl) for _ in range(R.randint(lo, hi)))


def words(lang, n):
    out = []
    for _ in range(n):
        r = R.random()
        if lang == "en":
            out.append(R.choice(EN) if r < 0.8 else pseudo(LAT_SYL))
        elif lang == "ru":
            out.append(R.choice(RU) if r < 0.8 else pseudo(CYR_SYL))
        elif lang == "uk":
            out.append(R.choice(UK) if r < 0.8 else pseudo(CYR_SYL))
        elif lang == "de":
            out.append(R.choice(DE) if r < 0.8 else pseudo(LAT_SYL).capitalize())
        elif lang == "fr":
            out.append(R.choice(FR))
        elif lang == "es":
            out.append(R.choice(ES))
    return out


def sentence(odd=False):
    kind = R.random()
    if kind < 0.55:
        lang = R.choice(["en", "en", "ru", "uk", "de", "fr", "es"])
        ws = words(lang, R.randint(3, 14))
        s = " ".join(ws)
        s = s[0].upper() + s[1:] + R.choice([".", "!", "?", "", ",", ";", "..."])
    elif kind < 0.65:
        s = "".join(R.choice(ZH) for _ in range(R.randint(4, 20))) + R.choice(["。", "，", "！", ""])
    elif kind < 0.72:
        s = "".join(R.choice(JA) for _ in range(R.randint(2, 6))) + "".join(R.choice(KANA) for _ in range(R.randint(0, 5))) + "。"
    elif kind < 0.80:
        s = R.choice(CODE)
    elif kind < 0.86:
        s = " ".join(R.choice(ACCENT) for _ in range(R.randint(2, 6)))
    elif kind < 0.90:
        s = " ".join(words("en", R.randint(2, 6))) + " " + " ".join(R.choice(EMOJI) for _ in range(R.randint(1, 3)))
    elif kind < 0.95:
        s = " ".join(R.choice(FULLWIDTH + LIGATURES) for _ in range(R.randint(2, 5)))
    else:
        s = "%d.%02d %s %d%% №%d" % (R.randint(0, 9999), R.randint(0, 99), R.choice(EN), R.randint(0, 100), R.randint(1, 99))
    if odd:
        # Sprinkle odd Unicode and odd whitespace at random positions.
        chars = list(s)
        for _ in range(R.randint(1, 4)):
            pos = R.randint(0, len(chars))
            chars.insert(pos, R.choice(ODD + SPACES + EMOJI + LIGATURES + FULLWIDTH))
        s = "".join(chars)
        if R.random() < 0.2:
            s = R.choice(SPACES) + s
        if R.random() < 0.2:
            s = s + R.choice(SPACES)
    # Lines are newline-delimited; keep line separators out.
    return s.replace("\n", " ").replace("\r", " ")


# Code point ranges for random_lines: scripts, symbols, compatibility forms,
# controls, private use, surrogate neighbours, tags.
RANGES = [(0x20, 0x7e), (0xa0, 0x24f), (0x300, 0x36f), (0x370, 0x3ff), (0x400, 0x4ff), (0x590, 0x6ff),
          (0x900, 0x97f), (0xe00, 0xe7f), (0x1100, 0x11ff), (0x1e00, 0x1fff), (0x2000, 0x206f),
          (0x2070, 0x218f), (0x2190, 0x23ff), (0x2460, 0x24ff), (0x2e80, 0x2fdf), (0x3000, 0x30ff),
          (0x3130, 0x318f), (0x3200, 0x33ff), (0x4e00, 0x4eff), (0xac00, 0xac8f), (0xf900, 0xfaff),
          (0xfb00, 0xfb4f), (0xfe00, 0xfe6f), (0xff00, 0xffef), (0x1d400, 0x1d7ff), (0x1f000, 0x1faff),
          (0x1, 0x1f), (0x7f, 0x9f), (0xd7f0, 0xd7ff), (0xe000, 0xe00f), (0xfff0, 0xfffd),
          (0x10000, 0x1007f), (0x2f800, 0x2fa1f), (0xe0000, 0xe007f)]


def random_lines():
    """Random code point soup (seed 99). Lines 547, 6936, 7891 and 26702 of
    this stream are near-ties that only resolve like spm_encode when path
    scores are summed in double, so they are always included."""
    r = random.Random(99)
    out = []
    for _ in range(30000):
        s = []
        for _ in range(r.randint(1, 40)):
            if r.random() < 0.3:
                s.append(r.choice(" abcdefghijklmnop  \t\u3000\u00a0"))
            else:
                a, b = r.choice(RANGES)
                c = r.randint(a, b)
                if c in (0x0a, 0x0d, 0x85, 0x2028, 0x2029):
                    c = 0x20
                s.append(chr(c))
        out.append("".join(s))
    return out[:800] + [out[i] for i in (547, 6936, 7891, 26702)]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "train.txt"), "w", encoding="utf-8") as f:
        for _ in range(6000):
            f.write(sentence(odd=R.random() < 0.1) + "\n")
    seen = set()
    test = ["", " ", "   ", "\t", "a", "▁", "▁▁x", " leading", "trailing ", "in  between   spaces",
            "ﬁ", "Ⅻ", "①②③", "ＡＢＣ ｄｅｆ", "e\u0301", "\u200d", "👩🏽‍💻", "\u00a0\u00a0nbsp\u00a0",
            "tab\there", "\ufeffbom", "\ud7ff\ue000", "שלום עולם", "مرحبا بالعالم", "한국어", "⅓ ㎞ ㍿",
            "x" * 300, "ab" * 200, " ".join(["word"] * 100),
            "<mask>", "a<mask>b", "hi @@holo@@ there", "<s> literal </s> <unk> <pad>", "<0x41>",
            "▁<mask>▁", "ﬁ<mask>", "@@holo@@@@holo@@", "\u2581\u2581\u2581",
            "ﬁx fix ffi ffa fff\t x", " a\u0301 e\u0301 \u200b ｆ", "ＡﬁxＡ", "ffffi ﬀi fﬁ", "\u200b\u200b"]
    while len(test) < 3000:
        s = sentence(odd=R.random() < 0.6)
        if s not in seen:
            seen.add(s)
            test.append(s)
    with open(os.path.join(out, "sentences.txt"), "w", encoding="utf-8") as f:
        for s in test:
            f.write(s + "\n")
    with open(os.path.join(out, "random.txt"), "w", encoding="utf-8") as f:
        for s in random_lines():
            f.write(s + "\n")
    bad = [b"\xff", b"abc\xfe\xffdef", b"\xc3\x28", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80 surrogate",
           b"\xc0\xaf overlong", b"\xf4\x90\x80\x80 too big", b"\x00nul\x00", b"\x01\x02\x03 ctl",
           b"\x1b[31mred\x1b[0m", b"\x7f\x80\x81", b" \xff \xff ", b"caf\xc3\xa9\xa9",
           b"\xef\xbf\xbd real fffd", b"\xef\xbb\xbf bom"]
    for i in range(200):
        s = sentence(odd=True).encode("utf-8")
        pos = R.randint(0, len(s))
        junk = bytes(R.randint(0, 255) for _ in range(R.randint(1, 3)))
        junk = junk.replace(b"\n", b"\x80").replace(b"\r", b"\x81")
        bad.append(s[:pos] + junk + s[pos:])
    with open(os.path.join(out, "sentences_bad.txt"), "wb") as f:
        for s in bad:
            f.write(s + b"\n")


if __name__ == "__main__":
    main()
