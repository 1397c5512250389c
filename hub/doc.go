// Package hub downloads sentence-embedding models from the Hugging Face
// model hub (or any server speaking the same HTTP API) for
// `holomem model pull`, and finds installed models.
//
// # Protocol
//
// [Client.Pull] asks GET {base}/api/models/{repo}/revision/{rev} for the
// commit sha (and the file names), then GET {base}/api/models/{repo}/tree/
// {sha}?recursive=true (following Link rel="next" pages) for each file's
// size, git blob id and, for LFS files, SHA-256. Files come from
// {base}/{repo}/resolve/{sha}/{path}, usually a redirect to a CDN. Using the
// sha rather than the branch pins one snapshot even if the branch moves
// during the download. A hub without the tree endpoint still works: names
// come from the revision's siblings and files are not verified against
// checksums (their SHA-256 is still recorded).
//
// Only what a sentence model needs is fetched (see [Wanted]): config.json,
// tokenizer files (tokenizer.json, tokenizer_config.json,
// special_tokens_map.json, sentencepiece.bpe.model, vocab.txt), the
// sentence-transformers files (modules.json, sentence_bert_config.json,
// config_sentence_transformers.json, 1_Pooling/config.json) and
// model.safetensors. Other weight formats (pytorch_model.bin, onnx/, tf/,
// flax, openvino) and sharded safetensors are skipped; a repo without
// config.json and model.safetensors is an error before anything downloads.
//
// # Layout
//
// A model lives in dir/<repo with "/" replaced by "__">/ ([DirName]):
//
//	models/
//	  sentence-transformers__paraphrase-multilingual-MiniLM-L12-v2/
//	    config.json  tokenizer.json  ...  1_Pooling/config.json
//	    model.safetensors
//	    model.safetensors.part   (only while downloading)
//	    manifest.json            (written last)
//
// manifest.json ([Manifest]) records repo, revision, commit, every file
// with size and SHA-256, and pulled_at. A directory without it is an
// unfinished pull, which [List] ignores and the next Pull completes. One
// directory holds one revision: pulling another revision replaces the files.
// [DefaultDir] is $HOLOMEM_MODEL_DIR, $XDG_DATA_HOME/holomem/models or
// ~/.local/share/holomem/models. (A repo "a__b" and "a/b" would share a
// directory; real hub ids do not collide this way in practice.)
//
// # Robustness
//
// Every file is written to <name>.part and renamed into place only after
// it verified, so a final file name never holds partial or unverified
// data. A transfer that breaks or stalls is resumed with a Range request
// up to [Client.Retries] times within one Pull; a server that answers Range
// with 200 restarts the file. A cancelled context stops the Pull at once
// and leaves the .part for the next Pull to resume. A checksum mismatch
// removes the part and fails with [ErrChecksum] (a resumed part that fails
// is first retried once from scratch). A second Pull of an unchanged model
// trusts the manifest for files whose size and checksum still match the
// hub's listing and transfers nothing but the listing.
//
// Tests run against an httptest server; no machine of this project reaches
// the real hub.
package hub
