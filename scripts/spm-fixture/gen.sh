#!/usr/bin/env bash
# Regenerates spm/testdata: two SentencePiece Unigram models trained with
# Debian's spm_train and the ids spm_encode gives for multilingual test sets.
# Needs: apt-get install -y sentencepiece; /usr/bin/python3.
# Run from anywhere: scripts/spm-fixture/gen.sh
#
# Outputs (all deterministic for a given spm_train version; 0.1.97 made them):
#   fixture.model       XLM-R style model (nmt_nfkc); also used by internal/testkit/testutil
#   custom.model        custom rule table, user-defined symbols, byte fallback
#   sentences.txt       3000 test sentences (gen.py), one per line
#   sentences_bad.txt   invalid UTF-8 and control bytes
#   random.txt          random code points, incl. known near-tie lines
#   *_ids.txt           spm_encode --output_format=id, line for line
# The tokenizer.json twin of fixture.model is made in the tests by
# spm.ConvertToTokenizerJSON (its base64 charsmap would double the size here).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/spm/testdata"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

command -v spm_train >/dev/null || { echo "spm_train missing: apt-get install -y sentencepiece" >&2; exit 1; }
spm_train --version 2>&1 | head -1

/usr/bin/python3 "$here/gen.py" "$work"
# Relative paths: the model records its input and prefix, and the fixture
# should not depend on the temporary directory name.
cd "$work"

# Main fixture: XLM-R style (nmt_nfkc charsmap, <unk>=0 <s>=1 </s>=2, no byte fallback).
spm_train --input=train.txt --model_prefix=fixture \
  --model_type=unigram --vocab_size=8000 --hard_vocab_limit=false \
  --normalization_rule_name=nmt_nfkc --character_coverage=0.9995 \
  --num_threads=2 --random_seed=7 --minloglevel=2 \
  --shuffle_input_sentence=false --input_sentence_size=0

# Second fixture: a custom normalisation rule table (overlapping multi-character
# keys, a deleting rule), user-defined symbols (one containing a character the
# rules rewrite), byte fallback, whitespace kept as is, a small vocabulary so
# unknown characters are common.
printf 'FB01\t66 69\nFF21\t41\n3000\t20\n216B\t58 49 49\n61 301\tE1\n65 301\tE9\n2460\t31\n9\t20\nA0\t20\n200B\t\n66 66\tFB00\n66 66 69\tFB03\n' > rules.tsv
spm_train --input=train.txt --model_prefix=custom \
  --model_type=unigram --vocab_size=1500 --hard_vocab_limit=false \
  --normalization_rule_tsv=rules.tsv --remove_extra_whitespaces=false \
  --byte_fallback=true --character_coverage=0.98 \
  --user_defined_symbols='<mask>,@@holo@@,ab,ﬁx' \
  --num_threads=2 --random_seed=7 --minloglevel=2 \
  --shuffle_input_sentence=false --input_sentence_size=0

cp "$work/fixture.model" "$work/custom.model" "$work/sentences.txt" "$work/sentences_bad.txt" "$work/random.txt" "$out/"
# expected_ids.txt line i holds spm_encode's ids for sentences.txt line i.
spm_encode --model="$out/fixture.model" --output_format=id < "$out/sentences.txt" > "$out/expected_ids.txt"
spm_encode --model="$out/fixture.model" --output_format=id < "$out/sentences_bad.txt" > "$out/fixture_bad_ids.txt"
spm_encode --model="$out/fixture.model" --output_format=id < "$out/random.txt" > "$out/random_ids.txt"
# The custom model covers the first 1000 sentences and 300 random lines only
# (keeps testdata < 1 MB).
head -n 1000 "$out/sentences.txt" | spm_encode --model="$out/custom.model" --output_format=id > "$out/custom_ids.txt"
head -n 300 "$out/random.txt" | spm_encode --model="$out/custom.model" --output_format=id > "$out/custom_random_ids.txt"
spm_encode --model="$out/custom.model" --output_format=id < "$out/sentences_bad.txt" > "$out/custom_bad_ids.txt"

wc -l "$out"/*.txt
du -ch "$out"/* | tail -1
